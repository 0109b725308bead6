import type { ModelAdapter, ModelRequest, ModelStreamEvent } from './model.js'
import { ModelAbortError } from './model-error.js'
import { lazyClient, type SdkPackage } from './sdk-loader.js'
import {
  type SdkApiError,
  type SdkClientOptions,
  type SdkClientSettings,
  type SdkEndpoint,
  type SdkErrors,
  sdkClientOptions,
  sdkErrors,
} from './sdk-stream.js'

/**
 * A loaded SDK module as `sdkConnection` uses it: its default export is the client class (as in
 * `openai` and `@anthropic-ai/sdk`), and it exports the error classes `SdkErrors` names.
 */
export type SdkModule<E extends SdkApiError> = Omit<SdkErrors<E>, 'detail'> & {
  default: new (options: SdkClientOptions) => unknown
}

/** An optional SDK as an adapter uses it: the package, how to load it and read its errors. */
export interface SdkDescriptor<M extends SdkModule<E>, E extends SdkApiError> extends SdkPackage {
  /** The provider's base URL, used when the adapter's options give none. */
  defaultBaseURL: string
  /** Imports the SDK module (a dynamic `import()`, so nothing loads before the first request). */
  load: () => Promise<M>
  /**
   * The server's own message in one of the SDK's API errors, undefined when it sent none;
   * default: the `message` of the error's JSON body (`bodyMessage(error.error)`).
   */
  detail?: SdkErrors<E>['detail']
}

/** What `sdkConnection` connects with. */
export interface SdkConnectionOptions<M extends SdkModule<E>, E extends SdkApiError> {
  /** The adapter's name, as its errors name it. */
  adapter: string
  /** The adapter's HTTP settings (its options). */
  settings: SdkClientSettings & { baseURL?: string }
  sdk: SdkDescriptor<M, E>
}

/** The client of an SDK-backed adapter, and the endpoint its errors name. */
export interface SdkConnection<C, E extends SdkApiError> {
  client: C
  endpoint: SdkEndpoint<E>
}

/** What `sdkAdapter` builds an adapter from: its connection, and how it streams one request. */
export interface SdkAdapterOptions<M extends SdkModule<E>, E extends SdkApiError>
  extends SdkConnectionOptions<M, E> {
  /** The model stream events of `request`, read through the connected client. */
  stream(
    connection: SdkConnection<InstanceType<M['default']>, E>,
    request: ModelRequest,
    signal: AbortSignal,
  ): AsyncIterable<ModelStreamEvent>
}

/**
 * An SDK-backed model adapter named `adapter`. Its `stream` connects (see `sdkConnection`: the
 * SDK is an optional peer dependency, imported on the first request, never at import, L12.4)
 * and then yields what `options.stream` yields for the request.
 */
export function sdkAdapter<M extends SdkModule<E>, E extends SdkApiError>(
  options: SdkAdapterOptions<M, E>,
): ModelAdapter {
  const connect = sdkConnection(options)
  return {
    name: options.adapter,
    async *stream(request, signal) {
      yield* options.stream(await connect(signal), request, signal)
    },
  }
}

/**
 * An SDK-backed adapter's connection (L12.4): a function that rejects with `ModelAbortError`
 * when `signal` has already aborted, and otherwise resolves the client and its endpoint,
 * importing the SDK and building the client on its first call only (see `lazyClient` for the
 * failures).
 */
function sdkConnection<M extends SdkModule<E>, E extends SdkApiError>(
  options: SdkConnectionOptions<M, E>,
): (signal: AbortSignal) => Promise<SdkConnection<InstanceType<M['default']>, E>> {
  const { adapter, settings, sdk } = options
  const baseURL = settings.baseURL ?? sdk.defaultBaseURL
  const connect = lazyClient({
    adapter,
    sdk,
    importSdk: sdk.load,
    build: (module: M) => ({
      client: new module.default(sdkClientOptions(settings, baseURL)) as InstanceType<M['default']>,
      endpoint: { name: adapter, baseURL, errors: sdkErrors(module, sdk.detail ?? bodyDetail) },
    }),
  })
  return async (signal) => {
    if (signal.aborted) throw new ModelAbortError(adapter, signal.reason)
    return connect()
  }
}

function bodyDetail(error: SdkApiError): string | undefined {
  return bodyMessage((error as { error?: unknown }).error)
}

/** The `message` of a provider's JSON error body, if it has a non-empty one. */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const message = (body as { message?: unknown }).message
  return typeof message === 'string' && message !== '' ? message : undefined
}
