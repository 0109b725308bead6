import { estimateTokens } from '@tooltx/agent'

/** How the Code Mode comparison counts tokens: `exact` with o200k_base, else the local estimate. */
export interface TokenCounting {
  count: (text: string) => number
  exact: boolean
}

/** Imports a module by specifier (the platform's `import()`, or a test's stand-in). */
export type ModuleImport = (specifier: string) => Promise<unknown>

/** The line the comparison prints when it counts with the estimate (K3.23). */
export const ESTIMATE_NOTE =
  '≈ estimated tokens (js-tiktoken is not installed); npm install js-tiktoken gives exact o200k_base counts'

/**
 * The token counting of the Code Mode comparison (K3.23): exact o200k_base counts with
 * `js-tiktoken` (an optional peer dependency of `tooltx`), loading only `js-tiktoken/lite` and the
 * `o200k_base` rank file, since its main entry parses every encoding; when the package is not
 * installed, `@tooltx/agent`'s `estimateTokens`. Any other failure to load it rejects.
 */
export async function tokenCounting(
  load: ModuleImport = (specifier) => import(specifier),
): Promise<TokenCounting> {
  let lite: { Tiktoken: new (ranks: unknown) => { encode(text: string): number[] } }
  let ranks: { default: unknown }
  try {
    ;[lite, ranks] = (await Promise.all([
      load('js-tiktoken/lite'),
      load('js-tiktoken/ranks/o200k_base'),
    ])) as [typeof lite, typeof ranks]
  } catch (error) {
    if (notInstalled(error)) return { count: estimateTokens, exact: false }
    throw error
  }
  const encoding = new lite.Tiktoken(ranks.default)
  return { count: (text) => encoding.encode(text).length, exact: true }
}

function notInstalled(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
}
