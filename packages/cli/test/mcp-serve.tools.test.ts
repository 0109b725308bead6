/**
 * `tooltx mcp serve --tools` and `--session` as real processes (needs `npm run build`), driven by
 * the official MCP client over stdio and Streamable HTTP; the recorded session is then read by
 * `tooltx replay`, `tooltx audit` and `tooltx view`, and reopened through the session API.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { openSession, type SessionEvent, sqliteReader, sqliteStore } from '@tooltx/session'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { stdoutLines } from '../../mcp/test/mcp.fixtures.js'
import { BIN, tooltx } from './cli-harness.js'

const FIXTURES = fileURLToPath(new URL('./fixtures/mcp/', import.meta.url))
const fixture = (name: string) => path.join(FIXTURES, name)
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
let dir: string
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tooltx-mcp-serve-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const textOf = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((b) => b.text).join('\n')
const codeOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['tooltx/result'] as { code?: string } | undefined)?.code ?? 'ok'

/** `tooltx mcp serve <args>` over stdio, connected; `elicit` answers approval forms when given. */
async function stdioClient(args: string[], elicit?: (digest: string) => Record<string, unknown>) {
  const client = new Client(
    { name: 'test', version: '1.0.0' },
    elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  )
  if (elicit !== undefined)
    client.setRequestHandler('elicitation/create', (request) => {
      const schema = (
        request.params as { requestedSchema: { properties: Record<string, { default?: unknown }> } }
      ).requestedSchema
      return elicit(schema.properties.argumentsDigest!.default as string) as never
    })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', 'serve', ...args],
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  await client.connect(transport)
  cleanups.push(() => client.close())
  return { client, transport, stderr: () => stderr }
}

/** `tooltx mcp serve --http :0 <args>`: the child and the URL it printed. */
async function httpServer(
  args: string[],
): Promise<{ child: ChildProcess; url: URL; line: string; second: () => string | undefined }> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', ':0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  cleanups.push(() => child.kill('SIGKILL'))
  const stdout = stdoutLines(child)
  const line = await stdout.first
  return { child, url: new URL(/ at (\S+)/.exec(line)![1]!), line, second: () => stdout.line(1) }
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => client.close())
  return client
}

/** The child's exit code once it exits. */
const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })

async function stored(db: string, id: string): Promise<readonly SessionEvent[]> {
  const reader = sqliteReader(db)!
  try {
    return (await reader.read(id)) ?? []
  } finally {
    await reader.close()
  }
}

/** Each event as `type` plus the fields that tell the calls apart. */
const outline = (events: readonly SessionEvent[]) =>
  events.map((e) => {
    const d = e.data as unknown as Record<string, unknown>
    if (e.type === 'tool/call') return `${e.type} ${d.turn}.${d.step} ${d.name} ${d.arguments}`
    if (e.type === 'tool/result')
      return `${e.type} ${d.turn}.${d.step} ${d.name} ${(d.error as { code?: string } | undefined)?.code ?? 'ok'}`
    if (e.type === 'turn/end') return `${e.type} ${d.turn} ${d.reason}`
    if (e.type === 'approval/decided') return `${e.type} ${d.name} ${d.outcome}`
    return `${e.type} ${d.turn}${d.step === undefined ? '' : `.${d.step}`}`
  })

