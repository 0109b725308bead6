import type { ModelStreamEvent } from '@tooltx/agent'
import type { Output } from './output.js'
import { HANGING } from './timeline.js'

/** What `WatchedModel` tells about each request it passes on; never changes the request or its events. */
export interface ModelObserver {
  /** A request was sent. */
  requestStarted(): void
  /** An event of the request's stream arrived, in order. */
  event(event: ModelStreamEvent): void
  /** The request's stream ended, whole or not. */
  requestEnded(): void
}

/**
 * What `tooltx run` shows of its model's work at a terminal (K2.12): while a request has had no
 * answer, the status text `waiting for <model> (<n> s)` (`waitingText`, painted by the live
 * view with its spinner); once the reply's text streams, that text as it arrives after
 * `    assistant: `, so the timeline leaves out the `assistant:` line of a reply already shown
 * (`takeStreamed`). Without a terminal it shows nothing.
 */
export class ModelProgress implements ModelObserver {
  readonly #out: Output
  readonly #model: string
  #since: number | undefined
  #streaming = false
  #streamed = false

  constructor(out: Output, model: string) {
    this.#out = out
    this.#model = model
  }

  requestStarted(): void {
    if (!this.#out.interactive) return
    this.#since = Date.now()
    this.#streaming = false
  }

  event(event: ModelStreamEvent): void {
    if (!this.#out.interactive) return
    if (event.type === 'message') {
      this.#streamed = this.#streaming
      return
    }
    if (this.#since !== undefined) {
      this.#since = undefined
      this.#out.status('')
    }
    if (event.type !== 'text-delta' || event.text === '') return
    if (!this.#streaming) this.#out.text('    assistant: ')
    this.#streaming = true
    // Its later lines stand under the first, as the timeline's message lines do (K2.28).
    this.#out.text(event.text.replaceAll('\n', `\n    ${HANGING}`))
  }

  requestEnded(): void {
    this.#since = undefined
    this.#streaming = false
  }

  /** The status text while a request waits for its first event, `undefined` otherwise. */
  waitingText(): string | undefined {
    if (this.#since === undefined) return undefined
    return `waiting for ${this.#model} (${Math.floor((Date.now() - this.#since) / 1000)} s)`
  }

  /** True once after a reply whose text was shown as it streamed (the timeline then leaves it out). */
  takeStreamed(): boolean {
    const streamed = this.#streamed
    this.#streamed = false
    return streamed
  }
}
