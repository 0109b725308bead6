import type { AssistantBlock, ContentBlock, ModelMessage } from '@tooltx/core'
import type { SessionEvent } from './events.js'
import { AppendOnlyList, type History } from './history.js'

/**
 * The model message one event derives (L2.1): `user/message` its `message`,
 * `assistant/message` `{ role: 'assistant', content }`, `tool/result`
 * `{ role: 'tool', callId, content, isError }` (never `error` or `meta`, O2.4), anything else
 * `undefined`. The returned message is frozen and shares the event's frozen parts.
 */
export function deriveMessage(event: SessionEvent): ModelMessage | undefined {
  switch (event.type) {
    case 'user/message':
      return event.data.message
    case 'assistant/message':
      return Object.freeze({ role: 'assistant', content: event.data.content as AssistantBlock[] })
    case 'tool/result': {
      const { callId, content, isError } = event.data
      return Object.freeze({ role: 'tool', callId, content: content as ContentBlock[], isError })
    }
    default:
      return undefined
  }
}

/** Derives the model messages of `events` from scratch, in `seq` order (L2.2); the oracle of L2.3. */
export function deriveMessages(events: readonly SessionEvent[]): readonly ModelMessage[] {
  const messages: ModelMessage[] = []
  for (const event of events) {
    const message = deriveMessage(event)
    if (message !== undefined) messages.push(message)
  }
  return Object.freeze(messages)
}

/**
 * Incrementally maintained messages (L2.3): `add` costs O(1) per event and never copies the
 * history; `history()` is an O(1) persistent snapshot (Q1.1); `messages()` hands out a frozen
 * array, copied only when events were added since the previous call.
 */
export class MessageLog {
  readonly #messages = new AppendOnlyList<ModelMessage>()
  #frozen: readonly ModelMessage[] = Object.freeze([])

  /** Derives and records the message of one durable event. */
  add(event: SessionEvent): void {
    const message = deriveMessage(event)
    if (message !== undefined) this.#messages.push(message)
  }

  /** The persistent snapshot of the derived messages so far: O(1), shares every earlier snapshot's items. */
  history(): History<ModelMessage> {
    return this.#messages.snapshot()
  }

  /** The frozen array of derived messages so far (a copy of `history()` when it grew). */
  messages(): readonly ModelMessage[] {
    if (this.#frozen.length !== this.#messages.length) this.#frozen = this.#messages.snapshot().slice()
    return this.#frozen
  }
}
