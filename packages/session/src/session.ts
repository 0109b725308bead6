import { type JsonValue, type ModelMessage, snapshotJson, stringifyJson, ToolError } from '@tooltx/core'
import { definitionError, errorMessage, invariantError } from '@tooltx/core/internal'
import { deriveMessages, MessageLog } from './log/derivation.js'
import type { NewSessionEvent, Seq, SessionEvent, SessionEventMap, SessionEventType } from './log/events.js'
import type { History } from './log/history.js'
import { LogState } from './log/log-state.js'
import { repairPlan } from './log/repair.js'
import { UndoLog } from './log/undo-log.js'
import { assertSessionId, type SessionStore } from './stores/store.js'

/** Called synchronously with each event right after it became durable (L1.5). */
export type SessionListener = (event: SessionEvent) => void

/** Options of `openSession`. */
export interface OpenSessionOptions {
  /** The session to open or create: letters, digits, `.`, `_`, `-`, at most 128 characters. */
  id: string
  /** Compare incremental messages with `deriveMessages(events())` after every append (L2.3). */
  verify?: boolean
  /** Where errors thrown by listeners go (default `console.error`). */
  reportError?: (error: unknown) => void
  /**
   * `false` opens the log as stored, without the crash repair (L9), so that an agent loop can
   * recover its interrupted calls by effect class first (F1.4); default `true`.
   */
  repair?: boolean
  /**
   * How many events may follow the latest checkpoint before the next one is saved, on stores
   * that keep checkpoints (file and SQLite, L11.8): a positive integer, default
   * `DEFAULT_CHECKPOINT_EVERY`, or `Infinity` for none.
   */
  checkpointEvery?: number
}

/** Events between two checkpoints of a session by default (L11.8): an open reads at most this many. */
export const DEFAULT_CHECKPOINT_EVERY = 4096

/** The event `append` resolves with for an event type. */
export type EventOf<K extends SessionEventType> = Extract<SessionEvent, { type: K }>

/** An open session log: durable append, listeners and incrementally derived messages. */
export interface Session {
  readonly id: string
  /**
   * The epoch of the lease this handle took (F1.9): a whole number >= 1 that grows with every
   * `openSession` of the session, in any process, so a later owner's is always larger. The agent
   * loop hands it to tools as `exec.fencingToken`, for external systems to refuse a stale writer.
   */
  readonly epoch: number
  /**
   * Snapshots and deep-freezes `data` at once, then appends `{ seq, type, data }` after every
   * earlier append (L1.4) and resolves with the frozen event once it is durable. Rejects with
   * `INVARIANT` and leaves the log unchanged for data that is not lossless JSON (L1.3), an event
   * that breaks an append-time invariant (V1.4–V1.6), a closed session, or a store conflict.
   */
  append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): Promise<EventOf<K>>
  /** Appends events that must land together: one durable write, all or nothing, checked as a sequence. */
  appendBatch(events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]>
  /** Adds a listener (L1.5); returns the function that removes it. */
  on(listener: SessionListener): () => void
  /**
   * The frozen list of durable events in `seq` order. After an open from a checkpoint (L11.8),
   * the first call reads and verifies the events before it from the store, synchronously, and
   * rejects damage to them with `INVARIANT`; so do `messages()` and `history()`.
   */
  events(): readonly SessionEvent[]
  /** The frozen list of derived model messages in `seq` order (L2.2); copies the list when it grew. */
  messages(): readonly ModelMessage[]
  /**
   * The derived model messages as a persistent snapshot (Q1.1): O(1) at any session size, never
   * changes once returned, the same object until the next append, and item for item equal to
   * `messages()`. What the agent loop hands the model each step.
   */
  history(): History<ModelMessage>
  /**
   * Waits for pending appends, then refuses new ones, drops listeners and releases what the
   * store holds for this session (`store.release`, L11.5), so the session can be reopened
   * through another store object. The store itself stays open.
   */
  close(): Promise<void>
}

