import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { createToolRuntime, type JsonValue, type ToolResult } from '@tooltx/core'
import { type McpToolSet, mcpTools } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, fixture, progressSteps, startHttpFixture } from './mcp.fixtures.js'

afterEach(cleanupAll)

const require = createRequire(import.meta.url)
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`))
const everything = {
  command: process.execPath,
  args: [path.join(packageDir('@modelcontextprotocol/server-everything'), 'dist/index.js'), 'stdio'],
  stderr: 'ignore' as const,
}
const odd = { command: process.execPath, args: [fixture('odd-server.mjs')] }
const tooltxStdio = { command: process.execPath, args: [fixture('tooltx-server.mjs'), 'stdio'] }

async function imported(connection: Parameters<typeof mcpTools>[0], options: Parameters<typeof mcpTools>[1]) {
  const set = await mcpTools(connection, options)
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  let n = 0
  const call = (name: string, args: JsonValue = {}, signal = new AbortController().signal) =>
    runtime.execute({ callId: `c${++n}`, name, arguments: args, signal })
  return { set, runtime, call }
}

const codeOf = (r: ToolResult) => (r.isError ? r.error.info.code : 'ok')
const messageOf = (r: ToolResult) => (r.isError ? r.error.message : '')

describe('Y2 importing a server: server-everything over stdio', () => {
  it('Y2.1, Y2.2: every tool is imported as mcp__<server>__<tool>, in the server order', async () => {
    const { set } = await imported(everything, { name: 'every thing' })
    const names = set.tools.map((t) => t.name)
    expect(names).toContain('mcp__every_thing__echo')
    expect(names).toContain('mcp__every_thing__get-sum')
    expect(names).toContain('mcp__every_thing__get-tiny-image')
    const remote = (await set.client.listTools()).tools.map((t) => `mcp__every_thing__${t.name}`)
    expect(names).toEqual(remote)
    expect(set.skipped).toEqual([])
  })

  it('Y2.3, Y2.6: a call goes through the runtime and the content is mapped (text, image)', async () => {
    const { call } = await imported(everything, { name: 'everything' })
    const echo = await call('mcp__everything__echo', { message: 'hi' })
    expect(echo).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: hi' }] })
    expect(echo.isError === false && echo.value).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] })
    const image = await call('mcp__everything__get-tiny-image')
    expect(image.content.find((b) => b.type === 'image')).toMatchObject({
      type: 'image',
      mediaType: 'image/png',
      data: expect.stringMatching(/^iVBOR/),
    })
  })

  it('Y2.4: arguments are validated against the server schema before the call leaves', async () => {
    const { call } = await imported(everything, { name: 'everything' })
    const bad = await call('mcp__everything__get-sum', { a: 'one' })
    expect(codeOf(bad)).toBe('INVALID_ARGS')
    expect(messageOf(bad)).toBe('invalid arguments: missing required property "b"; "a" must be a number')
    const sum = await call('mcp__everything__get-sum', { a: 2, b: 3 })
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }])
  })

  it('Y2.5: structuredContent is checked against the outputSchema and kept in the value', async () => {
    const { call } = await imported(everything, { name: 'everything' })
    const weather = await call('mcp__everything__get-structured-content', { location: 'Chicago' })
    expect(codeOf(weather)).toBe('ok')
    const value = (weather as unknown as { value: { structuredContent: Record<string, unknown> } }).value
    expect(value.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    })
  })

  it('Y2.7: imported tools are exclusive unless the server is trusted, then read-only ones are parallel', async () => {
    const plain = await imported(everything, { name: 'everything' })
    const mode = (r: typeof plain, tool: string) =>
      r.runtime.view().executionMode({ name: tool, arguments: {} })
    expect(mode(plain, 'mcp__everything__echo')).toBe('exclusive')
    const trusted = await imported(everything, { name: 'everything', trusted: true })
    expect(mode(trusted, 'mcp__everything__echo')).toBe('parallel')
    expect(mode(trusted, 'mcp__everything__toggle-simulated-logging')).toBe('exclusive')
  })

  it("F1.7: only a trusted server's annotations set the effect class of its imported tools", async () => {
    const effect = (r: Awaited<ReturnType<typeof imported>>, tool: string) =>
      r.runtime.view().get(tool)?.effect
    const plain = await imported(everything, { name: 'everything' })
    expect(effect(plain, 'mcp__everything__echo')).toBe(undefined)
    const trusted = await imported(everything, { name: 'everything', trusted: true })
    expect(effect(trusted, 'mcp__everything__echo')).toBe('read')
    expect(effect(trusted, 'mcp__everything__toggle-simulated-logging')).toBe('write')
  })

  it('H1.5: results of an untrusted server carry { integrity: "untrusted" }; a trusted server\'s carry no label', async () => {
    const plain = await imported(everything, { name: 'everything' })
    expect((await plain.call('mcp__everything__echo', { message: 'hi' })).provenance).toEqual({
      integrity: 'untrusted',
    })
    const trusted = await imported(everything, { name: 'everything', trusted: true })
    expect('provenance' in (await trusted.call('mcp__everything__echo', { message: 'hi' }))).toBe(false)
  })

  it('Y2.9: remote progress notifications reach runtime.onProgress', async () => {
    const { runtime, call } = await imported(everything, { name: 'everything' })
    const updates: JsonValue[] = []
    runtime.onProgress((_exec, update) => updates.push(update))
    const result = await call('mcp__everything__trigger-long-running-operation', { duration: 0.3, steps: 3 })
    expect(codeOf(result)).toBe('ok')
    // The server does not wait for its last notification before answering; what arrived is a prefix.
    const sequence = [1, 2, 3].map((progress) => ({ progress, total: 3 }))
    expect(updates.length).toBeGreaterThanOrEqual(1)
    expect(updates).toEqual(sequence.slice(0, updates.length))
  })
})

describe('Y2 importing a server: server-filesystem over stdio', () => {
  it('Y2.3, Y2.5, Y2.6, Y2.19: reads through the runtime; the server refusing a path is MCP_REMOTE_ERROR with its text', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tooltx-mcp-fs-')))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\n')
    const server = path.join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist/index.js')
    const { set, call } = await imported(
      { command: process.execPath, args: [server, dir], stderr: 'ignore' },
      { name: 'fs' },
    )
    expect(set.tools.map((t) => t.name)).toContain('mcp__fs__read_text_file')
    const read = await call('mcp__fs__read_text_file', { path: path.join(dir, 'a.txt') })
    expect(read).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'alpha\nbeta\n' }],
      value: { structuredContent: { content: 'alpha\nbeta\n' } },
    })
    const outside = await call('mcp__fs__read_text_file', { path: '/etc/hostname' })
    expect(codeOf(outside)).toBe('MCP_REMOTE_ERROR')
    expect(messageOf(outside)).toBe(
      `Access denied - path outside allowed directories: /etc/hostname not in ${dir}`,
    )
  })
})

describe('Y2 importing a misbehaving server', () => {
  it('Y2.2: names that collide after sanitizing are reported, the first one kept', async () => {
    const { set } = await imported(odd, { name: 'odd' })
    expect(set.tools.map((t) => t.name)).toContain('mcp__odd__a_b')
    expect(set.skipped).toEqual([
      { tool: 'a_b', name: 'mcp__odd__a_b', reason: 'its name collides with remote tool "a.b"' },
    ])
  })

  it('Y2.4: a schema outside the tooltx subset is enforced with ajv', async () => {
    const { call } = await imported(odd, { name: 'odd' })
    const bad = await call('mcp__odd__picky', { code: 'abc' })
    expect(messageOf(bad)).toBe('invalid arguments: "code" must match pattern "^[A-Z]{3}$"')
    expect((await call('mcp__odd__picky', { code: 'ABC' })).content).toEqual([
      { type: 'text', text: 'code ABC' },
    ])
  })

  it('Y2.5: invalid or missing structuredContent is INVALID_TOOL_OUTPUT', async () => {
    const { call } = await imported(odd, { name: 'odd' })
    const bad = await call('mcp__odd__bad_output')
    expect(codeOf(bad)).toBe('INVALID_TOOL_OUTPUT')
    expect(messageOf(bad)).toBe(
      'MCP tool "bad_output" returned invalid structuredContent: "value.x" must be a number',
    )
    const none = await call('mcp__odd__no_structured')
    expect(codeOf(none)).toBe('INVALID_TOOL_OUTPUT')
    expect(messageOf(none)).toBe(
      'MCP tool "no_structured" declares an output schema but returned no structuredContent',
    )
    const good = await call('mcp__odd__good_output')
    expect(good).toMatchObject({
      isError: false,
      value: { content: [{ type: 'text', text: 'x is 1' }], structuredContent: { x: 1 } },
    })
  })

  it('Y2.6, Y2.19: a remote isError is MCP_REMOTE_ERROR with its text; image, resource and audio map to tooltx blocks', async () => {
    const { call } = await imported(odd, { name: 'odd' })
    const failed = await call('mcp__odd__fails')
    expect(codeOf(failed)).toBe('MCP_REMOTE_ERROR')
    expect(messageOf(failed)).toBe('the disk is full')
    const mixed = await call('mcp__odd__mixed')
    expect(mixed.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      { type: 'resource', uri: 'file:///a.txt', text: 'inside a' },
      { type: 'audio', data: 'AAAA', mediaType: 'audio/wav' },
    ])
  })

  it('Y2.8: the per-tool timeout ends the call TOOL_TIMEOUT and sends notifications/cancelled', async () => {
    const { call } = await imported(odd, { name: 'odd', timeoutMs: 30_000, toolTimeouts: { hang: 200 } })
    const started = Date.now()
    const hung = await call('mcp__odd__hang')
    expect(codeOf(hung)).toBe('TOOL_TIMEOUT')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect((await call('mcp__odd__cancelled')).content).toEqual([{ type: 'text', text: '1' }])
  })

  it('Y2.8: cancelling the caller signal sends notifications/cancelled and ends ABORTED', async () => {
    const { call } = await imported(odd, { name: 'odd' })
    const controller = new AbortController()
    const pending = call('mcp__odd__hang', {}, controller.signal)
    setTimeout(() => controller.abort(), 100)
    expect(codeOf(await pending)).toBe('ABORTED')
    expect((await call('mcp__odd__cancelled')).content).toEqual([{ type: 'text', text: '1' }])
  })

  it('Y2.9: a server flooding 5,000 progress notifications: the updates arrive in order, then the result', async () => {
    const { call, runtime } = await imported(odd, { name: 'odd' })
    const seen: number[] = []
    runtime.onProgress((_exec, update) => seen.push((update as { progress: number }).progress))
    const result = await call('mcp__odd__flood')
    expect(result.content).toEqual([{ type: 'text', text: 'flooded' }])
    // The SDK drops the notifications it reads in the same chunk as the answer (it forgets the
    // progress handler with the answer), so what arrives is the first updates, in order.
    expect(seen.length).toBeGreaterThan(1000)
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1))
    expect((await call('mcp__odd__good_output')).content).toEqual([{ type: 'text', text: 'x is 1' }])
  })

  it('Y2.13: a 10 MB answer over the default limit fails MCP_CONNECTION_CLOSED, never hanging; a raised limit takes it whole', async () => {
    const small = await imported(odd, { name: 'odd', reconnect: false })
    const refused = await small.call('mcp__odd__huge')
    expect(codeOf(refused)).toBe('MCP_CONNECTION_CLOSED')
    expect(codeOf(await small.call('mcp__odd__good_output'))).toBe('MCP_CONNECTION_CLOSED')
    const large = await imported({ ...odd, maxMessageBytes: 32 * 1024 * 1024 }, { name: 'odd' })
    const huge = await large.call('mcp__odd__huge')
    // The value keeps all of it; what the model reads is capped by the content-size policy (P11.8).
    const whole = (huge.isError ? undefined : (huge.value as { content: { text: string }[] }))?.content[0]
      ?.text
    expect([codeOf(huge), whole?.length, /^x+$/.test(whole ?? '')]).toEqual(['ok', 10 * 1024 * 1024, true])
    const shown = (huge.content[0] as { text: string }).text
    const marker = /\n\[content truncated: showing (\d+) of 10485760 bytes\]$/.exec(shown)
    const kept = Number(marker?.[1])
    expect([kept <= 262_144, shown.length - (marker?.[0].length ?? 0) === kept]).toEqual([true, true])
    expect((await large.call('mcp__odd__good_output')).content).toEqual([{ type: 'text', text: 'x is 1' }])
  })

  it('Y2.8: a server that dies mid-call gives MCP_CONNECTION_CLOSED, and so does every later call', async () => {
    const { call } = await imported(odd, { name: 'odd', reconnect: false })
    const died = await call('mcp__odd__die')
    expect(codeOf(died)).toBe('MCP_CONNECTION_CLOSED')
    expect(messageOf(died)).toBe(
      `MCP server "odd" tool "die": the connection closed before it answered; the call's outcome is unknown`,
    )
    const later = await call('mcp__odd__good_output')
    expect(codeOf(later)).toBe('MCP_CONNECTION_CLOSED')
    expect(messageOf(later)).toBe(
      'MCP server "odd" tool "good_output": the connection is closed; the call was not sent',
    )
  })
})

