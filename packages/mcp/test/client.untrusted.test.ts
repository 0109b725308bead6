/**
 * An untrusted server's schemas, answers and failure codes (Y2.15–Y2.20), against a real
 * hostile server process over stdio and over Streamable HTTP on loopback.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createToolRuntime, type JsonValue, type ToolResult } from '@tooltx/core'
import { mcpTools } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, fixture, stdoutLines } from './mcp.fixtures.js'

afterEach(cleanupAll)

const hostile = { command: process.execPath, args: [fixture('hostile-server.mjs'), 'stdio'] }
const fast = { attempts: 3, initialDelayMs: 20 }

/** The hostile server over Streamable HTTP answering with JSON bodies or event streams. */
async function startHttp(mode: 'json' | 'sse'): Promise<URL> {
  const child: ChildProcess = spawn(process.execPath, [fixture('hostile-server.mjs'), mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(() => child.kill())
  return new URL((JSON.parse(await stdoutLines(child).first) as { url: string }).url)
}

async function imported(connection: Parameters<typeof mcpTools>[0], options: Parameters<typeof mcpTools>[1]) {
  const set = await mcpTools(connection, options)
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  let n = 0
  const call = (name: string, args: JsonValue = {}) =>
    runtime.execute({ callId: `c${++n}`, name, arguments: args, signal: new AbortController().signal })
  return { set, runtime, call }
}

const codeOf = (r: ToolResult) => (r.isError ? r.error.info.code : 'ok')
const messageOf = (r: ToolResult) => (r.isError ? r.error.message : '')
const textOf = (r: ToolResult) => (r.content[0] as { text?: string } | undefined)?.text

async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25))
  return check()
}

describe('Y2.15–Y2.17 a server schema is untrusted input', () => {
  it('Y2.15: a backtracking pattern (^(a+)+$) is matched in linear time, by the tooltx validator and by ajv', async () => {
    const { call } = await imported(hostile, { name: 'h' })
    const evil = `${'a'.repeat(40)}!`
    const started = Date.now()
    const subset = await call('mcp__h__redos', { s: evil })
    expect([codeOf(subset), messageOf(subset)]).toEqual([
      'INVALID_ARGS',
      'invalid arguments: "s" must match the pattern "^(a+)+$"',
    ])
    const outside = await call('mcp__h__redos_ajv', { s: evil, [`${'b'.repeat(40)}!`]: 1 })
    expect(codeOf(outside)).toBe('INVALID_ARGS')
    expect(messageOf(outside)).toContain('"s" must match pattern "^(a|aa)+$"')
    // A backtracking engine needs about 2^40 steps for each of these; RE2 answers at once.
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(textOf(await call('mcp__h__redos', { s: 'aaaa' }))).toBe('redos {"s":"aaaa"}')
    expect(textOf(await call('mcp__h__redos_ajv', { s: 'aaa', bbb: 'x' }))).toBe(
      'redos_ajv {"s":"aaa","bbb":"x"}',
    )
    const typed = await call('mcp__h__redos_ajv', { bb: 2 })
    expect(messageOf(typed)).toBe('invalid arguments: "bb" must be string')
  })

  it('Y2.16: a pattern RE2 cannot run (backreference, lookahead) keeps the tool out, naming the tool and the pattern', async () => {
    const { set } = await imported(hostile, { name: 'h' })
    const names = set.tools.map((t) => t.name)
    expect(names).not.toContain('mcp__h__backref')
    expect(names).not.toContain('mcp__h__lookahead')
    const skipped = Object.fromEntries(set.skipped.map((s) => [s.tool, s]))
    expect(skipped.backref).toMatchObject({ tool: 'backref', name: 'mcp__h__backref' })
    expect(skipped.backref!.reason).toMatch(
      /^its schema is refused: the pattern "\^\(a\)\\\\1\$" cannot be matched in linear time \(RE2: .+\); tooltx runs only RE2 patterns \(no backreferences or lookarounds\) from a server$/,
    )
    expect(skipped.lookahead!.reason).toContain('the pattern "^(?=x)x$" cannot be matched in linear time')
  })

  it('Y2.17: one schema $id compiles again and again: two servers, a re-list, a reconnection', async () => {
    const one = await imported(hostile, { name: 'h1', reconnect: fast })
    const two = await imported(hostile, { name: 'h2' })
    const tooSmall = 'invalid arguments: "n" must be >= 1'
    for (const [server, { call }] of [
      ['h1', one],
      ['h2', two],
    ] as const) {
      expect(messageOf(await call(`mcp__${server}__with_id`, { n: 0 }))).toBe(tooSmall)
      expect(textOf(await call(`mcp__${server}__with_id`, { n: 2 }))).toBe('with_id {"n":2}')
    }
    // A re-list compiles every schema of the listing again.
    expect(textOf(await one.call('mcp__h1__relist'))).toBe('extra true')
    expect(await until(() => one.set.tools.some((t) => t.name === 'mcp__h1__extra'))).toBe(true)
    expect(one.set.skipped.map((s) => s.tool)).toEqual(['backref', 'lookahead', 'refers'])
    expect(messageOf(await one.call('mcp__h1__with_id', { n: 0 }))).toBe(tooSmall)
    // A reconnection spawns the server again and lists it again.
    expect(codeOf(await one.call('mcp__h1__die'))).toBe('MCP_CONNECTION_CLOSED')
    expect(textOf(await one.call('mcp__h1__with_id', { n: 3 }))).toBe('with_id {"n":3}')
    expect(one.set.tools.map((t) => t.name)).toContain('mcp__h1__with_id')
    expect(one.set.skipped.map((s) => s.tool)).toEqual(['backref', 'lookahead', 'refers'])
    // A $ref to another schema's $id never reaches it: every schema is compiled alone.
    expect(two.set.skipped.find((s) => s.tool === 'refers')?.reason).toMatch(
      /^its schema cannot be compiled: can't resolve reference https:\/\/example\.com\/schemas\/shared-args/,
    )
  })
})

