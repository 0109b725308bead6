/**
 * tooltx's `OAuthClientProvider` for the official SDK's `auth()` (Y5): the SDK runs the
 * protocol (discovery, registration, PKCE, token requests, refresh); this class holds what it
 * produces for ONE server, in a {@link TokenStore} under that server's URL, so a token is only
 * ever read back for the server it was issued for (Y5.15).
 */
import { randomBytes } from 'node:crypto'
import {
  type AddClientAuthentication,
  createPrivateKeyJwtAuth,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import type { KeptTokens, ServerAuthRecord, TokenStore } from './token-store.js'

/** The JWT grant type of RFC 7523, which enterprise-managed authorization (SEP-990) uses. */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'

/** Where a JWT authorization grant comes from: typically the user's IdP, by token exchange. */
export type JwtGrantSource = (context: {
  /** The MCP server's authorization server (its issuer). */
  authorizationServerUrl: string
  /** The MCP server as a resource (RFC 8707). */
  resourceUrl: string
  scope?: string
}) => string | Promise<string>

/** What the provider needs to know about the client it plays. */
export interface ProviderSettings {
  /** The MCP server's URL: the store key. */
  server: string
  store: TokenStore
  grant: 'authorization_code' | 'client_credentials' | 'jwt_bearer'
  clientName: string
  /** A pre-registered client; without it the client registers itself (or uses `clientMetadataUrl`). */
  clientId?: string
  clientSecret?: string
  /** An HTTPS URL of a client ID metadata document, used where the server supports them. */
  clientMetadataUrl?: string
  /** Asked for when neither the challenge nor the resource metadata names scopes. */
  scope?: string
  /** Sign a client assertion instead of sending a secret (`private_key_jwt`). */
  privateKey?: { pem: string; alg: string }
  /** The authorization grant (ID-JAG) for the `jwt_bearer` grant, asked for at each token request. */
  assertion?: JwtGrantSource
  /** Takes the user to the authorization URL (authorization code only). */
  onRedirect(url: URL): Promise<void>
}

/** The SDK's view of one server's client: its metadata, and its state in the store. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #settings: ProviderSettings
  #record: ServerAuthRecord | undefined
  #loaded = false
  #redirectUrl: URL | undefined
  #codeVerifier: string | undefined
  /** The issuer and resource of the authorization under way, as `auth()` resolved them. */
  #issuer: string | undefined
  #resource: string | undefined

  /** Set with `privateKey`: the SDK then signs each token request's client assertion. */
  readonly addClientAuthentication: AddClientAuthentication | undefined

  constructor(settings: ProviderSettings) {
    this.#settings = settings
    const key = settings.privateKey
    this.addClientAuthentication =
      key === undefined || settings.clientId === undefined
        ? undefined
        : createPrivateKeyJwtAuth({
            issuer: settings.clientId,
            subject: settings.clientId,
            privateKey: key.pem,
            alg: key.alg,
          })
  }

  get clientMetadataUrl(): string | undefined {
    return this.#settings.clientMetadataUrl
  }

  /** The loopback redirect URL, set by the flow once its listener is up; none for machines. */
  get redirectUrl(): URL | undefined {
    return this.#settings.grant === 'authorization_code' ? this.#redirectUrl : undefined
  }

  set redirectUrl(url: URL | undefined) {
    this.#redirectUrl = url
  }

  get clientMetadata(): OAuthClientMetadata {
    const s = this.#settings
    const method =
      s.privateKey !== undefined
        ? 'private_key_jwt'
        : s.clientSecret !== undefined
          ? 'client_secret_basic'
          : 'none'
    return {
      client_name: s.clientName,
      redirect_uris: this.redirectUrl === undefined ? [] : [this.redirectUrl.href],
      grant_types:
        s.grant === 'authorization_code'
          ? ['authorization_code', 'refresh_token']
          : [s.grant === 'jwt_bearer' ? JWT_BEARER : s.grant],
      response_types: s.grant === 'authorization_code' ? ['code'] : [],
      token_endpoint_auth_method: method,
      ...(s.scope === undefined ? {} : { scope: s.scope }),
    }
  }

  /**
   * Client credentials and JWT grants are asked for directly; the authorization code flow
   * needs nothing here.
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const { grant, assertion } = this.#settings
    if (grant === 'authorization_code') return undefined
    const params = new URLSearchParams({ grant_type: grant === 'jwt_bearer' ? JWT_BEARER : grant })
    if (grant === 'jwt_bearer' && assertion !== undefined) {
      if (this.#issuer === undefined || this.#resource === undefined)
        throw new Error('the authorization server and the resource are not known yet')
      const context = { authorizationServerUrl: this.#issuer, resourceUrl: this.#resource }
      params.set('assertion', await assertion(scope === undefined ? context : { ...context, scope }))
    }
    if (scope !== undefined) params.set('scope', scope)
    return params
  }

  saveAuthorizationServerUrl(issuer: string): void {
    this.#issuer = issuer
  }

  saveResourceUrl(resource: string): void {
    this.#resource = resource
  }

  state(): string {
    return randomBytes(24).toString('base64url')
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const s = this.#settings
    if (s.clientId !== undefined) {
      const info: OAuthClientInformationMixed = { client_id: s.clientId }
      return s.clientSecret === undefined ? info : { ...info, client_secret: s.clientSecret }
    }
    const client = (await this.#read()).client
    // A registration made for another loopback port cannot receive this run's redirect.
    const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris
    if (Array.isArray(uris) && this.redirectUrl !== undefined && !uris.includes(this.redirectUrl.href))
      return undefined
    return client
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    // A pre-registered secret stays in the caller's hands, never in the store.
    if (this.#settings.clientId === undefined) await this.#write({ client })
  }

  async tokens(): Promise<KeptTokens | undefined> {
    return (await this.#read()).tokens
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const kept: KeptTokens =
      typeof tokens.expires_in === 'number'
        ? { ...tokens, expires_at: Date.now() + tokens.expires_in * 1000 }
        : { ...tokens }
    // A refresh response may omit the refresh token: the old one stays valid (RFC 6749 §6).
    const previous = this.#record?.tokens?.refresh_token
    if (kept.refresh_token === undefined && previous !== undefined) kept.refresh_token = previous
    await this.#write({ tokens: kept })
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    await this.#settings.onRedirect(url)
  }

  saveCodeVerifier(verifier: string): void {
    this.#codeVerifier = verifier
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined) throw new Error('no authorization is under way')
    return this.#codeVerifier
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#read()).discovery
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.#write({ discovery })
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#codeVerifier = undefined
      return
    }
    const record = { ...(await this.#read()) }
    if (scope === 'all' || scope === 'client') delete record.client
    if (scope === 'all' || scope === 'tokens') delete record.tokens
    if (scope === 'all' || scope === 'discovery') delete record.discovery
    this.#record = record
    await this.#settings.store.save(this.#settings.server, record)
  }

  async #read(): Promise<ServerAuthRecord> {
    if (!this.#loaded) {
      this.#record = await this.#settings.store.load(this.#settings.server)
      this.#loaded = true
    }
    return this.#record ?? {}
  }

  async #write(change: ServerAuthRecord): Promise<void> {
    this.#record = { ...(await this.#read()), ...change }
    await this.#settings.store.save(this.#settings.server, this.#record)
  }
}