const repairers = new WeakMap<Session, () => Promise<readonly SessionEvent[]>>()
const ignore = (): void => {}

/** What an open starts from: the whole log, or a checkpoint's state and the events after it. */
interface Opened {
  /** The seq of the checkpoint (0: `tail` is the whole log). */
  readonly base: number
  readonly state: LogState
  readonly tail: readonly SessionEvent[]
  /** Reads events 1…`base`, when `base` > 0. */
  readonly before?: () => readonly SessionEvent[]
}

class SessionLog implements Session {
  readonly id: string
  readonly epoch: number
  readonly #store: SessionStore
  readonly #verify: boolean
  readonly #reportError: (error: unknown) => void
  readonly #every: number
  /** Events 1…#base are in the store only, until `#load` reads them (an open from a checkpoint). */
  #base: number
  #before: (() => readonly SessionEvent[]) | undefined
  /** The events after #base. */
  #events: SessionEvent[] = []
  #frozenEvents: readonly SessionEvent[] = Object.freeze([])
  /** Derived once every event is loaded (`undefined` while #base > 0). */
  #messages: MessageLog | undefined
  readonly #state: LogState
  /** The seq of the latest checkpoint saved or opened from. */
  #checkpointed: number
  readonly #listeners = new Set<SessionListener>()
  #tail: Promise<unknown> = Promise.resolve()
  #closed = false

