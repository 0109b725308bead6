/**
 * Reconnection (Y2.14) against a real tooltx server process that the tests kill and start again,
 * over Streamable HTTP (same port) and stdio (the client spawns the command again).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createToolRuntime, type ToolResult } from '@tooltx/core'
import { mcpTools } from '@tooltx/mcp'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { backoffDelay, DEFAULT_BACKOFF } from '../src/client/backoff.js'
import { cleanupAll, cleanups, fixture } from './mcp.fixtures.js'

afterEach(cleanupAll)

const codeOf = (r: ToolResult) => (r.isError ? r.error.info.code : 'ok')
const messageOf = (r: ToolResult) => (r.isError ? r.error.message : '')
const textOf = (r: ToolResult) => (r.content[0] as { text?: string } | undefined)?.text

/** A port that was free a moment ago, for a server started again on the same address. */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** Starts generation `generation` of the HTTP server on `port`; resolves once it listens. */
async function startHttp(port: number, generation: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [fixture('restartable-server.mjs'), 'http', String(port), String(generation)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  cleanups.push(() => child.kill('SIGKILL'))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return child
}

const died = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  )

async function importInto(
  connection: Parameters<typeof mcpTools>[0],
  options: Parameters<typeof mcpTools>[1],
) {
  const set = await mcpTools(connection, options)
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  let n = 0
  const call = (name: string, signal = new AbortController().signal) =>
    runtime.execute({ callId: `c${++n}`, name: `mcp__r__${name}`, arguments: {}, signal })
  return { set, runtime, call }
}

const require = createRequire(import.meta.url)
const everything = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
)

const fast = { attempts: 3, initialDelayMs: 50, factor: 2, maxDelayMs: 200 }

