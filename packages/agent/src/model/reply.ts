import type { AssistantBlock, TextBlock } from '@tooltx/core'
import type { ReplyStop } from '@tooltx/session'
import type { ModelAdapter, ModelRequest, ModelStreamEvent, ModelUsage, ReplyMessageEvent } from './model.js'
import { ModelError } from './model-error.js'

/**
 * Collects the events of one model stream. `partial()` is what an aborted reply keeps
 * (L6.6); `message` is the final event once it has arrived.
 *
 * A tool call counts as complete only when the final `message` event arrives, because the
 * OpenAI wire has no per-call end marker; so `partial()` drops every tool call. Partial
 * reasoning is dropped too: without the provider's closing signature it could not be sent back.
 */
export class ReplyAccumulator {
  #texts: string[] = []
  #textOpen = false
  #message: ReplyMessageEvent | undefined

  /** Feeds the next event of the stream, in order. */
  push(event: ModelStreamEvent): void {
    if (event.type === 'text-delta') {
      if (!this.#textOpen) {
        this.#texts.push('')
        this.#textOpen = true
      }
      this.#texts[this.#texts.length - 1] += event.text
    } else if (event.type === 'tool-call-delta' || event.type === 'reasoning-delta') {
      // Text after a tool call or reasoning is a new block, as the provider would send it.
      this.#textOpen = false
    } else {
      this.#message = event
    }
  }

  /** The final `message` event, or `undefined` while the reply is incomplete. */
  get message(): ReplyMessageEvent | undefined {
    return this.#message
  }

  /**
   * The text streamed so far as text blocks in stream order, empty ones left out; no
   * tool-call blocks. An empty array means there is nothing worth keeping (L6.6).
   */
  partial(): TextBlock[] {
    return this.#texts.filter((text) => text !== '').map((text) => ({ type: 'text', text }))
  }
}

/** How `readReply` ended: the complete reply, or the partial text of an aborted one. */
export type ReplyOutcome =
  | { status: 'complete'; content: AssistantBlock[]; usage: ModelUsage; stop?: ReplyStop }
  | { status: 'aborted'; content: TextBlock[] }

/**
 * Streams one reply to its end. Every event is passed to `onEvent` first (for live
 * display). Resolves `complete` with the final message, or `aborted` with the partial text
 * (tool calls dropped, L6.6) when `signal` aborted before the final message, whatever the
 * adapter threw then. Rejects with the adapter's `ModelError` on any other failure, and
 * with a `ModelError` of kind `stream` when the stream ends without a final message.
 */
export async function readReply(
  model: ModelAdapter,
  request: ModelRequest,
  signal: AbortSignal,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<ReplyOutcome> {
  const reply = new ReplyAccumulator()
  try {
    for await (const event of model.stream(request, signal)) {
      onEvent?.(event)
      reply.push(event)
      if (event.type === 'message') break
    }
  } catch (error) {
    if (signal.aborted && reply.message === undefined) return { status: 'aborted', content: reply.partial() }
    throw error
  }
  const message = reply.message
  if (message !== undefined) {
    const { content, usage, stop } = message
    return stop === undefined
      ? { status: 'complete', content, usage }
      : { status: 'complete', content, usage, stop }
  }
  if (signal.aborted) return { status: 'aborted', content: reply.partial() }
  throw new ModelError(
    model.name,
    'stream',
    'the stream ended without a final message event; the adapter broke the ModelAdapter contract.',
  )
}
