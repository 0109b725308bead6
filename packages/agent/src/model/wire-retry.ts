/** One automatic retry of a model request, as `onRetry` is told of it before the wait (L12.7). */
export interface ModelRetry {
  /** The HTTP status of the answer that is retried (408, 409, 429 or 5xx). */
  status: number
  /** Milliseconds until the next attempt: the server's `retry-after-ms` or `retry-after`, else 1 s, 2 s, 4 s, 8 s at most. */
  delayMs: number
  /** The number of the next attempt, counting the first request as 1. */
  attempt: number
  /** How many attempts the request may make in all (`maxRetries` + 1). */
  attempts: number
}

/** Automatic retries of a request when the adapter's options give no `maxRetries`. */
export const DEFAULT_MAX_RETRIES = 2

/**
 * Whether an HTTP answer is retried (L12.7): the server's `x-should-retry: true|false` when it
 * says, else 408, 409, 429 and every 5xx.
 */
export function retriedAnswer(response: Response): boolean {
  const said = response.headers.get('x-should-retry')
  if (said === 'true') return true
  if (said === 'false') return false
  const { status } = response
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/**
 * Milliseconds to wait before retry number `done + 1` (L12.7): the wait the server asked for
 * (`retry-after-ms`, else `retry-after` in seconds or as a date) when it asked for one under a
 * minute, else 1 s doubling with each retry, 8 s at most.
 */
export function retryDelayMs(done: number, headers?: Headers): number {
  const asked = headers === undefined ? undefined : serverDelay(headers)
  if (asked !== undefined && asked < 60_000) return asked
  return Math.min(1000 * 2 ** done, 8000)
}

/** The wait the server asked for, in milliseconds, if it asked for one. */
function serverDelay(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return ms
  const after = headers.get('retry-after')
  if (after === null) return undefined
  const seconds = Number.parseFloat(after)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(after)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}
