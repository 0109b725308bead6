import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FetchLike } from '@modelcontextprotocol/client'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { authorizingFetch } from '../src/client/auth/authorizing-fetch.js'
import { LoopbackRedirect } from '../src/client/auth/loopback-redirect.js'
import { OAuthFlow } from '../src/client/auth/oauth-flow.js'
import { StoredOAuthProvider } from '../src/client/auth/stored-provider.js'
import { fileTokenStore, memoryTokenStore } from '../src/client/auth/token-store.js'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** A flow for `server` whose store already holds an unexpiring token. */
async function flowWithToken(server: URL, token: string): Promise<OAuthFlow> {
  const store = memoryTokenStore()
  await store.save(server.href, { tokens: { access_token: token, token_type: 'Bearer' } })
  const provider = new StoredOAuthProvider({
    server: server.href,
    store,
    grant: 'client_credentials',
    clientName: 'test',
    clientId: 'c',
    clientSecret: 's',
    onRedirect: async () => undefined,
  })
  return new OAuthFlow({ server, provider, redirect: undefined, timeoutMs: 1000, fetch: globalThis.fetch })
}

describe('Y5 OAuth units', () => {
  it('Y5.14, Y5.16: the token goes only to the server origin, and never with a redirect the fetch follows by itself', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl(), fc.webUrl(), fc.boolean(), async (serverText, otherText, same) => {
        const server = new URL(serverText)
        const target = same ? new URL(`${server.origin}${new URL(otherText).pathname}`) : new URL(otherText)
        const seen: { authorization: string | null; redirect: RequestInit['redirect'] }[] = []
        const base: FetchLike = async (_url, init) => {
          seen.push({
            authorization: new Headers(init?.headers).get('authorization'),
            redirect: init?.redirect,
          })
          return new Response('{}', { status: 200 })
        }
        const wrapped = authorizingFetch(server, await flowWithToken(server, 'tok-123'), base)
        await wrapped(target, { method: 'POST', headers: { accept: 'application/json' }, redirect: 'follow' })
        const sameOrigin = target.origin === server.origin
        expect(seen).toEqual([
          sameOrigin
            ? { authorization: 'Bearer tok-123', redirect: 'manual' }
            : { authorization: null, redirect: 'follow' },
        ])
      }),
      { numRuns: 200 },
    )
  })

  it('Y5.8: the loopback listener takes only the state it waits for, and an error response rejects', async () => {
    const redirect = new LoopbackRedirect()
    cleanups.push(() => redirect.close())
    const url = await redirect.start()
    expect(url.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    const waiting = redirect.wait('good-state', 5000)
    expect((await fetch(new URL('?code=stolen&state=other', url))).status).toBe(400)
    expect((await fetch(new URL('/elsewhere?code=x&state=good-state', url))).status).toBe(404)
    const page = await fetch(new URL('?code=the-code&state=good-state&iss=http%3A%2F%2Fas', url))
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('You can close this tab')
    await expect(waiting).resolves.toEqual({ code: 'the-code', iss: 'http://as' })

    const refused = expect(redirect.wait('s2', 5000)).rejects.toThrow(
      'the authorization server refused: access_denied (the user said no)',
    )
    await fetch(new URL('?error=access_denied&error_description=the+user+said+no&state=s2', url))
    await refused

    // Closed and started again, it listens on the same port: a registered redirect stays valid.
    await redirect.close()
    expect((await redirect.start()).href).toBe(url.href)
  })

  it('Y5.18: a token file that is not JSON reads as empty, a record of the wrong shape in part; saves are serialized', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tooltx-store-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'mcp-oauth.json')
    writeFileSync(file, '{ not json')
    const store = fileTokenStore(file)
    expect(await store.load('http://a/mcp')).toBeUndefined()
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.save(`http://s${i}/mcp`, { tokens: { access_token: `t${i}`, token_type: 'Bearer' } }),
      ),
    )
    for (let i = 0; i < 20; i++)
      expect((await store.load(`http://s${i}/mcp`))?.tokens?.access_token).toBe(`t${i}`)
    await store.save('http://s0/mcp', undefined)
    expect(await fileTokenStore(file).load('http://s0/mcp')).toBeUndefined()
    // A record edited into other shapes keeps only the parts that still fit.
    writeFileSync(
      file,
      JSON.stringify({
        'http://a/mcp': { tokens: 'x', client: 5, discovery: [] },
        'http://b/mcp': { tokens: { access_token: 't' }, client: { secret: 1 } },
      }),
    )
    expect(await store.load('http://a/mcp')).toEqual({})
    expect(await store.load('http://b/mcp')).toEqual({ tokens: { access_token: 't' } })
  })

  it('Y5.18: a pre-registered client secret is never written to the store', async () => {
    const store = memoryTokenStore()
    const provider = new StoredOAuthProvider({
      server: 'http://a/mcp',
      store,
      grant: 'client_credentials',
      clientName: 'test',
      clientId: 'machine',
      clientSecret: 'very-secret-value',
      onRedirect: async () => undefined,
    })
    await provider.saveClientInformation({ client_id: 'machine', client_secret: 'very-secret-value' })
    await provider.saveTokens({ access_token: 'a', token_type: 'Bearer', expires_in: 60 })
    const kept = await store.load('http://a/mcp')
    expect(JSON.stringify(kept)).not.toContain('very-secret-value')
    expect(kept?.tokens?.expires_at).toBeGreaterThan(Date.now())
  })

  it('Y5.4: a stored registration for another loopback redirect URL is not reused', async () => {
    const store = memoryTokenStore()
    await store.save('http://a/mcp', {
      client: { client_id: 'old', redirect_uris: ['http://127.0.0.1:1/callback'] },
    })
    const provider = new StoredOAuthProvider({
      server: 'http://a/mcp',
      store,
      grant: 'authorization_code',
      clientName: 'test',
      onRedirect: async () => undefined,
    })
    provider.redirectUrl = new URL('http://127.0.0.1:2/callback')
    expect(await provider.clientInformation()).toBeUndefined()
    provider.redirectUrl = new URL('http://127.0.0.1:1/callback')
    expect(await provider.clientInformation()).toMatchObject({ client_id: 'old' })
  })

  it('Y5.10: challenges met together share one authorization', async () => {
    const flow = await flowWithToken(new URL('http://127.0.0.1:9/mcp'), 'stale')
    const first = flow.authorize({ scope: 'a' })
    const second = flow.authorize({ scope: 'b' })
    expect(second).toBe(first)
    await expect(first).rejects.toThrow()
    // Once it has ended, the next challenge starts a new one.
    const third = flow.authorize({})
    expect(third).not.toBe(first)
    await expect(third).rejects.toThrow()
  })
})