describe('Y3 tooltx mcp serve --tools', () => {
  it('Y3.4: serves the definitions of a module’s `tools` export over stdio', async () => {
    const { client, stderr } = await stdioClient(['--tools', fixture('array-tools.mjs')])
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['add', 'echo'])
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    expect(sum.isError).toBe(false)
    expect(textOf(sum)).toBe('5')
    const bad = await client.callTool({ name: 'add', arguments: { a: 'two' } })
    expect(codeOf(bad)).toBe('INVALID_ARGS')
    expect(stderr()).toContain(`tooltx: serving the tools of ${fixture('array-tools.mjs')} over MCP stdio`)
  })

  it('Y3.4: a default-export function registers its policy and returns its tools; served over HTTP', async () => {
    const { url, line } = await httpServer(['--tools', fixture('function-tools.mjs')])
    expect(line).toBe(`MCP server for the tools of ${fixture('function-tools.mjs')} at ${url.href}`)
    const client = await httpClient(url)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['deploy', 'wait'])
    const deploy = await client.callTool({ name: 'deploy', arguments: { service: 'api' } })
    expect(codeOf(deploy)).toBe('DENIED')
    expect(textOf(await client.callTool({ name: 'wait', arguments: { ms: 1 } }))).toBe('"waited 1 ms"')
  })

  it('Y3.6: a missing file, a module without usable exports or with a refused definition is a usage error', async () => {
    const serve = (...args: string[]) => tooltx(dir, 'mcp', 'serve', ...args)
    const missing = await serve('--tools', 'nowhere.mjs')
    expect(missing).toMatchObject({
      code: 2,
      stderr: `tooltx: cannot load the tools module nowhere.mjs: there is no file ${path.join(dir, 'nowhere.mjs')}\n`,
    })
    const shape =
      'export (as `default` or as `tools`) an array of tool definitions, or a function (runtime) => … that registers them or returns that array'
    const none = await serve('--tools', fixture('no-tools.mjs'))
    expect(none).toMatchObject({
      code: 2,
      stderr: `tooltx: the tools module ${fixture('no-tools.mjs')} exports only \`helper\`; ${shape}\n`,
    })
    const bad = await serve('--tools', fixture('bad-tool.mjs'))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(
      new RegExp(
        `^tooltx: the tools module ${fixture('bad-tool.mjs')} holds a tool the runtime refuses \\(entry 1\\): .*not a name!`,
      ),
    )
    const broken = path.join(dir, 'broken.mjs')
    writeFileSync(broken, 'export default [\n')
    const syntax = await serve('--tools', broken)
    expect(syntax.code).toBe(2)
    expect(syntax.stderr).toMatch(
      new RegExp(`^tooltx: cannot load the tools module ${broken}: ${broken}:2:1: `),
    )
    const empty = path.join(dir, 'empty.mjs')
    writeFileSync(empty, 'export default () => []\n')
    expect(await serve('--tools', empty)).toMatchObject({
      code: 2,
      stderr: `tooltx: the tools module ${empty} registered no tools, so there is nothing to serve\n`,
    })
    const throwing = path.join(dir, 'throwing.mjs')
    writeFileSync(throwing, "export default () => { throw new Error('no config') }\n")
    const threw = await serve('--tools', throwing)
    expect(threw).toMatchObject({
      code: 2,
      stderr: `tooltx: the tools module ${throwing} threw while registering: ${throwing}:1:30: no config\n`,
    })
    const text = path.join(dir, 'text.mjs')
    writeFileSync(text, "export const tools = 'add'\n")
    expect(await serve('--tools', text)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /^tooltx: the tools module .*text\.mjs gives a string; export \(as `default`/,
      ),
    })
    for (const failed of [missing, none, bad, syntax, threw]) expect(failed.stderr).not.toMatch(/^\s+at /m)
    expect(await serve('--tools', fixture('array-tools.mjs'), '--workspace', dir)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--tools serves the tools of your module and --workspace the workspace tools',
      ),
    })
    expect(await serve('--db', path.join(dir, 'x.db'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--db needs --session ID'),
    })
    expect(await serve('--session', 'no spaces')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--session: session id must match'),
    })
  })
})

