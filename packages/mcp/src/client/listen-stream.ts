/**
 * The optional GET stream of Streamable HTTP, on which a server may send requests and
 * notifications of its own (Y2.21, Y2.22): which answers mean the server offers none, and how
 * often the SDK may open it again.
 */
import { type ReconnectionScheduler, SdkError, SdkErrorCode } from '@modelcontextprotocol/client'
import { type Backoff, backoffDelay } from './backoff.js'

/**
 * A stream that stayed open this long ended as streams do (a proxy's idle timeout, a server
 * rotating its streams): the reopenings are counted afresh after it (Y2.22).
 */
export const LISTEN_SETTLED_MS = 10_000

/**
 * Whether `error` is the SDK's report of a GET stream the server declined with 404 or 405
 * (Y2.21): the server offers no stream of its own, which says nothing about the session. The
 * spec asks for 405; servers that route only POST answer 404. The SDK itself takes a 405
 * quietly and reports a 404 without acting on it.
 */
export function noListenStream(error: unknown): boolean {
  if (!SdkError.isInstance(error) || error.code !== SdkErrorCode.ClientHttpFailedToOpenStream) return false
  const status = (error as { status?: unknown }).status
  return status === 404 || status === 405
}

/**
 * The SDK's scheduler of GET stream reopenings for one transport, bounded by `backoff` (Y2.22):
 * at most `attempts` reopenings in a row, the k-th after the longer of the SDK's wait (or the
 * server's `retry`) and `min(maxDelayMs, initialDelayMs × factor^(k−1))` ms. A stream that
 * stayed open {@link LISTEN_SETTLED_MS} starts the count again; past the bound the stream
 * stays closed, and the calls go on over POST.
 */
export function listenScheduler(backoff: Backoff): ReconnectionScheduler {
  let streak = 0
  let openedAt = Date.now()
  return (reconnect, delay) => {
    if (Date.now() - openedAt >= LISTEN_SETTLED_MS) streak = 0
    if (streak >= backoff.attempts) return
    streak++
    const timer = setTimeout(
      () => {
        openedAt = Date.now()
        reconnect()
      },
      Math.max(delay, backoffDelay(backoff, streak + 1)),
    )
    return () => clearTimeout(timer)
  }
}
