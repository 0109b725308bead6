/**
 * The `auth` option of an HTTP connection (Y5.1): how `mcpTools` gets authorized by a remote
 * MCP server that speaks the MCP authorization spec. Checked once, then turned into the
 * transport's `fetch` ({@link authorizingFetch}) over a flow that lives as long as the tool set.
 */
import type { FetchLike } from '@modelcontextprotocol/client'
import { ToolError } from '@tooltx/core'
import { authorizingFetch } from './authorizing-fetch.js'
import { LoopbackRedirect } from './loopback-redirect.js'
import { OAuthFlow } from './oauth-flow.js'
import { type JwtGrantSource, type ProviderSettings, StoredOAuthProvider } from './stored-provider.js'
import { memoryTokenStore, type TokenStore } from './token-store.js'

/** Settings both grants share. */
interface AuthCommon {
  /** Where tokens and registrations are kept; default {@link memoryTokenStore} (per set). */
  store?: TokenStore
  /** The scope to ask for when neither the server's challenge nor its metadata names one. */
  scope?: string
  /** The name the client registers under (default `tooltx`). */
  clientName?: string
}

/**
 * Authorization code with PKCE for a person (Y5.7): the authorization URL goes to
 * `onAuthorizationUrl` (print it, open a browser), and the code comes back to a listener on
 * `http://127.0.0.1:<redirectPort>/callback`.
 */
export interface AuthorizationCodeAuth extends AuthCommon {
  grant?: 'authorization_code'
  onAuthorizationUrl(url: URL): void | Promise<void>
  /** A pre-registered client; default: client ID metadata document or dynamic registration. */
  clientId?: string
  clientSecret?: string
  /** An HTTPS URL of this client's metadata document (used where the server supports them). */
  clientMetadataUrl?: string
  /** The loopback listener's port; default 0 (any free port). */
  redirectPort?: number
  /** How long to wait for the user, in ms; default 300 000. */
  timeoutMs?: number
}

/**
 * Client credentials for a machine (Y5.9): no person, no browser. The client proves itself
 * with `clientSecret` (`client_secret_basic`) or with a JWT signed by `privateKey`
 * (`private_key_jwt`, RFC 7523); exactly one of the two.
 */
export interface ClientCredentialsAuth extends AuthCommon {
  grant: 'client_credentials'
  clientId: string
  clientSecret?: string
  /** A PEM private key (PKCS#8) that signs the client assertion. */
  privateKey?: string
  /** The assertion's JWS algorithm; default `ES256`. */
  signingAlgorithm?: string
}

/**
 * Enterprise-managed authorization (SEP-990, Y5.21): the JWT authorization grant that
 * `assertion` returns (an ID-JAG the user's IdP issued by token exchange, for instance with the
 * SDK's `requestJwtAuthorizationGrant`) is traded for an access token (RFC 7523), the client
 * authenticated by its secret; no browser, no registration.
 */
export interface JwtBearerAuth extends AuthCommon {
  grant: 'jwt_bearer'
  clientId: string
  clientSecret: string
  assertion: JwtGrantSource
}

/** The `auth` option of an {@link HttpConnection}. */
export type McpAuth = AuthorizationCodeAuth | ClientCredentialsAuth | JwtBearerAuth

/** Wraps a transport's `fetch` so that it authorizes; one flow for every transport of a set. */
export type AuthorizingWrapper = (base: FetchLike) => FetchLike

function authError(message: string): ToolError {
  return new ToolError('INVALID_DEFINITION', `mcpTools: auth${message}`, { name: 'DefinitionError' })
}

function optionalString(auth: object, key: string): string | undefined {
  const value = (auth as Record<string, unknown>)[key]
  if (value !== undefined && (typeof value !== 'string' || value === ''))
    throw authError(`.${key} must be a non-empty string`)
  return value
}