describe('Y3 tooltx mcp serve --session', () => {
  it('Y3.5: every served call is one turn: tool/call before the body, tool/result after, approvals recorded', async () => {
    const db = path.join(dir, 'stdio.db')
    const answers = [
      (digest: string) => ({ action: 'accept', content: { approve: true, argumentsDigest: digest } }),
      () => ({ action: 'decline' }),
    ]
    const { client, transport, stderr } = await stdioClient(
      ['--tools', fixture('function-tools.mjs'), '--session', 'served', '--db', db],
      (digest) => answers.shift()!(digest),
    )
    expect(textOf(await client.callTool({ name: 'deploy', arguments: { service: 'api' } }))).toBe(
      '"deployed api"',
    )
    expect(codeOf(await client.callTool({ name: 'deploy', arguments: { service: 'db' } }))).toBe('DENIED')
    expect(codeOf(await client.callTool({ name: 'nope', arguments: {} }))).toBe('UNKNOWN_TOOL')
    const pid = transport.pid!
    await client.close()
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(pid, 0)
        } catch {
          clearInterval(poll)
          resolve()
        }
      }, 20)
    })
    expect(stderr()).toContain(
      `tooltx: session served now holds 3 tool calls. Replay it with: npx tooltx replay served --db ${db}`,
    )
    const events = await stored(db, 'served')
    expect(outline(events)).toEqual([
      'turn/start 1',
      'step/start 1.1',
      'assistant/message 1.1',
      'tool/call 1.1 deploy {"service":"api"}',
      'approval/asked 1.1',
      'approval/decided deploy allowed-once',
      'tool/result 1.1 deploy ok',
      'step/end 1.1',
      'turn/end 1 completed',
      'turn/start 2',
      'step/start 2.1',
      'assistant/message 2.1',
      'tool/call 2.1 deploy {"service":"db"}',
      'approval/asked 2.1',
      'approval/decided deploy rejected',
      'tool/result 2.1 deploy DENIED',
      'step/end 2.1',
      'turn/end 2 completed',
      'turn/start 3',
      'step/start 3.1',
      'assistant/message 3.1',
      'tool/call 3.1 nope {}',
      'tool/result 3.1 nope UNKNOWN_TOOL',
      'step/end 3.1',
      'turn/end 3 completed',
    ])
    const call = events[3]!.data as { callId: string }
    expect(events[2]!.data).toEqual({
      turn: 1,
      step: 1,
      content: [{ type: 'tool-call', id: call.callId, name: 'deploy', arguments: '{"service":"api"}' }],
    })
    expect(call.callId).toMatch(/^mcp_[0-9a-f-]{36}$/)

    // A second server on the same session continues its turns.
    const again = await stdioClient([
      '--tools',
      fixture('array-tools.mjs'),
      '--session',
      'served',
      '--db',
      db,
    ])
    await again.client.callTool({ name: 'echo', arguments: { text: 'hi' } })
    await again.client.close()
    await expect
      .poll(async () => outline(await stored(db, 'served')).at(-1), { timeout: 5_000 })
      .toBe('turn/end 4 completed')

    // replay, audit and the viewer read it; reopening it appends nothing (no repair needed).
    const replay = await tooltx(dir, 'replay', 'served', '--db', db)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain('deploy')
    const policy = path.join(dir, 'deny-deploy.mjs')
    writeFileSync(
      policy,
      "export default (runtime) => { runtime.onPreExecute((e, next) => e.name === 'deploy' ? { kind: 'deny', reason: 'frozen' } : next()) }\n",
    )
    const audit = await tooltx(
      dir,
      'audit',
      'served',
      '--db',
      db,
      '--policy',
      policy,
      '--tools',
      fixture('function-tools.mjs'),
      '--json',
    )
    expect(audit.code).toBe(1)
    const report = JSON.parse(audit.stdout) as { totals: Record<string, number> }
    expect(report.totals).toMatchObject({ calls: 4, changed: 1 })
    const view = spawn(process.execPath, [BIN, 'view', '--db', db, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    cleanups.push(() => view.kill())
    const site = new URL(/ at (http\S+)/.exec(await stdoutLines(view).first)![1]!).origin
    const listed = (await (await fetch(`${site}/api/sessions`)).json()) as {
      sessions: { id: string; status: string }[]
    }
    expect(listed.sessions).toMatchObject([{ id: 'served', status: 'completed' }])
    const page = (await (await fetch(`${site}/api/sessions/served`)).json()) as { lastSeq: number }
    expect(page.lastSeq).toBe(events.length + 7)
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'served', verify: true })
    expect(session.events().length).toBe(events.length + 7)
    await session.close()
    await store.close()
  })

  it('Y3.5: calls of HTTP clients are admitted one at a time, in arrival order', async () => {
    const db = path.join(dir, 'http.db')
    const { child, url, line, second } = await httpServer([
      '--tools',
      fixture('function-tools.mjs'),
      '--session',
      'web',
      '--db',
      db,
    ])
    expect(line).toBe(`MCP server for the tools of ${fixture('function-tools.mjs')} at ${url.href}`)
    await expect.poll(second).toBe(`Recording every call in session web of ${db}`)
    const [a, b] = [await httpClient(url), await httpClient(url)]
    const slow = a.callTool({ name: 'wait', arguments: { ms: 300 } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    const quick = b.callTool({ name: 'wait', arguments: { ms: 1 } })
    const done: string[] = []
    await Promise.all([slow.then((r) => done.push(textOf(r))), quick.then((r) => done.push(textOf(r)))])
    expect(done).toEqual(['"waited 300 ms"', '"waited 1 ms"'])
    child.kill('SIGTERM')
    expect(await exited(child)).toBe(0)
    expect(outline(await stored(db, 'web')).filter((e) => e.startsWith('tool/'))).toEqual([
      'tool/call 1.1 wait {"ms":300}',
      'tool/result 1.1 wait ok',
      'tool/call 2.1 wait {"ms":1}',
      'tool/result 2.1 wait ok',
    ])
  })

  it('Y3.5, Y3.6: SIGTERM mid-call records the call ABORTED and exits 0; a second writer is refused', async () => {
    const db = path.join(dir, 'stopped.db')
    const args = ['--tools', fixture('function-tools.mjs'), '--session', 'stopped', '--db', db]
    const { child, url } = await httpServer(args)
    const client = await httpClient(url)
    client.callTool({ name: 'wait', arguments: { ms: 60_000 } }).catch(() => undefined)
    await expect
      .poll(async () => outline(await stored(db, 'stopped')).at(-1), { timeout: 5_000 })
      .toBe('tool/call 1.1 wait {"ms":60000}')
    const second = await tooltx(dir, 'mcp', 'serve', '--http', ':0', ...args)
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(
      new RegExp(
        `^tooltx: cannot record in session "stopped" of ${db}: invariant violated: session "stopped" is held by another live writer`,
      ),
    )
    child.kill('SIGTERM')
    expect(await exited(child)).toBe(0)
    expect(outline(await stored(db, 'stopped')).slice(-3)).toEqual([
      'tool/result 1.1 wait ABORTED',
      'step/end 1.1',
      'turn/end 1 aborted',
    ])
  })

  it('Y3.5: a server killed mid-call leaves its tool/call durable; reopening repairs it as outcome unknown', async () => {
    const db = path.join(dir, 'killed.db')
    const { child, url } = await httpServer([
      '--tools',
      fixture('function-tools.mjs'),
      '--session',
      'killed',
      '--db',
      db,
    ])
    const client = await httpClient(url)
    client.callTool({ name: 'wait', arguments: { ms: 60_000 } }).catch(() => undefined)
    await expect
      .poll(async () => outline(await stored(db, 'killed')).at(-1), { timeout: 5_000 })
      .toBe('tool/call 1.1 wait {"ms":60000}')
    child.kill('SIGKILL')
    await exited(child)
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'killed' })
    expect(outline(session.events()).slice(-3)).toEqual([
      'tool/result 1.1 wait TOOL_OUTCOME_UNKNOWN',
      'step/end 1.1',
      'turn/end 1 interrupted',
    ])
    await session.close()
    await store.close()
  })
})
