import type { ModelStreamEvent } from './model.js'
import {
  connectionFailure,
  httpFailure,
  ModelAbortError,
  ModelError,
  rootCauseMessage,
} from './model-error.js'
import { type ModelRetry, retryReportingFetch } from './sdk-retry.js'

/** The HTTP settings every SDK-backed adapter takes (`openai`, `@anthropic-ai/sdk`). */
export interface SdkClientSettings {
  apiKey: string
  maxRetries?: number
  timeoutMs?: number
  headers?: Record<string, string>
  onRetry?: (retry: ModelRetry) => void
}

/** Client options as both SDKs take them. */
export interface SdkClientOptions {
  apiKey: string
  baseURL: string
  maxRetries: number
  timeout?: number
  defaultHeaders?: Record<string, string>
  fetch?: ReturnType<typeof retryReportingFetch>
}

/**
 * The client options for an adapter's settings: `maxRetries` defaults to 2; `timeout` and
 * `defaultHeaders` are set only when given, so the SDK's own defaults apply otherwise; with
 * `onRetry`, a `fetch` that reports each retry of an HTTP answer (L12.7).
 */
export function sdkClientOptions(settings: SdkClientSettings, baseURL: string): SdkClientOptions {
  const maxRetries = settings.maxRetries ?? 2
  return {
    apiKey: settings.apiKey,
    baseURL,
    maxRetries,
    ...(settings.onRetry === undefined ? {} : { fetch: retryReportingFetch(maxRetries, settings.onRetry) }),
    ...(settings.timeoutMs === undefined ? {} : { timeout: settings.timeoutMs }),
    ...(settings.headers === undefined ? {} : { defaultHeaders: settings.headers }),
  }
}

/** An SDK's API error as the mapping reads it: the HTTP status, when the server answered with one. */
export type SdkApiError = Error & { readonly status: number | undefined }

/**
 * An SDK's error classes (both SDKs share the same hierarchy: a timeout is a connection error,
 * which is an API error without a status) and where its API errors keep the server's message.
 */
export interface SdkErrors<E extends SdkApiError> {
  APIError: abstract new (...args: never[]) => E
  APIConnectionError: abstract new (...args: never[]) => Error
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error
  /** The server's own message in an API error; undefined when it sent none. */
  detail(error: E): string | undefined
}

/**
 * The `SdkErrors` of a loaded SDK module, which exports the three classes under these names,
 * with `detail` reading the server's message.
 */
export function sdkErrors<E extends SdkApiError>(
  sdk: Omit<SdkErrors<E>, 'detail'>,
  detail: SdkErrors<E>['detail'],
): SdkErrors<E> {
  const { APIError, APIConnectionError, APIConnectionTimeoutError } = sdk
  return { APIError, APIConnectionError, APIConnectionTimeoutError, detail }
}

/** An adapter as its errors name it: its `name`, the endpoint it calls, and its SDK's errors. */
export interface SdkEndpoint<E extends SdkApiError> {
  name: string
  baseURL: string
  errors: SdkErrors<E>
}

/**
 * The model stream events of one SDK stream: opens it with `open`, hands each chunk to `read`
 * and yields what `read` yields. Anything thrown while opening or reading (by the SDK or by
 * `read`) becomes a `ModelAbortError` when `signal` has aborted, else a `ModelError` that names
 * the endpoint; a stream that ends because `signal` aborted throws `ModelAbortError` too. Leaving
 * the iteration early returns the SDK stream, which cancels the HTTP request.
 *
 * `open` gets a signal of the request's own, linked to `signal` and unlinked when the stream
 * ends: the SDKs never remove the listener they add, so a turn's signal handed to them directly
 * would keep one listener (and what it holds) per request for the whole turn (T3.8).
 */
export async function* sdkEvents<T, E extends SdkApiError>(
  endpoint: SdkEndpoint<E>,
  signal: AbortSignal,
  open: (linked: AbortSignal) => PromiseLike<AsyncIterable<T>>,
  read: (chunk: T) => Iterable<ModelStreamEvent>,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  const request = new AbortController()
  const forward = (): void => request.abort(signal.reason)
  signal.addEventListener('abort', forward, { once: true })
  try {
    const stream = await open(request.signal)
    for await (const chunk of stream) yield* read(chunk)
  } catch (error) {
    throw sdkFailure(endpoint, error, signal)
  } finally {
    signal.removeEventListener('abort', forward)
  }
  // The SDK ends the iteration quietly when the signal aborts mid-stream.
  if (signal.aborted) throw new ModelAbortError(endpoint.name, signal.reason)
}

function sdkFailure<E extends SdkApiError>(
  endpoint: SdkEndpoint<E>,
  error: unknown,
  signal: AbortSignal,
): Error {
  const { name, baseURL, errors } = endpoint
  if (signal.aborted) return new ModelAbortError(name, signal.reason)
  if (error instanceof ModelError) return error
  if (error instanceof errors.APIConnectionTimeoutError) {
    const detail = 'the request timed out; raise timeoutMs if the model is slow'
    return connectionFailure({ adapter: name, endpoint: baseURL, detail, cause: error })
  }
  if (error instanceof errors.APIConnectionError) {
    return connectionFailure({
      adapter: name,
      endpoint: baseURL,
      detail: rootCauseMessage(error),
      cause: error,
    })
  }
  if (error instanceof errors.APIError) {
    const detail = errors.detail(error) ?? error.message
    if (typeof error.status === 'number') {
      return httpFailure({ adapter: name, endpoint: baseURL, status: error.status, detail, cause: error })
    }
    return new ModelError(name, 'stream', `the server reported an error mid-stream: ${detail}`, {
      cause: error,
    })
  }
  return new ModelError(name, 'stream', `reading the stream failed: ${rootCauseMessage(error)}`, {
    cause: error,
  })
}
