/**
 * The `fetch` the Streamable HTTP transport uses for an OAuth-protected server (Y5.14–Y5.16):
 * it puts the access token on requests to the server's own origin only, never lets such a
 * request follow a redirect by itself, and answers a 401 (no or stale token) or a 403
 * `insufficient_scope` (step-up) by authorizing and sending the request once more.
 */
import { extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client'
import type { OAuthFlow } from './oauth-flow.js'

/** Whether a token issued for `server` may go with a request to `target` (Y5.15). */
export function sameAudience(server: URL, target: URL): boolean {
  return server.origin === target.origin
}

/** `base` with `flow`'s token on every request to `server`'s origin, re-authorizing on challenges. */
export function authorizingFetch(server: URL, flow: OAuthFlow, base: FetchLike): FetchLike {
  const send = async (url: string | URL, init: RequestInit | undefined, token: string | undefined) => {
    if (token === undefined || !sameAudience(server, new URL(url))) return base(url, init)
    const headers = new Headers(init?.headers)
    headers.set('authorization', `Bearer ${token}`)
    // A request carrying the token must not be carried elsewhere by the fetch implementation.
    const redirect = init?.redirect === 'error' ? 'error' : 'manual'
    return base(url, { ...init, headers, redirect })
  }
  return async (url, init) => {
    if (!sameAudience(server, new URL(url))) return base(url, init)
    const response = await send(url, init, await flow.accessToken())
    const challenge = challengeOf(response)
    if (challenge === undefined) return response
    await response.body?.cancel().catch(() => undefined)
    await flow.authorize(challenge)
    return send(url, init, await flow.accessToken())
  }
}

/** The challenge of a 401, or of a 403 `insufficient_scope`; `undefined` for any other response. */
function challengeOf(response: Response): Parameters<OAuthFlow['authorize']>[0] | undefined {
  if (response.status !== 401 && response.status !== 403) return undefined
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response)
  if (response.status === 403 && error !== 'insufficient_scope') return undefined
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    ...(scope === undefined ? {} : { scope }),
    stepUp: response.status === 403,
  }
}
