import { CONNECTION_HINT, ModelError, statusHint } from '@tooltx/agent'

/** Where a CLI user sets what a provider error points at: the key's and the base URL's variables. */
export interface ProviderVars {
  /** `OPENAI_API_KEY` or `ANTHROPIC_API_KEY`. */
  keyVar: string
  /** `OPENAI_BASE_URL` or `ANTHROPIC_BASE_URL`. */
  baseUrlVar: string
}

/** What to check after an HTTP status, in the words of `tooltx run` (K2.14); `undefined` keeps the adapter's. */
function cliStatusHint(status: number, { keyVar, baseUrlVar }: ProviderVars): string | undefined {
  if (status === 401) return `Check the key in ${keyVar}.`
  if (status === 403) return `Check that the key in ${keyVar} may use this model (--model).`
  if (status === 404) return `Check --base-url (or ${baseUrlVar}) and --model.`
  if (status === 408 || status === 504) return 'The server timed out; retry.'
  if (status === 400 || status === 422) {
    return 'The server rejected the request; check --model, the tools and the detail above.'
  }
  if (status >= 500) return 'The provider failed; retry later.'
  return undefined
}

/**
 * `error` as `tooltx run` shows and records it (K2.14): the adapter's closing hint, which names
 * its options (`apiKey`, `baseURL`, `timeoutMs`, `maxRetries`), replaced by one that names the
 * environment variable or flag to change; kind, status, cause and cut reply are kept. An error
 * without such a hint is returned as it is. Never throws.
 */
export function forCliUsers(error: ModelError, vars: ProviderVars): ModelError {
  const { adapter, kind, status } = error
  const prefix = `${adapter}: `
  if (!error.message.startsWith(prefix)) return error
  const body = error.message.slice(prefix.length)
  const [hint, cli] =
    kind === 'http' && status !== undefined
      ? [statusHint(status), cliStatusHint(status, vars)]
      : kind === 'connection'
        ? [
            CONNECTION_HINT,
            `Check that the server is running and that --base-url (or ${vars.baseUrlVar}) is right.`,
          ]
        : [undefined, undefined]
  if (hint === undefined || cli === undefined || !body.endsWith(hint)) return error
  return new ModelError(adapter, kind, `${body.slice(0, -hint.length)}${cli}`, {
    ...(status === undefined ? {} : { status }),
    ...(error.cause === undefined ? {} : { cause: error.cause }),
    ...(error.reply === undefined ? {} : { reply: error.reply }),
  })
}
