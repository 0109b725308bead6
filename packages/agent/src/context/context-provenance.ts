/**
 * The provenance of the model's context (H2, H3): which untrusted or confidential results the
 * context the model answered holds, and an index of their atoms, followed event by event so a
 * call's provenance costs the size of its arguments and never the length of the session.
 */

import type { ContentBlock, ContextProvenance, JsonValue, ProvenanceSource } from '@tooltx/core'
import { AtomIndex, isMarked } from '@tooltx/core/internal'
import type { Session, SessionEvent } from '@tooltx/session'

/** The text of the blocks the model reads: every block's `text`, if it has one. */
function textsOf(content: readonly ContentBlock[]): string[] {
  const texts: string[] = []
  for (const block of content) {
    const text = (block as { text?: unknown }).text
    if (typeof text === 'string') texts.push(text)
  }
  return texts
}

/**
 * Follows a session's events and answers `exec.provenance` for each call (H2.2). Events enter
 * the tracked context when the next `assistant/message` is appended — they were in the request
 * that reply answered — so results of a call's own batch never count for it. The loop makes one
 * with `following`; the policy audit feeds a log to `follow` event by event (H5.6).
 */
export class ContextProvenanceTracker {
  /** The labelled results in the context, by the seq of their `tool/result`, in order of entry. */
  readonly #sources = new Map<number, ProvenanceSource>()
  readonly #index = new AtomIndex()
  /** Events appended since the latest `assistant/message`: not yet in the context the model saw. */
  #queued: SessionEvent[] = []
  /** The texts of user messages seen before any labelled result: vouched for once one arrives. */
  #unvouched: string[][] = []
  #state: Omit<ContextProvenance, 'arguments'> | undefined

  /** A tracker whose context holds what `events` (a whole log, already appended) put in it (H2.4). */
  constructor(events: Iterable<SessionEvent> = []) {
    for (const event of events) this.#apply(event)
  }

  /** A tracker rebuilt from `events` (H2.4) that then follows every append to `session`. */
  static following(session: Session, events: Iterable<SessionEvent>): ContextProvenanceTracker {
    const tracker = new ContextProvenanceTracker(events)
    session.on((event) => tracker.follow(event))
    return tracker
  }

  /**
   * The provenance of a call with these arguments (H2.2, H3.1), or `undefined` when the context
   * holds no labelled result (then nothing is computed). Frozen.
   */
  of(args: unknown): ContextProvenance | undefined {
    if (this.#sources.size === 0) return undefined
    const state = this.#current()
    // The loop's arguments are a parsed JSON tree (or a malformed value the walk skips).
    return Object.freeze({ ...state, arguments: Object.freeze(this.#index.origins(args as JsonValue)) })
  }

  /** Takes one event as it is appended (H2.1): it enters the context with the next reply. */
  follow(event: SessionEvent): void {
    if (event.type === 'assistant/message') {
      const queued = this.#queued
      this.#queued = []
      for (const each of queued) this.#apply(each)
    } else if (
      event.type === 'tool/result' ||
      event.type === 'user/message' ||
      event.type === 'context/compacted'
    ) {
      this.#queued.push(event)
    }
  }

  #apply(event: SessionEvent): void {
    switch (event.type) {
      case 'tool/result': {
        const { provenance, callId, name, content } = event.data
        if (provenance === undefined || !isMarked(provenance)) return
        const source: ProvenanceSource = Object.freeze({ callId, tool: name, label: provenance })
        this.#sources.set(event.seq, source)
        this.#index.add(source, textsOf(content))
        this.#state = undefined
        if (this.#unvouched.length > 0) {
          for (const texts of this.#unvouched) this.#index.vouch(texts)
          this.#unvouched = []
        }
        return
      }
      case 'user/message': {
        // Only the user's own words vouch for a value; a deferred context may quote anything.
        if (event.data.message.source !== undefined) return
        const texts = textsOf(event.data.message.content)
        if (this.#sources.size === 0) this.#unvouched.push(texts)
        else this.#index.vouch(texts)
        return
      }
      case 'context/compacted': {
        // Cleared results leave the context; summarised ones stay, since the summary was written from them.
        if (event.data.strategy !== 'clear-tool-results') return
        for (const { seq } of event.data.cleared) {
          const source = this.#sources.get(seq)
          if (source === undefined) continue
          this.#sources.delete(seq)
          this.#index.remove(source)
          this.#state = undefined
        }
        return
      }
    }
  }

  /** The context's label and sources, rebuilt only after they changed (H2.3). */
  #current(): Omit<ContextProvenance, 'arguments'> {
    if (this.#state !== undefined) return this.#state
    let untrusted = false
    let confidential = false
    for (const { label } of this.#sources.values()) {
      untrusted ||= label.integrity === 'untrusted'
      confidential ||= label.confidential === true
    }
    this.#state = { untrusted, confidential, sources: Object.freeze([...this.#sources.values()]) }
    return this.#state
  }
}
