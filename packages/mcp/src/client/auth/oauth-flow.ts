/**
 * One server's authorization, run to completion (Y5.5–Y5.13): the SDK's `auth()` discovers,
 * registers, refreshes or asks for a client-credentials token; when it needs the user it
 * returns `REDIRECT`, and this flow waits on the loopback listener for the code and redeems
 * it, so the request that met the 401 or 403 can simply be sent again. Concurrent requests
 * share one authorization.
 */
import {
  auth,
  computeScopeUnion,
  type FetchLike,
  isStrictScopeSuperset,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import type { LoopbackRedirect } from './loopback-redirect.js'
import type { StoredOAuthProvider } from './stored-provider.js'

/** What the server's challenge said (`WWW-Authenticate`). */
export interface Challenge {
  resourceMetadataUrl?: URL
  scope?: string
  /** A 403 `insufficient_scope`: the new scope is added to the granted one (Y5.11). */
  stepUp?: boolean
}

/** Refresh this long before the access token's stated expiry, for clock skew and latency. */
const EXPIRY_MARGIN_MS = 30_000

/**
 * The authorization state of one tool set: the token to send, and the authorization that a
 * challenge starts. `redirect` is the loopback listener of the authorization code grant, and
 * `undefined` for client credentials.
 */
export class OAuthFlow {
  readonly #server: URL
  readonly #provider: StoredOAuthProvider
  readonly #redirect: LoopbackRedirect | undefined
  readonly #timeoutMs: number
  readonly #fetch: FetchLike
  /** The scope asked for so far: every challenge's scope joins it, so none is lost later. */
  #scope: string | undefined
  #running: Promise<void> | undefined
  /** The wait for the authorization response of the redirect under way. */
  #pending: Promise<{ code: string; iss?: string }> | undefined

  constructor(options: {
    server: URL
    provider: StoredOAuthProvider
    redirect: LoopbackRedirect | undefined
    timeoutMs: number
    fetch: FetchLike
  }) {
    this.#server = options.server
    this.#provider = options.provider
    this.#redirect = options.redirect
    this.#timeoutMs = options.timeoutMs
    this.#fetch = options.fetch
  }

  /**
   * Called by the provider with the authorization URL: starts waiting for its response
   * BEFORE the user (or a program playing the browser) can answer it.
   */
  expectRedirect(url: URL): void {
    const state = url.searchParams.get('state')
    if (this.#redirect === undefined || state === null) throw new Error('no loopback listener to redirect to')
    this.#pending = this.#redirect.wait(state, this.#timeoutMs)
    this.#pending.catch(() => undefined)
  }

  /**
   * The access token to send now, or `undefined` before any authorization. An expired one is
   * refreshed first when it can be without the user (a refresh token, or client credentials).
   */
  async accessToken(): Promise<string | undefined> {
    if (this.#running !== undefined) await this.#running.catch(() => undefined)
    const tokens = await this.#provider.tokens()
    if (tokens === undefined) return undefined
    const expired = tokens.expires_at !== undefined && Date.now() >= tokens.expires_at - EXPIRY_MARGIN_MS
    // Without a loopback listener there is no user to ask: client credentials ask again by themselves.
    const silent = tokens.refresh_token !== undefined || this.#redirect === undefined
    if (expired && silent) {
      await this.authorize({})
      return (await this.#provider.tokens())?.access_token
    }
    return tokens.access_token
  }

  /** Authorizes for `challenge`; one run at a time, later callers share the running one. */
  authorize(challenge: Challenge): Promise<void> {
    this.#running ??= this.#authorize(challenge).finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  async #authorize(challenge: Challenge): Promise<void> {
    const tokens = await this.#provider.tokens()
    const scope = computeScopeUnion(
      this.#scope,
      challenge.stepUp === true ? tokens?.scope : undefined,
      challenge.scope,
    )
    this.#scope = scope
    if (this.#redirect === undefined) return this.#run(challenge, scope, tokens?.scope)
    // The listener is up only while an authorization runs; it comes back on the same port.
    this.#provider.redirectUrl = await this.#redirect.start()
    try {
      await this.#run(challenge, scope, tokens?.scope)
    } finally {
      await this.#redirect.close()
    }
  }

  async #run(challenge: Challenge, scope: string | undefined, granted: string | undefined): Promise<void> {
    const options = {
      serverUrl: this.#server,
      fetchFn: this.#fetch,
      ...(challenge.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
      ...(scope === undefined ? {} : { scope }),
    }
    // Refreshing cannot widen a grant (RFC 6749 §6): a step-up past it asks the user again.
    const forceReauthorization = challenge.stepUp === true && isStrictScopeSuperset(scope, granted)
    this.#pending = undefined
    if ((await auth(this.#provider, { ...options, forceReauthorization })) === 'AUTHORIZED') return
    const pending = this.#pending as Promise<{ code: string; iss?: string }> | undefined
    if (pending === undefined) throw new UnauthorizedError('the authorization server asked for a redirect')
    const { code, iss } = await pending
    const redeemed = await auth(this.#provider, {
      ...options,
      authorizationCode: code,
      ...(iss === undefined ? {} : { iss }),
    })
    if (redeemed !== 'AUTHORIZED') throw new UnauthorizedError('the authorization code was not accepted')
  }
}