describe('Y2.14 reconnecting to a server that died', () => {
  it('Y2.14: backoff waits grow by the factor from the initial delay, capped, none before the first attempt', () => {
    fc.assert(
      fc.property(
        fc.record({
          attempts: fc.integer({ min: 1, max: 20 }),
          initialDelayMs: fc.integer({ min: 1, max: 10_000 }),
          factor: fc.double({ min: 1, max: 5, noNaN: true }),
          maxDelayMs: fc.integer({ min: 1, max: 60_000 }),
        }),
        (backoff) => {
          const waits = Array.from({ length: backoff.attempts }, (_, i) => backoffDelay(backoff, i + 1))
          expect(waits[0]).toBe(0)
          for (let i = 1; i < waits.length; i++) {
            expect(waits[i]).toBe(
              Math.min(backoff.maxDelayMs, backoff.initialDelayMs * backoff.factor ** (i - 1)),
            )
            if (i > 1) expect(waits[i]! >= waits[i - 1]!).toBe(true)
          }
        },
      ),
    )
    expect(Array.from({ length: 5 }, (_, i) => backoffDelay(DEFAULT_BACKOFF, i + 1))).toEqual([
      0, 250, 500, 1000, 2000,
    ])
  })

  it('Y2.14: over HTTP a call in flight fails MCP_CONNECTION_CLOSED; while down calls fail not sent; a restarted server is reconnected and re-listed', async () => {
    const port = await freePort()
    let server = await startHttp(port, 1)
    const { set, runtime, call } = await importInto(
      { url: `http://127.0.0.1:${port}/mcp` },
      { name: 'r', reconnect: fast },
    )
    expect(textOf(await call('whoami'))).toMatch(/^generation 1 pid \d+$/)
    expect(set.tools.map((t) => t.name)).toEqual(['mcp__r__hang', 'mcp__r__whoami'])

    const inFlight = call('hang')
    await new Promise((resolve) => setTimeout(resolve, 200))
    const t0 = Date.now()
    server.kill('SIGKILL')
    const broken = await inFlight
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect([codeOf(broken), messageOf(broken)]).toEqual([
      'MCP_CONNECTION_CLOSED',
      `MCP server "r" tool "hang": the connection closed before it answered; the call's outcome is unknown`,
    ])

    const down = await call('whoami')
    expect(codeOf(down)).toBe('MCP_CONNECTION_CLOSED')
    expect(messageOf(down)).toMatch(
      /^MCP server "r" tool "whoami": the server could not be reached again \(3 attempts: .+\); the call was not sent$/,
    )

    server = await startHttp(port, 2)
    expect(textOf(await call('whoami'))).toMatch(/^generation 2 pid \d+$/)
    // The new server lists another tool: the reconnection re-imported the listing into the runtime.
    expect(set.tools.map((t) => t.name)).toEqual(['mcp__r__added', 'mcp__r__hang', 'mcp__r__whoami'])
    expect(textOf(await call('added'))).toBe('added')
    expect(runtime.view().get('mcp__r__added')).toBeDefined()
  })

  it('Y2.14: a call made while the server is down waits for the reconnection and is sent once it is back', async () => {
    const port = await freePort()
    const server = await startHttp(port, 1)
    const { call } = await importInto(
      { url: `http://127.0.0.1:${port}/mcp` },
      { name: 'r', reconnect: { attempts: 8, initialDelayMs: 100, factor: 1.5, maxDelayMs: 400 } },
    )
    await call('whoami')
    const hang = call('hang')
    await new Promise((resolve) => setTimeout(resolve, 200))
    server.kill('SIGKILL')
    await hang
    const waiting = call('whoami')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await startHttp(port, 3)
    expect(textOf(await waiting)).toMatch(/^generation 3 pid \d+$/)
  })

  it('Y2.14: a call waiting for the reconnection ends with its timeout or its signal, never hanging', async () => {
    const port = await freePort()
    const server = await startHttp(port, 1)
    const { call } = await importInto(
      { url: `http://127.0.0.1:${port}/mcp` },
      {
        name: 'r',
        timeoutMs: 400,
        reconnect: { attempts: 50, initialDelayMs: 200, factor: 1, maxDelayMs: 200 },
      },
    )
    const hang = call('hang')
    await new Promise((resolve) => setTimeout(resolve, 200))
    server.kill('SIGKILL')
    await died(server)
    await hang
    const t0 = Date.now()
    const timedOut = await call('whoami')
    expect(codeOf(timedOut)).toBe('TOOL_TIMEOUT')
    expect(Date.now() - t0).toBeLessThan(1_500)
    const controller = new AbortController()
    const aborted = call('whoami', controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect(codeOf(await aborted)).toBe('ABORTED')
  })

  it('Y2.14: over stdio a server that dies is spawned again by the next call, which re-lists its tools', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-reconnect-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const generation = path.join(dir, 'generation')
    writeFileSync(generation, '1')
    const { set, call } = await importInto(
      { command: process.execPath, args: [fixture('restartable-server.mjs'), 'stdio', generation] },
      { name: 'r', reconnect: fast },
    )
    const first = textOf(await call('whoami'))!
    const pid = Number(/pid (\d+)/.exec(first)![1])
    const inFlight = call('hang')
    await new Promise((resolve) => setTimeout(resolve, 200))
    writeFileSync(generation, '2')
    process.kill(pid, 'SIGKILL')
    expect(codeOf(await inFlight)).toBe('MCP_CONNECTION_CLOSED')
    const second = textOf(await call('whoami'))!
    expect(second).toMatch(/^generation 2 pid \d+$/)
    expect(second).not.toBe(first)
    expect(set.tools.map((t) => t.name)).toEqual(['mcp__r__added', 'mcp__r__hang', 'mcp__r__whoami'])
  })

  it('Y2.14: a restarted 2025 session server (server-everything over Streamable HTTP) gets a new session', async () => {
    const port = await freePort()
    const start = async () => {
      const child = spawn(process.execPath, [everything, 'streamableHttp'], {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      cleanups.push(() => child.kill('SIGKILL'))
      await new Promise<void>((resolve, reject) => {
        let said = ''
        child.stderr!.on('data', (chunk: Buffer) => {
          said += chunk.toString('utf8')
          if (said.includes('listening on port')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${said}`)))
      })
      return child
    }
    const first = await start()
    const set = await mcpTools({ url: `http://127.0.0.1:${port}/mcp` }, { name: 'ev', reconnect: fast })
    cleanups.push(() => set.close())
    const runtime = createToolRuntime()
    set.register(runtime)
    const echo = (message: string) =>
      runtime.execute({
        callId: message,
        name: 'mcp__ev__echo',
        arguments: { message },
        signal: new AbortController().signal,
      })
    expect((await echo('one')).content).toEqual([{ type: 'text', text: 'Echo: one' }])
    expect(set.client.getProtocolEra()).toBe('legacy')
    first.kill('SIGKILL')
    await died(first)
    await start()
    expect((await echo('two')).content).toEqual([{ type: 'text', text: 'Echo: two' }])
  })

  it('Y2.14: bad reconnect options throw INVALID_DEFINITION naming mcpTools', async () => {
    const connection = { url: 'http://127.0.0.1:1/mcp' }
    await expect(mcpTools(connection, { name: 'r', reconnect: { attempts: 0 } })).rejects.toThrow(
      'mcpTools: reconnect.attempts must be a positive integer',
    )
    await expect(mcpTools(connection, { name: 'r', reconnect: { factor: 0.5 } })).rejects.toThrow(
      'mcpTools: reconnect.factor must be a number of at least 1',
    )
    await expect(mcpTools(connection, { name: 'r', reconnect: { maxDelayMs: -1 } })).rejects.toThrow(
      'mcpTools: reconnect.maxDelayMs must be a positive number of milliseconds',
    )
  })
})
