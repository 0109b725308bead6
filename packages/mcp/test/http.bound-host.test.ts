/**
 * The `Host` allow-list of `serveHttp` follows the bound address (Y1.12, Y1.17). The server
 * binds the wildcard address, but every request goes to 127.0.0.1: only the `Host` header
 * names another address, so no traffic leaves loopback.
 */
import { hostname, networkInterfaces } from 'node:os'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import { boundHostNames, isLoopbackHost, mcpServer, serveHttp } from '../src/index.js'
import { rawInitialize } from './raw-initialize.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** Serves one tool on `host`, port 0; returns the endpoint, closed after the test. */
async function served(host: string) {
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'ping',
      description: 'Answers pong.',
      parameters: {},
      execute: () => 'pong',
    }),
  )
  const server = mcpServer(runtime, { name: 'bound', version: '1.0.0' })
  const endpoint = await serveHttp(server, { host })
  closers.push(async () => {
    await endpoint.close()
    await server.close()
  })
  return endpoint
}

/** The status of an `initialize` POST sent to 127.0.0.1:`port` with the `Host` header `host`. */
function initializeVia(port: number, host: string): Promise<number> {
  return rawInitialize(new URL(`http://127.0.0.1:${port}/mcp`), { host })
}

/** The machine's interface addresses that are not loopback, as a `Host` spells them. */
const outwardAddresses = () =>
  Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal)
    .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address))

describe('Y1.12 the Host allow-list names the bound address only', () => {
  it('Y1.12: bound to 0.0.0.0, loopback names are refused and the machine name and addresses admitted', async () => {
    const endpoint = await served('0.0.0.0')
    const port = Number(endpoint.url.port)
    for (const name of ['localhost', '127.0.0.1', '[::1]', '0.0.0.0', 'evil.example']) {
      expect(await initializeVia(port, `${name}:${port}`), name).toBe(403)
    }
    for (const name of [hostname(), ...outwardAddresses()]) {
      expect(await initializeVia(port, `${name}:${port}`), name).toBe(200)
    }
  })

  it('Y1.12: bound to loopback, the loopback names are admitted and others refused', async () => {
    const endpoint = await served('127.0.0.1')
    const port = Number(endpoint.url.port)
    for (const name of ['localhost', '127.0.0.1', '[::1]']) {
      expect(await initializeVia(port, `${name}:${port}`), name).toBe(200)
    }
    for (const name of [hostname(), '0.0.0.0', 'evil.example']) {
      expect(await initializeVia(port, `${name}:${port}`), name).toBe(403)
    }
  })

  it('Y1.12: the default lists: a specific address alone, a wildcard without any loopback name', () => {
    expect(boundHostNames('192.0.2.7')).toEqual(['192.0.2.7'])
    expect(boundHostNames('fd00::7')).toEqual(['[fd00::7]'])
    expect(boundHostNames('mcp.internal.example')).toEqual(['mcp.internal.example'])
    expect(boundHostNames('127.0.0.2')).toEqual(['localhost', '127.0.0.1', '[::1]', '127.0.0.2'])
    for (const wildcard of ['0.0.0.0', '::']) {
      const names = boundHostNames(wildcard)
      expect(names).toEqual([...new Set([hostname(), ...outwardAddresses()])])
      expect(names).not.toContain('localhost')
      expect(names).not.toContain('127.0.0.1')
    }
  })
})

describe('Y1.17 loopback, and the URL of a wildcard endpoint', () => {
  it('Y1.17: isLoopbackHost: localhost, 127.0.0.0/8 and ::1 in their spellings; nothing else', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'app.localhost',
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true)
    }
    for (const host of ['0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of [
      '0.0.0.0',
      '::',
      '192.0.2.7',
      '10.0.0.1',
      'fd00::1',
      'example.com',
      '128.0.0.1',
      '',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false)
    }
  })

  it('Y1.17: bound to a wildcard, the URL names an address the allow-list admits, not 0.0.0.0', async () => {
    const endpoint = await served('0.0.0.0')
    expect(endpoint.url.hostname).not.toBe('0.0.0.0')
    expect(boundHostNames('0.0.0.0')).toContain(endpoint.url.hostname)
  })
})