  constructor(
    store: SessionStore,
    id: string,
    epoch: number,
    opened: Opened,
    options: OpenSessionOptions,
    every: number,
  ) {
    this.id = id
    this.epoch = epoch
    this.#store = store
    this.#verify = options.verify === true
    this.#reportError = options.reportError ?? console.error
    this.#every = every
    this.#base = opened.base
    this.#before = opened.before
    this.#checkpointed = opened.base
    this.#state = opened.state
    this.#messages = opened.base === 0 ? new MessageLog() : undefined
    // A stored log is checked like a live one, so a damaged or hand-edited log is refused
    // with the seq that breaks it instead of being derived into an invalid conversation.
    for (const event of opened.tail) {
      const seq = this.#base + this.#events.length + 1
      const problem = event.seq === seq ? this.#state.check(event) : 'seq has a gap'
      if (problem !== undefined) {
        throw invariantError(`session "${id}" is damaged at seq ${event.seq}: ${problem}`)
      }
      this.#state.apply(event)
      this.#events.push(event)
      this.#messages?.add(event)
    }
    repairers.set(this, () => this.#enqueue((state) => repairPlan(state)))
  }

  /**
   * Saves a checkpoint of the log state when `#every` events followed the latest one (L11.8).
   * A failed save changes nothing but the length of the next open, so it is not reported.
   */
  async checkpoint(): Promise<void> {
    const seq = this.#base + this.#events.length
    if (this.#store.saveCheckpoint === undefined || seq - this.#checkpointed < this.#every) return
    this.#checkpointed = seq
    try {
      await this.#store.saveCheckpoint(this.id, seq, stringifyJson(this.#state.toJSON()))
    } catch {}
  }

  /** Reads the events before the checkpoint the session was opened from, once, and derives the messages. */
  #load(): MessageLog {
    if (this.#messages !== undefined) return this.#messages
    let before: readonly SessionEvent[]
    try {
      before = this.#before!()
    } catch (error) {
      if (error instanceof ToolError) throw error
      throw invariantError(
        `session "${this.id}": the events before seq ${this.#base + 1} could not be read from the store (${errorMessage(error)}); read them before closing the store`,
      )
    }
    const events = [...before, ...this.#events]
    const messages = new MessageLog()
    for (const event of events) messages.add(event)
    this.#events = events
    this.#base = 0
    this.#before = undefined
    this.#messages = messages
    return messages
  }

  append<K extends SessionEventType>(type: K, data: SessionEventMap[K]): Promise<EventOf<K>> {
    let event: NewSessionEvent
    try {
      event = prepare(type, data)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#enqueue(() => [event]).then((events) => events[0] as EventOf<K>)
  }

  appendBatch(events: readonly NewSessionEvent[]): Promise<readonly SessionEvent[]> {
    const prepared: NewSessionEvent[] = []
    try {
      if (!Array.isArray(events)) throw invariantError('appendBatch takes an array of { type, data }')
      for (const item of events as unknown[]) {
        const { type, data } = (item ?? {}) as { type: SessionEventType; data: unknown }
        prepared.push(prepare(type, data))
      }
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#enqueue(() => prepared)
  }

  on(listener: SessionListener): () => void {
    // A wrapper per registration, so registering the same function twice needs two unsubscribes.
    const entry: SessionListener = (event) => listener(event)
    this.#listeners.add(entry)
    return () => {
      this.#listeners.delete(entry)
    }
  }

  events(): readonly SessionEvent[] {
    this.#load()
    if (this.#frozenEvents.length !== this.#events.length)
      this.#frozenEvents = Object.freeze(this.#events.slice())
    return this.#frozenEvents
  }

  messages(): readonly ModelMessage[] {
    return this.#load().messages()
  }

  history(): History<ModelMessage> {
    return this.#load().history()
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#tail
    this.#listeners.clear()
    await this.#store.release?.(this.id)
  }

  /**
   * Runs `build` after every earlier append, checks what it returns against the log's state,
   * makes it durable in one store write, then records and announces it.
   */
  #enqueue(build: (state: LogState) => NewSessionEvent[]): Promise<SessionEvent[]> {
    if (this.#closed) return Promise.reject(invariantError(`session "${this.id}" is closed`))
    const run = async (): Promise<SessionEvent[]> => {
      const pending = build(this.#state)
      if (pending.length === 0) return []
      // A batch is checked as a sequence: each event is applied once checked, and everything
      // applied is rolled back when a later event is refused or the write fails, so a
      // rejected batch leaves no trace.
      const state = this.#state
      const undo = new UndoLog()
      const events: SessionEvent[] = []
      let seq = this.#base + this.#events.length
      try {
        for (const item of pending) {
          const problem = state.check(item)
          if (problem !== undefined) throw invariantError(problem)
          state.apply(item, undo)
          events.push(Object.freeze({ seq: ++seq as Seq, type: item.type, data: item.data }) as SessionEvent)
        }
        await this.#store.append(this.id, events)
      } catch (error) {
        undo.rollback()
        throw error
      }
      for (const event of events) {
        this.#events.push(event)
        this.#messages?.add(event)
      }
      if (this.#verify) this.#checkDerivation()
      for (const event of events) this.#notify(event)
      await this.checkpoint()
      return events
    }
    const result = this.#tail.then(run)
    this.#tail = result.then(ignore, ignore)
    return result
  }

  #checkDerivation(): void {
    const live = stringifyJson(this.#load().messages() as unknown as JsonValue)
    const replayed = stringifyJson(deriveMessages(this.#events) as unknown as JsonValue)
    if (live !== replayed) {
      throw invariantError(
        `incrementally derived messages differ from deriveMessages(events) after seq ${this.#events.length}`,
      )
    }
  }

  #notify(event: SessionEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch (error) {
        try {
          this.#reportError(error)
        } catch {}
      }
    }
  }
}

/** Snapshots and deep-freezes one event's data (L1.3), sharing the frozen snapshots in it (Q3.3); the type is checked later, in order. */
function prepare(type: unknown, data: unknown): NewSessionEvent {
  let problem: string
  try {
    const snapshot = snapshotJson(data, { freeze: true, root: 'data', share: true })
    if (snapshot.ok) return { type, data: snapshot.value } as unknown as NewSessionEvent
    problem = snapshot.reason
  } catch (error) {
    problem = `reading it threw: ${error instanceof Error ? error.message : String(error)}`
  }
  throw invariantError(`session event "${String(type)}" carries non-JSON-serializable data (${problem})`)
}

/**
 * Opens session `id` in `store`, creating it empty if absent (L1.1). It first takes the
 * session's writer lease for the new handle (`store.acquire`, L14.1, L14.6): when another live
 * writer — another handle of the same store object too — holds it, this rejects naming the
 * holder, and nothing is loaded or repaired; when the open fails later, the lease is given back. The
 * stored log is checked event by event (a damaged log rejects with `INVARIANT`), and a log left
 * mid-turn by a crash is repaired before this resolves (L9.1–L9.5).
 */
export async function openSession(store: SessionStore, options: OpenSessionOptions): Promise<Session> {
  if (typeof options !== 'object' || options === null) throw definitionError('openSession needs { id }')
  const { id, repair = true } = options
  assertSessionId(id)
  if (typeof repair !== 'boolean') throw definitionError('openSession repair must be a boolean when present')
  const every = checkpointEveryOf(options.checkpointEvery)
  const epoch = await store.acquire(id)
  if (!Number.isSafeInteger(epoch) || epoch < 1) {
    await store.release?.(id)
    throw definitionError(
      `store.acquire("${id}") resolved with ${String(epoch)}; a SessionStore's acquire must resolve with the lease's epoch, a whole number >= 1`,
    )
  }
  try {
    const session = await sessionOf(store, id, epoch, options, every)
    // A log opened whole (no checkpoint, or one that failed its checks) gets a fresh checkpoint.
    await session.checkpoint()
    if (repair) await repairSession(session)
    return session
  } catch (error) {
    // A session that could not be opened holds neither the lease nor a handle (L14.6).
    await store.release?.(id).catch(() => {})
    throw error
  }
}

/** `checkpointEvery` checked: a positive integer or `Infinity`. */
function checkpointEveryOf(value: unknown): number {
  if (value === undefined) return DEFAULT_CHECKPOINT_EVERY
  if (value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && (value as number) >= 1)) {
    return value as number
  }
  throw definitionError(
    `openSession checkpointEvery must be a positive integer or Infinity, got ${String(value)}`,
  )
}

/**
 * The session from the stored log's checkpoint on when the store keeps checkpoints and the
 * latest one passes the store's checks, restores a valid log state and accepts the events after
 * it; from the whole log otherwise (L11.8). So a checkpoint never makes a log that opens whole
 * fail to open: only the whole log's own errors reach the caller.
 */
async function sessionOf(
  store: SessionStore,
  id: string,
  epoch: number,
  options: OpenSessionOptions,
  every: number,
): Promise<SessionLog> {
  const checkpointed =
    every === Number.POSITIVE_INFINITY ? undefined : await store.loadCheckpoint?.(id).catch(() => undefined)
  const state = checkpointed === undefined ? undefined : LogState.restore(checkpointed.state)
  if (checkpointed !== undefined && state !== undefined) {
    const { seq: base, tail, before } = checkpointed
    try {
      return new SessionLog(store, id, epoch, { base, state, tail, before }, options, every)
    } catch {}
  }
  const whole = { base: 0, state: new LogState(), tail: await store.load(id) }
  return new SessionLog(store, id, epoch, whole, options, every)
}

/**
 * Appends the repair plan (`repairPlan`) of the session's current state as one batch and
 * resolves with the appended events; appends nothing for a valid log (L9.5). `openSession`
 * calls it; the agent loop calls it after a scheduler failure, before its next turn (L5.6).
 */
export function repairSession(session: Session): Promise<readonly SessionEvent[]> {
  const repair = repairers.get(session)
  if (repair === undefined)
    return Promise.reject(definitionError('repairSession needs a session from openSession'))
  return repair()
}
