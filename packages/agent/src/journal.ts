import type { NewSessionEvent, Session, SessionEvent } from '@tooltx/session'

/**
 * The loop's pending writes. Every event of a turn's bookkeeping and of its tool calls is
 * staged here and becomes durable at a flush, one `appendBatch` per flush (L10.2):
 *
 * - at a step's opening, before the model is asked: `turn/start` (first step), the previous
 *   step's `step/end`, `step/start` and the drained FIFO (`user/message`s) (L3.3, L3.8);
 * - at each write of the scheduler (`schedule`): the first one carries the step's
 *   `assistant/message` ahead of the batch's own events (L4.4); each write holds the results
 *   ready in model order, then the `tool/call`s of the calls about to start (L4.5, L4.6);
 * - at the turn's end: what the last step left (its `assistant/message` when the reply had no
 *   calls or none started, its `step/end`) and `turn/end` (L3.6).
 *
 * Approval and Code Mode dispatch events do not wait here: they are appended as they happen,
 * while their call runs (L8.1, X5.3).
 */
export class Journal {
  readonly #session: Session
  #pending: NewSessionEvent[] = []

  constructor(session: Session) {
    this.#session = session
  }

  /** Queues events behind the ones already staged; none is durable before the next flush. */
  stage(...events: readonly NewSessionEvent[]): void {
    this.#pending.push(...events)
  }

  /** Whether events wait for a flush. */
  get pending(): boolean {
    return this.#pending.length > 0
  }

  /**
   * Appends every staged event in one write and resolves with them as logged once they are
   * durable (at once, with none, when nothing is staged). The staged events leave the journal right away, so a failed write drops
   * them: the caller records what the log then misses (L3.8, L5.5).
   */
  flush(): Promise<readonly SessionEvent[]> {
    const events = this.#pending
    if (events.length === 0) return Promise.resolve([])
    this.#pending = []
    return this.#session.appendBatch(events)
  }
}
