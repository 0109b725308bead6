import type {
  EventOf,
  NewSessionEvent,
  Session,
  SessionEvent,
  SessionEventMap,
  SessionEventType,
} from '@tooltx/session'

/** An event recorded as it happens, waiting for its write. */
interface Recorded {
  readonly event: NewSessionEvent
  readonly resolve: (event: SessionEvent) => void
  readonly reject: (error: unknown) => void
}

/**
 * The agent's one writer: every session event the agent writes goes through a journal, which
 * owns the durable record of a turn and of its calls. It writes in two ways:
 *
 * - **staged**, the turn's bookkeeping and its calls' pairs, durable at a flush, one
 *   `appendBatch` per flush (L10.2): at a step's opening, before the model is asked:
 *   `turn/start` (first step), the previous step's `step/end`, `step/start` and the drained
 *   FIFO (`user/message`s) (L3.3, L3.8); at each write of the scheduler: the first one carries
 *   the step's `assistant/message` ahead of the batch's own events (L4.4), each holds the
 *   results ready in model order, then the `tool/call`s of the calls about to start (L4.5,
 *   L4.6); at the turn's end: what the last step left and `turn/end` (L3.6);
 * - **recorded**, the events that happen while a call runs (approvals L8.1, effects F1.3, Code
 *   Mode dispatch X5.3, compaction T3.5, repairs F1.4, `decideApproval` F2.5): in writes of
 *   their own, never mixed with staged events. What is recorded in one turn of the event loop
 *   shares one write (group commit), which goes out on the next turn of the event loop, or at
 *   once when a flush comes first: a flush writes the recorded events ahead of its own, so an
 *   event recorded before a flush is always logged before what that flush holds.
 */
export class Journal {
  readonly #session: Session
  #staged: NewSessionEvent[] = []
  #recorded: Recorded[] = []

  constructor(session: Session) {
    this.#session = session
  }

  /** Queues events behind the ones already staged; none is durable before the next flush. */
  stage(...events: readonly NewSessionEvent[]): void {
    this.#staged.push(...events)
  }

  /**
   * Appends every staged event in one write and resolves with them as logged once they are
   * durable (at once, with none, when nothing is staged); recorded events still waiting are
   * written first, in a write of their own. The staged events leave the journal right away, so
   * a failed write drops them: the caller records what the log then misses (L3.8, L5.5).
   */
  flush(): Promise<readonly SessionEvent[]> {
    this.#writeRecorded()
    const events = this.#staged
    if (events.length === 0) return Promise.resolve([])
    this.#staged = []
    return this.#session.appendBatch(events)
  }

  /**
   * Records one event as it happens and resolves with it as logged once it is durable; rejects
   * with the write's failure (which fails every event of that write), and with the session's
   * refusal of the event or of another event of its write.
   */
  record<K extends SessionEventType>(type: K, data: SessionEventMap[K]): Promise<EventOf<K>> {
    return new Promise<SessionEvent>((resolve, reject) => {
      if (this.#recorded.length === 0) setImmediate(() => this.#writeRecorded())
      this.#recorded.push({ event: { type, data } as NewSessionEvent, resolve, reject })
    }) as Promise<EventOf<K>>
  }

  /** Writes the recorded events that wait, in one write of their own. */
  #writeRecorded(): void {
    const entries = this.#recorded
    if (entries.length === 0) return
    this.#recorded = []
    this.#session.appendBatch(entries.map((entry) => entry.event)).then(
      (logged) => {
        for (let i = 0; i < entries.length; i++) entries[i]!.resolve(logged[i]!)
      },
      (error: unknown) => {
        for (const entry of entries) entry.reject(error)
      },
    )
  }
}
