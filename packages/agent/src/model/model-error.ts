import type { ReplyStop } from '@tooltx/session'
import type { ModelUsage } from './model.js'
import type { ReplyBlock } from './reasoning.js'

/**
 * What went wrong with a model request:
 * - `http`: the server answered with a non-2xx status (`status` is set);
 * - `connection`: the endpoint could not be reached or the connection broke or timed out;
 * - `stream`: the server reported an error mid-stream, sent a stream that breaks the protocol,
 *   or ended the stream before marking the reply complete (L12.1);
 * - `truncated`: the provider cut a reply that holds tool calls (token limit, filter), so their
 *   arguments may be incomplete (L12.2);
 * - `setup`: the adapter cannot run as configured, such as a `maxRetries` it cannot use (L12.9);
 * - `script`: a scripted model was asked more often than its script allows.
 */
export type ModelErrorKind = 'http' | 'connection' | 'stream' | 'truncated' | 'setup' | 'script'

/**
 * What the provider sent of a reply it cut while it held tool calls (T2.3): every block in
 * order (the calls with their possibly incomplete raw arguments), why it stopped, and usage.
 */
export interface CutReply {
  readonly content: readonly ReplyBlock[]
  readonly stop: ReplyStop
  readonly usage: ModelUsage
}

/**
 * A model request failed for a reason other than abort. The message names the adapter,
 * what happened and what to check; `kind` and `status` are for programs, and a `truncated`
 * error from a built-in adapter carries the cut `reply` (T2.3).
 */
export class ModelError extends Error {
  /** The adapter's `name`. */
  declare readonly adapter: string
  declare readonly kind: ModelErrorKind
  /** The HTTP status for `kind: 'http'`. */
  declare readonly status: number | undefined
  /** For `kind: 'truncated'`: what the provider sent before it cut the reply. */
  declare readonly reply: CutReply | undefined

  constructor(
    adapter: string,
    kind: ModelErrorKind,
    message: string,
    options: { status?: number; cause?: unknown; reply?: CutReply } = {},
  ) {
    super(`${adapter}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause })
    stamp(this, 'ModelError', { adapter, kind, status: options.status })
    if (options.reply !== undefined) Object.defineProperty(this, 'reply', { value: options.reply })
  }
}

/**
 * A model stream stopped because its signal aborted before the final `message` event.
 * Its `name` is `'AbortError'` like the platform's, and `cause` is the signal's reason.
 */
export class ModelAbortError extends Error {
  /** The adapter's `name`. */
  declare readonly adapter: string

  constructor(adapter: string, reason?: unknown) {
    super(`${adapter}: the model request was aborted`, reason === undefined ? undefined : { cause: reason })
    stamp(this, 'AbortError', { adapter })
  }
}

/**
 * Gives an error its `name` (non-enumerable and writable, like the platform's) and read-only
 * enumerable `fields`, so they show when the error is logged or serialised.
 */
function stamp(error: Error, name: string, fields: Record<string, unknown>): void {
  Object.defineProperty(error, 'name', { value: name, enumerable: false, writable: true, configurable: true })
  for (const [key, value] of Object.entries(fields)) {
    Object.defineProperty(error, key, { value, enumerable: true })
  }
}

/** True for a `ModelAbortError` or any other error named `AbortError`; never throws. */
export function isModelAbort(x: unknown): boolean {
  if (x instanceof ModelAbortError) return true
  try {
    return x instanceof Error && x.name === 'AbortError'
  } catch {
    return false
  }
}

/** What a request failure says: the adapter, the endpoint it called, the detail, the cause. */
export interface RequestFailure {
  adapter: string
  /** The URL (or base URL) the request went to. */
  endpoint: string
  /** What went wrong, in the server's or the network's words; may be empty for an HTTP answer. */
  detail: string
  cause?: unknown
}

/** The `ModelError` for a non-2xx answer, with a hint on what to check for that status. */
export function httpFailure(failure: RequestFailure & { status: number }): ModelError {
  const { adapter, endpoint, status, detail, cause } = failure
  const said = detail === '' ? '' : `: ${detail}`
  return new ModelError(adapter, 'http', `HTTP ${status} from ${endpoint}${said}. ${statusHint(status)}`, {
    status,
    cause,
  })
}

/** The last sentence of a `connectionFailure` message: what to check. */
export const CONNECTION_HINT = 'Check that the server is running and that baseURL is right.'

/** The `ModelError` for an endpoint that could not be reached or a connection that broke. */
export function connectionFailure({ adapter, endpoint, detail, cause }: RequestFailure): ModelError {
  return new ModelError(adapter, 'connection', `cannot reach ${endpoint} (${detail}). ${CONNECTION_HINT}`, {
    cause,
  })
}

/**
 * The `ModelError` (kind `stream`) for a stream that ended before `marker`, the wire's sign that
 * the reply is complete (L12.1): the reply is discarded, so none of its tool calls runs.
 */
export function unfinishedStream(adapter: string, marker: string): ModelError {
  return new ModelError(
    adapter,
    'stream',
    `the stream ended before ${marker}, so the reply may be cut off; it was discarded and none of its ` +
      'tool calls ran. The connection broke or a proxy cut the response; retry, and check any proxy in between.',
  )
}

/**
 * The `ModelError` (kind `truncated`) for a reply with tool calls that the provider stopped with
 * `stop` (such as `finish_reason "length"`, L12.2); `hint` says what to change, and `reply` is
 * what the provider sent (T2.3).
 */
export function cutReply(adapter: string, stop: string, hint: string, reply?: CutReply): ModelError {
  return new ModelError(
    adapter,
    'truncated',
    `the provider cut the reply (${stop}) while it held tool calls, so their arguments may be incomplete; ` +
      `none of them ran. ${hint}`,
    reply === undefined ? {} : { reply },
  )
}

/** The last sentence of an `httpFailure` message for `status`: what to check, in the adapter options' words. */
export function statusHint(status: number): string {
  if (status === 401) return 'Check the apiKey.'
  if (status === 403) return 'Check that the apiKey is allowed to use this model.'
  if (status === 404) return 'Check the baseURL and the model name.'
  if (status === 408 || status === 504) return 'The server timed out; retry, or raise timeoutMs.'
  if (status === 413) return 'The request is too large; shorten the conversation or the tool results.'
  if (status === 429) return "Rate limited or out of quota; wait and retry, or check the account's limits."
  if (status >= 500) return 'The provider failed; retry later (maxRetries sets automatic retries).'
  if (status === 400 || status === 422) {
    return 'The server rejected the request; check the model name, the tool schemas and the detail above.'
  }
  return 'Check the detail above.'
}

/**
 * The most specific message along an error's `cause` chain (such as
 * `connect ECONNREFUSED 127.0.0.1:9`), for connection failures whose outer message is vague.
 * Never throws.
 */
export function rootCauseMessage(error: unknown): string {
  let message = 'unknown error'
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    try {
      const text = (current as { message?: unknown }).message
      const code = (current as { code?: unknown }).code
      if (typeof text === 'string' && text !== '') message = text
      else if (typeof code === 'string') message = code
      current = (current as { cause?: unknown }).cause
    } catch {
      break
    }
  }
  return message
}
