/**
 * What went wrong with a model request:
 * - `http`: the server answered with a non-2xx status (`status` is set);
 * - `connection`: the endpoint could not be reached or the connection broke or timed out;
 * - `stream`: the server reported an error mid-stream or sent a stream that breaks the protocol;
 * - `script`: a scripted model was asked more often than its script allows.
 */
export type ModelErrorKind = 'http' | 'connection' | 'stream' | 'script'

/**
 * A model request failed for a reason other than abort. The message names the adapter,
 * what happened and what to check; `kind` and `status` are for programs.
 */
export class ModelError extends Error {
  /** The adapter's `name`. */
  declare readonly adapter: string
  declare readonly kind: ModelErrorKind
  /** The HTTP status for `kind: 'http'`. */
  declare readonly status: number | undefined

  constructor(
    adapter: string,
    kind: ModelErrorKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(`${adapter}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause })
    Object.defineProperty(this, 'name', {
      value: 'ModelError',
      enumerable: false,
      writable: true,
      configurable: true,
    })
    Object.defineProperty(this, 'adapter', { value: adapter, enumerable: true })
    Object.defineProperty(this, 'kind', { value: kind, enumerable: true })
    Object.defineProperty(this, 'status', { value: options.status, enumerable: true })
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
    Object.defineProperty(this, 'name', {
      value: 'AbortError',
      enumerable: false,
      writable: true,
      configurable: true,
    })
    Object.defineProperty(this, 'adapter', { value: adapter, enumerable: true })
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

/** The `ModelError` for a non-2xx answer, with a hint on what to check for that status. */
export function httpFailure(
  adapter: string,
  endpoint: string,
  status: number,
  detail: string,
  cause?: unknown,
): ModelError {
  const said = detail === '' ? '' : `: ${detail}`
  return new ModelError(adapter, 'http', `HTTP ${status} from ${endpoint}${said}. ${statusHint(status)}`, {
    status,
    cause,
  })
}

/** The `ModelError` for an endpoint that could not be reached or a connection that broke. */
export function connectionFailure(
  adapter: string,
  endpoint: string,
  detail: string,
  cause?: unknown,
): ModelError {
  return new ModelError(
    adapter,
    'connection',
    `cannot reach ${endpoint} (${detail}). Check that the server is running and that baseURL is right.`,
    { cause },
  )
}

function statusHint(status: number): string {
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