describe('Y2.18 every transport bounds one answer', () => {
  const tooLarge = (tool: string) =>
    `MCP server "h" tool "${tool}": the connection closed before it answered (the server sent a message of more than 65536 bytes (maxMessageBytes)); the call's outcome is unknown`

  it.each(['json', 'sse'] as const)(
    'Y2.18: over Streamable HTTP (%s answers) a message over maxMessageBytes fails MCP_CONNECTION_CLOSED saying so; the next call reconnects',
    async (mode) => {
      const url = await startHttp(mode)
      const { call } = await imported({ url, maxMessageBytes: 64 * 1024 }, { name: 'h', reconnect: fast })
      expect(textOf(await call('mcp__h__huge', { bytes: 60_000 }))?.length).toBe(60_000)
      const refused = await call('mcp__h__huge', { bytes: 1_000_000 })
      expect([codeOf(refused), messageOf(refused)]).toEqual(['MCP_CONNECTION_CLOSED', tooLarge('huge')])
      expect(textOf(await call('mcp__h__fine'))).toBe('fine {}')
    },
  )

  it('Y2.18: over stdio the same bound gives the same failure', async () => {
    const { call } = await imported(
      { ...hostile, maxMessageBytes: 64 * 1024 },
      { name: 'h', reconnect: fast },
    )
    const refused = await call('mcp__h__huge', { bytes: 1_000_000 })
    expect([codeOf(refused), messageOf(refused)]).toEqual(['MCP_CONNECTION_CLOSED', tooLarge('huge')])
    expect(textOf(await call('mcp__h__fine'))).toBe('fine {}')
  })

  it('Y2.18: a maxMessageBytes that is not a positive integer throws INVALID_DEFINITION', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '1000'])
      await expect(
        mcpTools({ ...hostile, maxMessageBytes: bad as number }, { name: 'h' }),
      ).rejects.toMatchObject({
        code: 'INVALID_DEFINITION',
        message: 'mcpTools: maxMessageBytes must be a positive integer number of bytes',
      })
  })
})

describe('Y2.19, Y2.20 a remote failure carries a remote code', () => {
  it("Y2.19, E1.8: an untrusted server's failure is MCP_REMOTE_ERROR, whatever tooltx code it names", async () => {
    const { call } = await imported(hostile, { name: 'h' })
    const denied = await call('mcp__h__claims_denied')
    expect(denied).toMatchObject({
      isError: true,
      error: {
        message: 'a policy denied this call (server code: DENIED)',
        info: { code: 'MCP_REMOTE_ERROR', name: 'McpRemoteError' },
      },
    })
    const effect = await call('mcp__h__claims_effect')
    expect([codeOf(effect), messageOf(effect)]).toEqual([
      'MCP_REMOTE_ERROR',
      'the effect was recorded (server code: TOOL_EFFECT_RECORDED)',
    ])
    // A JSON-RPC error answer is remote too.
    const rpc = await call('mcp__h__rpc_error')
    expect([codeOf(rpc), messageOf(rpc)]).toEqual([
      'MCP_REMOTE_ERROR',
      'MCP server "h" tool "rpc_error" answered with error -32603: the backend is down',
    ])
  })

  it("Y2.20: a trusted server's failure keeps the tooltx code and name it names", async () => {
    const { call } = await imported(hostile, { name: 'h', trusted: true })
    const denied = await call('mcp__h__claims_denied')
    expect(denied).toMatchObject({
      error: {
        message: 'a policy denied this call',
        info: { code: 'DENIED', name: 'ToolDeniedError' },
      },
    })
    const effect = await call('mcp__h__claims_effect')
    expect(effect).toMatchObject({
      error: { info: { code: 'TOOL_EFFECT_RECORDED', name: 'ToolEffectRecordedError' } },
    })
  })
})
