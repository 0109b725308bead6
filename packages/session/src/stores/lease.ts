/**
 * Session leases (L14): at most one live writer per session. A store object takes a session's
 * lease when `openSession` opens it, renews it by a heartbeat while it holds it, and gives it
 * back on `session.close()`; a lease whose holder stopped renewing it (or whose process or
 * connection is gone) may be taken over.
 */
import type { ToolError } from '@tooltx/core'
import { definitionError, invariantError } from '@tooltx/core/internal'

/** How long a lease lasts without being renewed, unless a store is given `leaseMs`. */
export const DEFAULT_LEASE_MS = 30_000

/** The lease option every durable store takes. */
export interface LeaseOptions {
  /**
   * How long this store's leases last without a heartbeat, in milliseconds (default 30,000;
   * renewed every third of it). A holder that stops renewing — dead, paused, cut off — loses
   * its lease this long after its last renewal.
   */
  leaseMs?: number
}

/** `options.leaseMs`, checked: a whole number of milliseconds, at least 100. */
export function leaseMsOf(options: LeaseOptions | undefined): number {
  const ms = options?.leaseMs ?? DEFAULT_LEASE_MS
  if (!Number.isSafeInteger(ms) || ms < 100) {
    throw definitionError(`leaseMs must be a whole number of milliseconds >= 100, got ${String(ms)}`)
  }
  return ms
}

/**
 * The error `openSession` rejects with when another live writer holds session `id`'s lease:
 * it names the holder and when its lease runs out, and says nothing was repaired.
 */
export function leaseHeldError(id: string, holder: string, expires: number): ToolError {
  return held(
    `session "${id}" is held by another live writer (${holder}) whose lease runs until ${new Date(expires).toISOString()} unless it renews it; it was not opened and nothing in it was repaired — wait until that writer closes the session, or until its lease runs out if it died, then open it again`,
  )
}

/**
 * The error `openSession` rejects with when another handle of the same store object has
 * session `id` open (L14.6): a lease has one owner, a handle, so the second open neither shares
 * it nor repairs the turn the first may be running.
 */
export function handleOpenError(id: string): ToolError {
  return held(
    `session "${id}" is open in another handle of this store object, which holds its lease until that handle is closed; it was not opened again and nothing in it was repaired — use the open handle, or close it (session.close()) and then open the session again`,
  )
}

/**
 * The sessions a store object has open in a handle (L14.6): `openSession` claims one through
 * `store.acquire`, `session.close()` frees it through `store.release`.
 */
export class OpenHandles {
  readonly #open = new Set<string>()

  /** Throws `handleOpenError` when a handle of this store object has `id` open; else records one. */
  claim(id: string): void {
    if (this.#open.has(id)) throw handleOpenError(id)
    this.#open.add(id)
  }

  /** Forgets the handle of `id` (its session was closed or its open failed). */
  free(id: string): void {
    this.#open.delete(id)
  }

  clear(): void {
    this.#open.clear()
  }
}

const heldErrors = new WeakSet<object>()

/** An `INVARIANT` error that `isLeaseHeld` recognizes. */
function held(message: string): ToolError {
  const error = invariantError(message)
  heldErrors.add(error)
  return error
}

/**
 * True for the error `openSession` rejects with because the session is busy — another live
 * writer or another open handle holds its lease (`leaseHeldError`, `handleOpenError`) — so
 * the caller may simply try again later (N2.10); false for any other error.
 */
export function isLeaseHeld(error: unknown): boolean {
  return typeof error === 'object' && error !== null && heldErrors.has(error)
}

/**
 * The error a fenced writer gets: its lease on session `id` was taken over by `holder`, so it
 * may no longer append; it wrote nothing.
 */
export function leaseLostError(id: string, holder: string): ToolError {
  return invariantError(
    `session "${id}" has another writer (${holder}) that took over this writer's lease; this handle may no longer append and wrote nothing — close it and reopen the session once that writer is done`,
  )
}

/**
 * Calls `renew` every third of `leaseMs` while started, on a timer that never keeps the
 * process alive. `renew` must not throw (a failed renewal only lets the lease run out).
 */
export class Heartbeat {
  readonly #every: number
  readonly #renew: () => unknown
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(leaseMs: number, renew: () => unknown) {
    this.#every = Math.max(1, Math.floor(leaseMs / 3))
    this.#renew = renew
  }

  /** Starts beating (once; later calls do nothing while it runs). */
  start(): void {
    if (this.#timer !== undefined) return
    this.#timer = setInterval(this.#renew, this.#every)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }
}