describe('Y2.10 round trip: tooltx server → tooltx client', () => {
  async function roundTrip(set: Promise<McpToolSet>) {
    const tools = await set
    cleanups.push(() => tools.close())
    const runtime = createToolRuntime()
    tools.register(runtime)
    const call = (name: string, args: JsonValue) =>
      runtime.execute({ callId: name, name, arguments: args, signal: new AbortController().signal })
    return { tools, call, runtime }
  }

  it.each(['stdio', 'http'] as const)(
    'Y2.10, Y2.20: over %s a trusting client gets the served result: content, value, codes',
    async (kind) => {
      const connection = kind === 'stdio' ? tooltxStdio : { url: (await startHttpFixture()).url }
      const { tools, call } = await roundTrip(mcpTools(connection, { name: 'tx', trusted: true }))
      expect(tools.tools.map((t) => t.name)).toEqual([
        'mcp__tx__add',
        'mcp__tx__deploy',
        'mcp__tx__read_note',
        'mcp__tx__results',
        'mcp__tx__shout',
        'mcp__tx__slow',
        'mcp__tx__toggle',
      ])
      const sum = await call('mcp__tx__add', { a: 2, b: 3 })
      expect(sum).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '2 + 3 = 5' }],
        value: { content: [{ type: 'text', text: '2 + 3 = 5' }], structuredContent: { sum: 5 } },
      })
      // The served schema is inside the subset, so the client's message is the server's own.
      const bad = await call('mcp__tx__add', { a: 'two' })
      expect(codeOf(bad)).toBe('INVALID_ARGS')
      expect(messageOf(bad)).toBe('invalid arguments: missing required property "b"; "a" must be an integer')
      const denied = await call('mcp__tx__read_note', { name: 'secret' })
      expect(codeOf(denied)).toBe('DENIED')
      expect(messageOf(denied)).toContain('secret notes are off limits')
    },
  )

  it.each(['stdio', 'http'] as const)(
    'Y2.12: over %s a list_changed re-imports the listing into every registered target, both ways',
    async (kind) => {
      const connection = kind === 'stdio' ? tooltxStdio : { url: (await startHttpFixture()).url }
      const { tools, call, runtime } = await roundTrip(mcpTools(connection, { name: 'tx' }))
      const scoped = createToolRuntime()
      const scope = scoped.scope()
      tools.register(scope)
      const has = (rt: typeof runtime, name: string) =>
        rt.view(rt === scoped ? scope : undefined).get(name) !== undefined
      const until = async (check: () => boolean) => {
        for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25))
        return check()
      }
      expect(has(runtime, 'mcp__tx__extra')).toBe(false)
      expect((await call('mcp__tx__toggle', {})).content).toEqual([{ type: 'text', text: 'true' }])
      expect(await until(() => has(runtime, 'mcp__tx__extra') && has(scoped, 'mcp__tx__extra'))).toBe(true)
      expect(tools.tools.map((t) => t.name)).toContain('mcp__tx__extra')
      expect((await call('mcp__tx__extra', {})).content).toEqual([{ type: 'text', text: 'extra' }])
      await call('mcp__tx__toggle', {})
      expect(await until(() => !has(runtime, 'mcp__tx__extra') && !has(scoped, 'mcp__tx__extra'))).toBe(true)
      expect(has(runtime, 'mcp__tx__add')).toBe(true)
    },
  )

  it('Y2.9, Y2.10: progress of a served tool arrives at the client runtime, update for update', async () => {
    const { call, runtime } = await roundTrip(mcpTools(tooltxStdio, { name: 'tx' }))
    const updates: JsonValue[] = []
    runtime.onProgress((_exec, update) => updates.push(update))
    // A short wait before the answer: the SDK client drops progress it reads in one chunk with the answer (Y2.9).
    const result = await call('mcp__tx__slow', { steps: 3, waitMs: 50 })
    expect(result.content).toEqual([{ type: 'text', text: 'done' }])
    expect(updates).toEqual(progressSteps(3, 'step'))
  })
})
