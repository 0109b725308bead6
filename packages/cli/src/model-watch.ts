import { type ModelAdapter, ModelError, type ModelRequest, type ModelStreamEvent } from '@tooltx/agent'
import type { ModelObserver } from './display/model-progress.js'
import { forCliUsers, type ProviderVars } from './provider-errors.js'

/** What `watchModel` needs: the endpoint to name and how long a request may go without an answer. */
export interface ModelWatchOptions {
  /** The URL the adapter sends its requests to, as messages name it. */
  url: string
  /** Milliseconds a request may go without a stream event before it fails (`--timeout`, K2.11). */
  timeoutMs: number
  /** Where the user sets the key and the base URL, named in place of the adapter's options (K2.14). */
  vars: ProviderVars
  /** Told of each request and its events (K2.12); read-only. */
  observer?: ModelObserver
}

/**
 * `model` as `tooltx run` asks it (K2.11): a request that yields no stream event for
 * `timeoutMs` (none yet, or none since the last) is cancelled and fails with a `connection`
 * `ModelError` that names the URL and `--timeout`, so the agent ends the turn as an error with
 * that message; any other `ModelError` is reworded for CLI users (`forCliUsers`). The events themselves pass through unchanged, each shown to `observer` first;
 * the caller's own abort stays an abort.
 */
export class WatchedModel implements ModelAdapter {
  readonly name: string
  readonly #model: ModelAdapter
  readonly #options: ModelWatchOptions
  #timeout: string | undefined

  /** The adapter's own argument parsing, when it has one (strict mode). */
  readonly parseArguments?: ModelAdapter['parseArguments']

  constructor(model: ModelAdapter, options: ModelWatchOptions) {
    this.name = model.name
    this.#model = model
    this.#options = options
    if (model.parseArguments !== undefined) this.parseArguments = model.parseArguments.bind(model)
  }

  /** The message of the last request that timed out (`no answer from …`), `undefined` while none did. */
  get timedOut(): string | undefined {
    return this.#timeout
  }

  async *stream(
    request: ModelRequest,
    signal: AbortSignal,
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const { url, timeoutMs, observer } = this.#options
    const own = new AbortController()
    const forward = (): void => own.abort(signal.reason)
    if (signal.aborted) forward()
    else signal.addEventListener('abort', forward, { once: true })
    let expired = false
    let timer: NodeJS.Timeout | undefined
    const arm = (): void => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        expired = true
        own.abort(new Error('no answer in time'))
      }, timeoutMs)
    }
    arm()
    observer?.requestStarted()
    try {
      for await (const event of this.#model.stream(request, own.signal)) {
        // The reply is whole once its `message` arrives: nothing is awaited from the server after it.
        if (event.type === 'message') clearTimeout(timer)
        else arm()
        observer?.event(event)
        yield event
      }
    } catch (error) {
      if (!expired || signal.aborted)
        throw error instanceof ModelError ? forCliUsers(error, this.#options.vars) : error
      this.#timeout = `no answer from ${url} within ${seconds(timeoutMs)} s; raise it with --timeout or check the server`
      throw new ModelError(this.name, 'connection', this.#timeout, { cause: error })
    } finally {
      observer?.requestEnded()
      clearTimeout(timer)
      signal.removeEventListener('abort', forward)
    }
  }
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10)
}
