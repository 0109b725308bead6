import { setTimeout as sleep } from 'node:timers/promises'
import {
  connectionFailure,
  httpFailure,
  ModelAbortError,
  type ModelError,
  rootCauseMessage,
} from './model-error.js'
import type { WireEndpoint } from './wire-endpoint.js'
import { retriedAnswer, retryDelayMs } from './wire-retry.js'

/** The reason an attempt's own signal aborts with when its timeout passes. */
const TIMED_OUT: unique symbol = Symbol('timed out')

/**
 * Posts `body` to the endpoint and resolves the first 2xx answer, its body unread (L12.7):
 * a connection failure, a timeout before the answer's headers (`timeoutMs`) and an answer
 * `retriedAnswer` picks are tried again while `maxRetries` allows, after `retryDelayMs`; before
 * each wait for an HTTP answer `onRetry` is told. What fails for good rejects with the
 * `ModelError` that names it (`connectionFailure`, `httpFailure` with the server's message);
 * `signal` aborting rejects with `ModelAbortError` at once, waits included. The body of the
 * resolved answer stays tied to `signal`: aborting it cancels the request.
 */
export async function postWithRetries(
  endpoint: WireEndpoint,
  body: string,
  signal: AbortSignal,
): Promise<Response> {
  const { maxRetries, onRetry } = endpoint
  for (let done = 0; ; done++) {
    const last = done >= maxRetries
    const answer = await attempt(endpoint, body, signal)
    if (!(answer instanceof Response)) {
      if (last) throw answer
      await sleep(retryDelayMs(done), undefined, { signal })
    } else if (answer.ok) {
      return answer
    } else if (last || !retriedAnswer(answer)) {
      throw httpFailure({
        adapter: endpoint.adapter,
        endpoint: endpoint.baseURL,
        status: answer.status,
        detail: answerDetail(await answer.text()),
      })
    } else {
      const delayMs = retryDelayMs(done, answer.headers)
      await answer.body?.cancel()
      onRetry?.({ status: answer.status, delayMs, attempt: done + 2, attempts: maxRetries + 1 })
      await sleep(delayMs, undefined, { signal })
    }
  }
}

/**
 * One POST: the answer once its headers arrive, or the connection failure (a timeout included)
 * as a `ModelError`. Rejects with `ModelAbortError` when `signal` aborted.
 */
async function attempt(
  endpoint: WireEndpoint,
  body: string,
  signal: AbortSignal,
): Promise<Response | ModelError> {
  const { adapter, baseURL, url, headers, timeoutMs } = endpoint
  if (signal.aborted) throw new ModelAbortError(adapter, signal.reason)
  const own = new AbortController()
  const forward = (): void => own.abort(signal.reason)
  signal.addEventListener('abort', forward, { once: true })
  const timer = setTimeout(() => own.abort(TIMED_OUT), timeoutMs)
  try {
    return await fetch(url, { method: 'POST', headers, body, signal: own.signal })
  } catch (error) {
    signal.removeEventListener('abort', forward)
    if (signal.aborted) throw new ModelAbortError(adapter, signal.reason)
    const detail =
      own.signal.reason === TIMED_OUT
        ? 'the request timed out; raise timeoutMs if the model is slow'
        : rootCauseMessage(error)
    return connectionFailure({ adapter, endpoint: baseURL, detail, cause: error })
  } finally {
    clearTimeout(timer)
  }
}

/**
 * What an error answer's body says: the `message` of its JSON `error` object (both providers'
 * shape), a JSON `error` string, or a top-level `message`; else its text, trimmed and cut at 500
 * characters (an HTML page from a proxy); '' for an empty body.
 */
export function answerDetail(text: string): string {
  const said = jsonMessage(text)
  if (said !== undefined) return said
  const trimmed = text.trim()
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed
}

function jsonMessage(text: string): string | undefined {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null) return undefined
  const { error } = body as { error?: unknown }
  if (typeof error === 'string' && error !== '') return error
  return bodyMessage(error) ?? bodyMessage(body)
}

/** The `message` of a provider's JSON error object, if it has a non-empty one. */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const message = (body as { message?: unknown }).message
  return typeof message === 'string' && message !== '' ? message : undefined
}
