import { DEFAULT_MAX_RETRIES, type ModelRetry } from './wire-retry.js'

/** The HTTP settings every built-in adapter takes (`openaiCompatible`, `anthropic`). */
export interface HttpSettings {
  apiKey: string
  /** The provider's base URL; its default without one. */
  baseURL?: string
  /** Automatic retries of a failed request; default 2 (L12.7). */
  maxRetries?: number
  /** Milliseconds a request may wait for the answer's headers, per attempt; default 600 000. */
  timeoutMs?: number
  /** Extra HTTP headers, sent after (so over) the provider's own. */
  headers?: Record<string, string>
  /** Told of each automatic retry of an HTTP answer, before its wait (L12.7). */
  onRetry?: (retry: ModelRetry) => void
}

/** A provider's HTTP API as an adapter calls it. */
export interface ProviderApi {
  /** The adapter factory, as setup errors name it (such as `openaiCompatible`). */
  factory: string
  /** The base URL when the options give none. */
  defaultBaseURL: string
  /** The streaming endpoint's path after the base URL, such as `/chat/completions`. */
  path: string
  /** The provider's own headers for an API key (its authentication and version). */
  headers(apiKey: string): Record<string, string>
}

/** Where and how an adapter posts its requests; built once per adapter by `wireEndpoint`. */
export interface WireEndpoint {
  /** The adapter's name, as its errors name it. */
  adapter: string
  factory: string
  /** The base URL, as connection and HTTP errors name it. */
  baseURL: string
  /** The URL requests are posted to. */
  url: string
  headers: Record<string, string>
  maxRetries: number
  timeoutMs: number
  onRetry: ((retry: ModelRetry) => void) | undefined
  /** What is wrong with the options, if anything: every request then fails with a `setup` error. */
  problem: string | undefined
}

/** The timeout of a request when the options give none: ten minutes. */
const DEFAULT_TIMEOUT_MS = 600_000
/** The longest timer Node.js keeps (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/**
 * The endpoint of adapter `adapter` for its `settings` on `api`: the URL is the base URL joined
 * to the path with one slash; the headers are JSON content and event-stream accept, then the
 * provider's, then `settings.headers`. Bad settings never throw here: they are kept as `problem`.
 */
export function wireEndpoint(adapter: string, settings: HttpSettings, api: ProviderApi): WireEndpoint {
  const baseURL = settings.baseURL ?? api.defaultBaseURL
  const joined = baseURL.endsWith('/') ? baseURL + api.path.slice(1) : baseURL + api.path
  return {
    adapter,
    factory: api.factory,
    baseURL,
    url: joined,
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...api.headers(settings.apiKey),
      ...settings.headers,
    },
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    onRetry: settings.onRetry,
    problem: settingsProblem(settings, joined),
  }
}

function settingsProblem(settings: HttpSettings, url: string): string | undefined {
  const { apiKey, maxRetries, timeoutMs } = settings
  if (typeof apiKey !== 'string') return `apiKey must be a string, got ${typeof apiKey}`
  if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && maxRetries >= 0)) {
    return `maxRetries must be a whole number, 0 or more, got ${String(maxRetries)}`
  }
  if (
    timeoutMs !== undefined &&
    !(Number.isSafeInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_TIMEOUT_MS)
  ) {
    return `timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${String(timeoutMs)}`
  }
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return `baseURL must be an http or https URL, got ${JSON.stringify(settings.baseURL)}`
  }
  return undefined
}
