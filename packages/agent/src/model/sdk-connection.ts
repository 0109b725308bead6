import { type LazyClientOptions, lazyClient } from './sdk-loader.js'
import {
  type SdkApiError,
  type SdkClientOptions,
  type SdkClientSettings,
  type SdkEndpoint,
  type SdkErrors,
  sdkClientOptions,
  sdkErrors,
} from './sdk-stream.js'

/** What `sdkConnection` connects with. */
export interface SdkConnectionOptions<M, C, E extends SdkApiError>
  extends Omit<LazyClientOptions<M, C>, 'build'> {
  /** The endpoint's base URL, the adapter's default applied. */
  baseURL: string
  /** The adapter's HTTP settings (its options). */
  settings: SdkClientSettings
  /** Builds the SDK's client with the client options of `settings`. */
  client: (module: M, options: SdkClientOptions) => C
  /** The server's own message in one of the SDK's API errors; undefined when it sent none. */
  detail: SdkErrors<E>['detail']
}

/**
 * An SDK-backed adapter's connection (L12.4): a function that resolves the client and the
 * endpoint its errors name, importing the SDK and building the client on its first call only
 * (see `lazyClient` for the failures).
 */
export function sdkConnection<M extends Omit<SdkErrors<E>, 'detail'>, C, E extends SdkApiError>(
  options: SdkConnectionOptions<M, C, E>,
): () => Promise<{ client: C; endpoint: SdkEndpoint<E> }> {
  const { adapter, baseURL, settings, client, detail } = options
  return lazyClient({
    adapter,
    sdk: options.sdk,
    importSdk: options.importSdk,
    build: (module) => ({
      client: client(module, sdkClientOptions(settings, baseURL)),
      endpoint: { name: adapter, baseURL, errors: sdkErrors(module, detail) },
    }),
  })
}

/** The `message` of a provider's JSON error body, if it has a non-empty one. */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const message = (body as { message?: unknown }).message
  return typeof message === 'string' && message !== '' ? message : undefined
}
