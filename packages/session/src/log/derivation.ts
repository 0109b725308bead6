import type { AssistantBlock, ContentBlock, ModelMessage } from '@tooltx/core'
import type { ContextCompactedData, Seq, SessionEvent } from './events.js'
import { AppendOnlyList, type History } from './history.js'
import { SeqList } from './seq-list.js'

/**
 * The model message one event derives (L2.1): `user/message` its `message`,
 * `assistant/message` `{ role: 'assistant', content }`, `tool/result`
 * `{ role: 'tool', callId, content, isError }` (never `error` or `meta`, O2.4), anything else
 * `undefined` (`context/compacted` edits earlier messages instead, see `compactionEdits`). The
 * returned message is frozen and shares the event's frozen parts.
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

/**
 * How a `context/compacted` event changes the derived messages (T3.5): `replace` puts `message`
 * in place of the one derived from the event at `seq` (absent ones are skipped); `prefix` puts
 * `message` in place of every message derived from an event up to `through`.
 */
export type CompactionEdit =
  | { readonly kind: 'replace'; readonly seq: Seq; readonly message: ModelMessage }
  | { readonly kind: 'prefix'; readonly through: Seq; readonly message: ModelMessage }

/** The edits of one `context/compacted` event, with frozen messages built from its data alone. */
export function compactionEdits(data: ContextCompactedData): CompactionEdit[] {
  if (data.strategy === 'summarise') return [{ kind: 'prefix', through: data.through, message: data.summary }]
  return data.cleared.map(({ seq, callId, isError, content }) => ({
    kind: 'replace',
    seq,
    message: Object.freeze({ role: 'tool', callId, content: content as ContentBlock[], isError }),
  }))
}

/** Applies `edits` to a seq-indexed list, mapping each new message through `map`. */
export function applyEdits<T>(
  list: SeqList<T>,
  edits: readonly CompactionEdit[],
  map: (message: ModelMessage) => T,
): void {
  for (const edit of edits) {
    if (edit.kind === 'replace') list.set(edit.seq, map(edit.message))
    else list.replaceThrough(edit.through, map(edit.message))
  }
}

/**
 * Derives the model messages of `events` from scratch, in `seq` order (L2.2); the oracle of
 * L2.3. Written apart from `MessageLog` (plain arrays and a seq index, a prefix replacement
 * rebuilt whole) so the two check each other.
 */
export function deriveMessages(events: readonly SessionEvent[]): readonly ModelMessage[] {
  let seqs: number[] = []
  let messages: ModelMessage[] = []
  let index = new Map<number, number>()
  for (const event of events) {
    if (event.type !== 'context/compacted') {
      const message = deriveMessage(event)
      if (message === undefined) continue
      index.set(event.seq, messages.length)
      seqs.push(event.seq)
      messages.push(message)
      continue
    }
    for (const edit of compactionEdits(event.data)) {
      if (edit.kind === 'replace') {
        const at = index.get(edit.seq)
        if (at !== undefined) messages[at] = edit.message
        continue
      }
      const kept = seqs.flatMap((seq, i) => (seq > edit.through ? [i] : []))
      messages = [edit.message, ...kept.map((i) => messages[i]!)]
      seqs = [edit.through, ...kept.map((i) => seqs[i]!)]
      index = new Map(seqs.map((seq, i) => [seq, i]))
    }
  }
  return Object.freeze(messages)
}

/**
 * Incrementally maintained messages (L2.3): `add` costs O(1) per event and never copies the
 * history; `history()` is an O(1) persistent snapshot (Q1.1); `messages()` hands out a frozen
 * array, copied only when it changed since the previous call. A compaction (T3.5) edits the
 * seq-indexed list and then rebuilds the persistent one once: it costs what the history holds,
 * once per compaction, never per step.
 */
export class MessageLog {
  readonly #list = new SeqList<ModelMessage>()
  #messages = new AppendOnlyList<ModelMessage>()
  #frozen: readonly ModelMessage[] = Object.freeze([])
  #changed = false

  /** Derives and records the message of one durable event, or applies its compaction (T3.5). */
  add(event: SessionEvent): void {
    if (event.type === 'context/compacted') {
      applyEdits(this.#list, compactionEdits(event.data), (message) => message)
      this.#messages = new AppendOnlyList<ModelMessage>()
      for (const message of this.#list.values()) this.#messages.push(message)
      this.#changed = true
      return
    }
    const message = deriveMessage(event)
    if (message === undefined) return
    this.#list.push(event.seq, message)
    this.#messages.push(message)
    this.#changed = true
  }

  /** The persistent snapshot of the derived messages so far: O(1), shares every earlier snapshot's items. */
  history(): History<ModelMessage> {
    return this.#messages.snapshot()
  }

  /** The frozen array of derived messages so far (a copy of `history()` when it grew). */
  messages(): readonly ModelMessage[] {
    if (this.#changed) {
      this.#frozen = Object.freeze(this.#list.values())
      this.#changed = false
    }
    return this.#frozen
  }
}
