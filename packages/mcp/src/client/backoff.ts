/**
 * The reconnection settings of `mcpTools` (Y2.14) and the wait before each try, shared by the
 * link's reconnections and the GET stream's reopenings (Y2.22).
 */

/** How `mcpTools` reconnects (Y2.14); every field optional. */
export interface ReconnectOptions {
  /** Connection attempts per reconnection, the first at once; default 5. */
  attempts?: number
  /** The wait before the second attempt, in ms; default 250. */
  initialDelayMs?: number
  /** Each later wait is the previous one times `factor`; default 2. */
  factor?: number
  /** No wait is longer than this, in ms; default 5 000. */
  maxDelayMs?: number
}

/** The reconnection settings with every default filled in. */
export type Backoff = Required<ReconnectOptions>

/** The settings `mcpTools` uses when `reconnect` is not given. */
export const DEFAULT_BACKOFF: Backoff = Object.freeze({
  attempts: 5,
  initialDelayMs: 250,
  factor: 2,
  maxDelayMs: 5_000,
})

/** The wait before attempt `attempt` (1-based) of a reconnection: none before the first. */
export function backoffDelay(backoff: Backoff, attempt: number): number {
  if (attempt <= 1) return 0
  return Math.min(backoff.maxDelayMs, backoff.initialDelayMs * backoff.factor ** (attempt - 2))
}
