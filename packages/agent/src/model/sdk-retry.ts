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

/** A `fetch` as the SDKs call it. */
type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/**
 * A `fetch` for an SDK client that reports each retry the SDK is about to make of an HTTP answer
 * (L12.7): for an answer the SDK retries (408, 409, 429, 5xx, unless `x-should-retry: false`)
 * while attempts remain (the SDK's `X-Stainless-Retry-Count` request header against
 * `maxRetries`), it settles the wait — the server's own, else 1 s doubling to 8 s — by handing
 * the SDK the answer with a `retry-after-ms` header, and calls `onRetry` first. Every other
 * answer passes through untouched; `onRetry` must not throw.
 */
export function retryReportingFetch(maxRetries: number, onRetry: (retry: ModelRetry) => void): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    if (!retried(response)) return response
    const done = Number(new Headers(init?.headers).get('x-stainless-retry-count') ?? '0')
    if (!Number.isInteger(done) || done >= maxRetries) return response
    const delayMs = serverDelay(response.headers) ?? Math.min(1000 * 2 ** done, 8000)
    onRetry({ status: response.status, delayMs, attempt: done + 2, attempts: maxRetries + 1 })
    const headers = new Headers(response.headers)
    headers.set('retry-after-ms', String(delayMs))
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  }
}

/** Whether the SDKs retry this answer (their `shouldRetry`). */
function retried(response: Response): boolean {
  const said = response.headers.get('x-should-retry')
  if (said === 'true') return true
  if (said === 'false') return false
  const { status } = response
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** The wait the server asked for, in milliseconds, when it asked for one the SDKs would honour. */
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
