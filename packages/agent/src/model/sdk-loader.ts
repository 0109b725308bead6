import { ModelError, rootCauseMessage } from './model-error.js'

/** Which optional SDK an adapter needs: the npm package and the factory that needs it. */
export interface SdkPackage {
  /** The npm package name, such as `openai`. */
  name: string
  /** The adapter factory that needs it, such as `openaiCompatible`. */
  factory: string
}

/** What `lazyClient` loads and builds. */
export interface LazyClientOptions<M, C> {
  /** The adapter's name, as its errors name it. */
  adapter: string
  /** The optional SDK it needs. */
  sdk: SdkPackage
  /** Imports the SDK module. */
  importSdk: () => Promise<M>
  /** Builds the client from the loaded module; may throw on bad options. */
  build: (module: M) => C
}

/**
 * A lazily built SDK client (L12.4). The returned function imports the SDK with `importSdk` on
 * its first call, builds the client with `build`, and resolves that same client on every later
 * call. A failed import or build rejects with a `ModelError` of kind `setup` that names the
 * package and how to install it, and is not remembered, so a later call tries again. Nothing is
 * imported before the first call: the SDKs are optional peer dependencies of `@tooltx/agent`.
 */
export function lazyClient<M, C>(options: LazyClientOptions<M, C>): () => Promise<C> {
  let client: Promise<C> | undefined
  return () => {
    if (client === undefined) {
      const loading = load(options)
      loading.catch(() => {
        client = undefined
      })
      client = loading
    }
    return client
  }
}

async function load<M, C>({ adapter, sdk, importSdk, build }: LazyClientOptions<M, C>): Promise<C> {
  let module: M
  try {
    module = await importSdk()
  } catch (error) {
    throw new ModelError(
      adapter,
      'setup',
      `cannot load the "${sdk.name}" package (${rootCauseMessage(error)}). ${sdk.factory} needs it; it is ` +
        `an optional peer dependency of @tooltx/agent, so install it next to it: npm install ${sdk.name}`,
      { cause: error },
    )
  }
  try {
    return build(module)
  } catch (error) {
    throw new ModelError(
      adapter,
      'setup',
      `the "${sdk.name}" client rejected the adapter's options: ${rootCauseMessage(error)}. Check the options of ${sdk.factory}.`,
      { cause: error },
    )
  }
}
