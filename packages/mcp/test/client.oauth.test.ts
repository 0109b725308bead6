import { generateKeyPairSync, sign } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createToolRuntime, type JsonValue, type ToolResult } from '@tooltx/core'
import { fileTokenStore, type HttpConnection, mcpTools, memoryTokenStore } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'
import { browser, MACHINE, startOAuthServers } from './oauth.fixtures.js'

afterEach(cleanupAll)

async function imported(connection: HttpConnection) {
  const set = await mcpTools(connection, { name: 'protected' })
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  let n = 0
  const call = (name: string, args: JsonValue = {}) =>
    runtime.execute({ callId: `c${++n}`, name, arguments: args, signal: new AbortController().signal })
  return { set, call }
}

const textOf = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')

describe('Y5 OAuth for remote servers: authorization code with PKCE', () => {
  it('Y5.2, Y5.3, Y5.5, Y5.6, Y5.7, Y5.8, Y5.10: discovery, registration, PKCE S256 through the loopback redirect, resource indicator', async () => {
    const servers = await startOAuthServers()
    const user = browser()
    const { set, call } = await imported({ url: servers.mcp, auth: { onAuthorizationUrl: user.open } })
    expect(set.tools.map((t) => t.name)).toEqual(['mcp__protected__whoami', 'mcp__protected__admin_report'])
    expect(textOf(await call('mcp__protected__whoami'))).toMatch(/^client \S+ scope mcp:tools$/)
    expect(user.opened).toHaveLength(1)
    const log = await servers.asLog()
    const register = log.find((e) => e.endpoint === 'register')!
    const authorize = log.find((e) => e.endpoint === 'authorize')!
    expect(register.redirect_uris).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)])
    expect(register.grant_types).toEqual(['authorization_code', 'refresh_token'])
    expect(authorize).toMatchObject({
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: servers.mcp.href,
      scope: 'mcp:tools',
      redirect_uri: (register.redirect_uris as string[])[0],
    })
    expect(String(authorize.code_challenge)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(String(authorize.state).length).toBeGreaterThanOrEqual(32)
    expect(log.filter((e) => e.endpoint === 'token')).toEqual([
      { endpoint: 'token', grant_type: 'authorization_code', resource: servers.mcp.href, scope: null },
    ])
  })

  it('Y5.4: where the server offers client ID metadata documents, the document URL is the client_id and nothing is registered', async () => {
    const servers = await startOAuthServers({ cimd: true })
    const user = browser()
    const clientMetadataUrl = 'https://tooltx.example/oauth/client.json'
    const { call } = await imported({
      url: servers.mcp,
      auth: { onAuthorizationUrl: user.open, clientMetadataUrl },
    })
    expect(textOf(await call('mcp__protected__whoami'))).toBe(`client ${clientMetadataUrl} scope mcp:tools`)
    expect(user.opened[0]!.searchParams.get('client_id')).toBe(clientMetadataUrl)
    expect((await servers.asLog()).some((e) => e.endpoint === 'register')).toBe(false)
  })

  it('Y5.4: without client ID metadata documents the same client registers itself', async () => {
    const servers = await startOAuthServers()
    const user = browser()
    const clientMetadataUrl = 'https://tooltx.example/oauth/client.json'
    await imported({ url: servers.mcp, auth: { onAuthorizationUrl: user.open, clientMetadataUrl } })
    expect(user.opened[0]!.searchParams.get('client_id')).not.toBe(clientMetadataUrl)
    expect((await servers.asLog()).filter((e) => e.endpoint === 'register')).toHaveLength(1)
  })

  it('Y5.12: an expired access token is refreshed without the user, with the resource indicator', async () => {
    const servers = await startOAuthServers({ expiresIn: 1 })
    const user = browser()
    const { call } = await imported({ url: servers.mcp, auth: { onAuthorizationUrl: user.open } })
    // Within the expiry margin, every request refreshes first; the user is asked once only.
    expect(textOf(await call('mcp__protected__whoami'))).toMatch(/scope mcp:tools$/)
    expect(textOf(await call('mcp__protected__whoami'))).toMatch(/scope mcp:tools$/)
    expect(user.opened).toHaveLength(1)
    const refreshes = (await servers.asLog()).filter((e) => e.grant_type === 'refresh_token')
    expect(refreshes.length).toBeGreaterThanOrEqual(2)
    for (const r of refreshes) expect(r.resource).toBe(servers.mcp.href)
  })

  it('Y5.11: a 403 insufficient_scope asks again for the union of the scopes and retries the call once', async () => {
    const servers = await startOAuthServers()
    const user = browser()
    const { call } = await imported({ url: servers.mcp, auth: { onAuthorizationUrl: user.open } })
    const report = await call('mcp__protected__admin_report')
    expect(report).toMatchObject({ isError: false, content: [{ type: 'text', text: 'the admin report' }] })
    expect(user.opened).toHaveLength(2)
    expect(user.opened[1]!.searchParams.get('scope')).toBe('mcp:tools mcp:admin')
    expect(textOf(await call('mcp__protected__whoami'))).toMatch(/scope mcp:tools mcp:admin$/)
    expect(user.opened).toHaveLength(2)
  })

  it('Y5.13: a user who never answers fails the connection after timeoutMs, saying so', async () => {
    const servers = await startOAuthServers()
    const opened: URL[] = []
    const started = Date.now()
    await expect(
      mcpTools(
        { url: servers.mcp, auth: { onAuthorizationUrl: (url) => void opened.push(url), timeoutMs: 300 } },
        { name: 'p', reconnect: false },
      ),
    ).rejects.toThrow(/no authorization arrived within/)
    expect(opened).toHaveLength(1)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe('Y5 OAuth for remote servers: machines, storage, audience', () => {
  it('Y5.9, Y5.6: client credentials get a token without a browser, for the resource', async () => {
    const servers = await startOAuthServers()
    const { call } = await imported({
      url: servers.mcp,
      auth: { grant: 'client_credentials', ...MACHINE },
    })
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client machine scope mcp:tools')
    const tokens = (await servers.asLog()).filter((e) => e.endpoint === 'token')
    expect(tokens).toEqual([
      { endpoint: 'token', grant_type: 'client_credentials', resource: servers.mcp.href, scope: 'mcp:tools' },
    ])
    expect((await servers.asLog()).some((e) => e.endpoint === 'register' || e.endpoint === 'authorize')).toBe(
      false,
    )
  })

  it('Y5.12: an expired client-credentials token is replaced by a new token request, without a refresh token', async () => {
    const servers = await startOAuthServers({ expiresIn: 1 })
    const { call } = await imported({ url: servers.mcp, auth: { grant: 'client_credentials', ...MACHINE } })
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client machine scope mcp:tools')
    const before = (await servers.asLog()).filter((e) => e.grant_type === 'client_credentials').length
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client machine scope mcp:tools')
    const after = (await servers.asLog()).filter((e) => e.grant_type === 'client_credentials').length
    expect(after).toBeGreaterThan(before)
  })

  it('Y5.9: client credentials with private_key_jwt sign an assertion instead of sending a secret', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const servers = await startOAuthServers({
      clients: [{ id: 'signer', publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() }],
    })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const { call } = await imported({
      url: servers.mcp,
      auth: { grant: 'client_credentials', clientId: 'signer', privateKey: pem },
    })
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client signer scope mcp:tools')
    // A key the server does not know is refused.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
    await expect(
      mcpTools(
        {
          url: servers.mcp,
          auth: {
            grant: 'client_credentials',
            clientId: 'signer',
            privateKey: other.export({ type: 'pkcs8', format: 'pem' }).toString(),
          },
        },
        { name: 'p', reconnect: false },
      ),
    ).rejects.toThrow(/invalid_client/)
  })

  it('Y5.21: a JWT authorization grant from the IdP is traded for a token for the resource', async () => {
    const idp = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const servers = await startOAuthServers({
      clients: [{ id: 'enterprise', secret: 'enterprise-secret-5d1f' }],
      idpPublicKey: idp.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    })
    const asked: object[] = []
    const signed = (claims: object) => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
      const input = `${part({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })}.${part(claims)}`
      const signature = sign('sha256', Buffer.from(input), { key: idp.privateKey, dsaEncoding: 'ieee-p1363' })
      return `${input}.${signature.toString('base64url')}`
    }
    const { call } = await imported({
      url: servers.mcp,
      auth: {
        grant: 'jwt_bearer',
        clientId: 'enterprise',
        clientSecret: 'enterprise-secret-5d1f',
        assertion: (context) => {
          asked.push(context)
          const exp = Math.floor(Date.now() / 1000) + 60
          return signed({
            sub: 'alice',
            aud: context.authorizationServerUrl,
            resource: context.resourceUrl,
            client_id: 'enterprise',
            exp,
          })
        },
      },
    })
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client enterprise scope mcp:tools')
    expect(asked).toEqual([
      { authorizationServerUrl: servers.issuer.origin, resourceUrl: servers.mcp.href, scope: 'mcp:tools' },
    ])
    expect((await servers.asLog()).filter((e) => e.endpoint === 'jwt-bearer')).toEqual([
      { endpoint: 'jwt-bearer', sub: 'alice' },
    ])
    // A grant the IdP made for another authorization server is refused.
    await expect(
      mcpTools(
        {
          url: servers.mcp,
          auth: {
            grant: 'jwt_bearer',
            clientId: 'enterprise',
            clientSecret: 'enterprise-secret-5d1f',
            assertion: (context) =>
              signed({
                aud: 'https://other.example',
                resource: context.resourceUrl,
                client_id: 'enterprise',
                exp: 4e9,
              }),
          },
        },
        { name: 'p', reconnect: false },
      ),
    ).rejects.toThrow(/invalid_grant/)
  })

  it('Y5.18: the file store is 0600 in a 0700 directory, and a second set reuses its token without asking', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tooltx-oauth-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'tooltx', 'mcp-oauth.json')
    const servers = await startOAuthServers()
    const user = browser()
    const first = await imported({
      url: servers.mcp,
      auth: { onAuthorizationUrl: user.open, store: fileTokenStore(file) },
    })
    await first.set.close()
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    const record = JSON.parse(readFileSync(file, 'utf8'))[servers.mcp.href]
    expect(record.tokens.access_token).toEqual(expect.any(String))
    const second = await imported({
      url: servers.mcp,
      auth: { onAuthorizationUrl: user.open, store: fileTokenStore(file) },
    })
    expect(textOf(await second.call('mcp__protected__whoami'))).toMatch(/scope mcp:tools$/)
    expect(user.opened).toHaveLength(1)
  })

  it('Y5.15: tokens stored for one server are never sent to another, even on the same store', async () => {
    const store = memoryTokenStore()
    const a = await startOAuthServers()
    const b = await startOAuthServers()
    await imported({ url: a.mcp, auth: { grant: 'client_credentials', ...MACHINE, store } })
    const { call } = await imported({ url: b.mcp, auth: { grant: 'client_credentials', ...MACHINE, store } })
    expect(textOf(await call('mcp__protected__whoami'))).toBe('client machine scope mcp:tools')
    // b's authorization server issued b's token: a's token was never presented to b.
    expect((await b.asLog()).filter((e) => e.endpoint === 'token')).toHaveLength(1)
    expect(await store.load(a.mcp.href)).not.toEqual(await store.load(b.mcp.href))
  })

  it('Y5.16: a redirect to another origin is not followed with the token', async () => {
    const spy = await startOAuthServers()
    const servers = await startOAuthServers({ rs: { redirectTo: spy.mcp.href } })
    await expect(
      mcpTools(
        { url: servers.mcp, auth: { grant: 'client_credentials', ...MACHINE } },
        { name: 'p', reconnect: false },
      ),
    ).rejects.toThrow(/Redirect to .* not followed/)
    expect(await servers.seen()).not.toEqual([])
    expect(await spy.seen()).toEqual([])
  })

  it('Y5.17: protected-resource metadata naming another resource is refused before any token request', async () => {
    const servers = await startOAuthServers({ rs: { resource: 'http://127.0.0.1:1/elsewhere' } })
    await expect(
      mcpTools(
        { url: servers.mcp, auth: { grant: 'client_credentials', ...MACHINE } },
        { name: 'p', reconnect: false },
      ),
    ).rejects.toThrow(/resource/i)
    expect((await servers.asLog()).filter((e) => e.endpoint === 'token')).toEqual([])
  })

  it('Y5.1: a bad auth option throws INVALID_DEFINITION before connecting', async () => {
    const url = 'http://127.0.0.1:9/mcp'
    const bad = async (auth: unknown) =>
      mcpTools({ url, auth: auth as HttpConnection['auth'] }, { name: 'p' })
    await expect(bad({})).rejects.toThrow(/^mcpTools: auth\.onAuthorizationUrl must be a function/)
    await expect(bad({ grant: 'password' })).rejects.toThrow(/^mcpTools: auth\.grant must be/)
    await expect(bad({ grant: 'jwt_bearer', clientId: 'x', clientSecret: 's' })).rejects.toThrow(
      /^mcpTools: auth\.assertion must be a function/,
    )
    await expect(bad({ grant: 'client_credentials', clientId: 'x' })).rejects.toThrow(
      /clientId and one of clientSecret and privateKey/,
    )
    await expect(
      bad({ grant: 'client_credentials', clientId: 'x', clientSecret: 's', privateKey: 'k' }),
    ).rejects.toThrow(/one of clientSecret and privateKey/)
    await expect(bad({ onAuthorizationUrl: () => {}, redirectPort: 70_000 })).rejects.toThrow(/redirectPort/)
    await expect(bad({ onAuthorizationUrl: () => {}, store: {} })).rejects.toThrow(/store must have/)
    await expect(bad(null)).rejects.toMatchObject({
      code: 'INVALID_DEFINITION',
      message: expect.stringMatching(/^mcpTools: auth must be an object/),
    })
  })
})
