import type { ToolError } from '@tooltx/core'
import { definitionError, invariantError } from '@tooltx/core/internal'
import type { SessionEvent } from '../log/events.js'

/** One row of `listSessions()`: timestamps are ISO 8601 strings. */
export interface SessionInfo {
  readonly id: string
  readonly created: string
  readonly updated: string
  /** The number of durable events (the latest `seq`). */
  readonly events: number
}

/**
 * Where session logs live. Every store passes the same conformance suite (L1.1): a log is a
 * gap-free sequence of events per session id, `append` is all-or-nothing and durable before it
 * resolves, and a writer whose view is stale is refused rather than interleaved.
 */
export interface SessionStore {
  /**
   * Takes session `id`'s writer lease for one handle of this store object (L14): resolves with
   * the lease's epoch (F1.9) once it holds it — taking over a lease whose holder is gone (its
   * process or connection dead, or its heartbeat run out) — and rejects with the
   * `leaseHeldError` naming the holder and when its lease runs out while another live writer
   * holds it, or with `handleOpenError` while another handle of this store object has the
   * session open (L14.6). It changes no event. The epoch is a whole number >= 1 that grows with
   * every acquisition of the session, in any store object or process, so it serves as a fencing
   * token. `openSession` calls it before it loads and repairs. The lease is held until
   * `release(id)` or `close()`; while held a heartbeat renews it.
   */
  acquire(id: string): Promise<number>
  /**
   * The durable events of session `id` in `seq` order, deep-frozen; creates the session empty
   * when it does not exist. Storage damage a crash can leave (a torn last line) is repaired
   * here; anything else that is malformed rejects.
   */
  load(id: string): Promise<readonly SessionEvent[]>
  /**
   * Appends `events`, whose seqs continue the stored log, in one durable write: all land or
   * none does. Rejects with `conflictError` when the log already holds the first seq (another
   * writer got there first) or another live writer holds the lease, and with `leaseLostError`
   * when this store object's lease was taken over (fencing); nothing already stored changes.
   */
  append(id: string, events: readonly SessionEvent[]): Promise<void>
  /**
   * Optional (file and SQLite stores, L11.8): like `load`, but from the session's checkpoint on.
   * Resolves with the checkpoint's seq and log state and the verified events after it, or with
   * `undefined` when there is no checkpoint or it fails any check (its own checksum, the session
   * it names, the stored events it was taken after): such a checkpoint is ignored, and the
   * caller loads the whole log instead. Damage to the events read rejects as in `load`.
   */
  loadCheckpoint?(id: string): Promise<CheckpointedLog | undefined>
  /**
   * Optional, with `loadCheckpoint`: records `state` (the text of `LogState.toJSON`) as the
   * checkpoint of session `id` after seq `seq`, the latest event this store object appended or
   * loaded; writes nothing when this store object does not hold the session's lease. A failed
   * or lost checkpoint costs only a longer open.
   */
  saveCheckpoint?(id: string, seq: number, state: string): Promise<void>
  /** Every stored session, oldest first. */
  listSessions(): Promise<readonly SessionInfo[]>
  /**
   * Releases what the store holds for session `id` alone (its lease, the file store's file), so
   * another store object — in this process or another — can open it for writing (L11.5).
   * `session.close()` calls it. Optional: a store that holds nothing per session omits it. A
   * later `load` or `append` of `id` takes what it needs again.
   */
  release?(id: string): Promise<void>
  /** Releases what the store holds (files, locks, the database handle). */
  close(): Promise<void>
}

/** What `loadCheckpoint` found: a usable checkpoint and the log after it. */
export interface CheckpointedLog {
  /** The seq the checkpoint was taken after. */
  readonly seq: number
  /** The parsed log state saved with it, checked by `LogState.restore` before use. */
  readonly state: unknown
  /** The deep-frozen, verified events after `seq`, in seq order. */
  readonly tail: readonly SessionEvent[]
  /**
   * Reads the deep-frozen, verified events 1…`seq` synchronously (L11.1), rejecting damage with
   * `INVARIANT` as `load` does; what `session.events()` calls the first time it needs them.
   */
  readonly before: () => readonly SessionEvent[]
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** True iff `id` is a usable session id (also a safe file name). */
export const isSessionId = (id: unknown): id is string => typeof id === 'string' && SESSION_ID.test(id)

/** Throws `INVALID_DEFINITION` unless `id` is a usable session id (also a safe file name). */
export function assertSessionId(id: unknown): asserts id is string {
  if (!isSessionId(id)) {
    throw definitionError(
      `session id must match ${SESSION_ID} (letters, digits, ".", "_", "-"; at most 128), got ${JSON.stringify(id) ?? String(id)}`,
    )
  }
}

/**
 * The error a stale writer gets: another writer already appended `seq` to session `id`.
 * `holder` names that writer when the store knows it.
 */
export function conflictError(id: string, seq: number, holder?: string): ToolError {
  const who = holder === undefined ? 'another writer' : `another writer (${holder})`
  return invariantError(
    `session "${id}" has ${who} that already appended seq ${seq}; this handle's view is stale and it wrote nothing — close it and reopen the session to continue after the latest event`,
  )
}