/** The checked options: the provider's settings, and how the user is reached (none for machines). */
interface CheckedAuth {
  settings: Omit<ProviderSettings, 'server' | 'onRedirect'>
  user: { show(url: URL): void | Promise<void>; port: number; timeoutMs: number } | undefined
}

/** `auth` checked field by field; throws `INVALID_DEFINITION` naming the field. */
function checked(auth: McpAuth): CheckedAuth {
  if (auth === null || typeof auth !== 'object')
    throw authError(' must be an object: { onAuthorizationUrl } or { grant: "client_credentials", … }')
  const grant = auth.grant ?? 'authorization_code'
  if (grant !== 'authorization_code' && grant !== 'client_credentials' && grant !== 'jwt_bearer')
    throw authError(
      `.grant must be "authorization_code", "client_credentials" or "jwt_bearer", not ${JSON.stringify(grant)}`,
    )
  const store = auth.store ?? memoryTokenStore()
  if (typeof store?.load !== 'function' || typeof store.save !== 'function')
    throw authError('.store must have load(server) and save(server, record)')
  const settings: CheckedAuth['settings'] = {
    store,
    grant,
    clientName: optionalString(auth, 'clientName') ?? 'tooltx',
  }
  for (const key of ['clientId', 'clientSecret', 'clientMetadataUrl', 'scope'] as const) {
    const value = optionalString(auth, key)
    if (value !== undefined) settings[key] = value
  }
  const privateKey = optionalString(auth, 'privateKey')
  const alg = optionalString(auth, 'signingAlgorithm') ?? 'ES256'
  if (privateKey !== undefined) settings.privateKey = { pem: privateKey, alg }
  if (auth.grant === 'jwt_bearer') {
    if (settings.clientId === undefined || settings.clientSecret === undefined)
      throw authError('.clientId and clientSecret are required for the jwt_bearer grant')
    if (typeof auth.assertion !== 'function')
      throw authError('.assertion must be a function returning the JWT authorization grant')
    return { settings: { ...settings, assertion: auth.assertion }, user: undefined }
  }
  if (auth.grant === 'client_credentials') {
    if (
      settings.clientId === undefined ||
      (settings.clientSecret === undefined) === (privateKey === undefined)
    )
      throw authError(
        '.clientId and one of clientSecret and privateKey are required for the client_credentials grant',
      )
    return { settings, user: undefined }
  }
  if (typeof auth.onAuthorizationUrl !== 'function')
    throw authError('.onAuthorizationUrl must be a function: it shows the user the authorization URL')
  const port = auth.redirectPort ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw authError('.redirectPort must be an integer port from 0 to 65535')
  const timeoutMs = auth.timeoutMs ?? 300_000
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw authError('.timeoutMs must be a positive number of milliseconds')
  return { settings, user: { show: (url) => auth.onAuthorizationUrl(url), port, timeoutMs } }
}

/**
 * The authorizing wrapper for the server at `url` (Y5.1, Y5.2): the flow, its provider and its
 * loopback listener are made once here, and each transport's `fetch` wrapped over them. Throws
 * `INVALID_DEFINITION` (`mcpTools: auth.…`) for an option that is missing or of the wrong kind.
 */
export function authorizingWrapper(url: URL, auth: McpAuth): AuthorizingWrapper {
  const { settings, user } = checked(auth)
  const provider = new StoredOAuthProvider({
    ...settings,
    server: url.href,
    async onRedirect(authorizationUrl) {
      // The flow waits for the response before the user can give it (Y5.7).
      flow.expectRedirect(authorizationUrl)
      await user?.show(authorizationUrl)
    },
  })
  const flow: OAuthFlow = new OAuthFlow({
    server: url,
    provider,
    redirect: user === undefined ? undefined : new LoopbackRedirect(user.port),
    timeoutMs: user?.timeoutMs ?? 0,
    fetch: globalThis.fetch,
  })
  return (base) => authorizingFetch(url, flow, base)
}
