/** `tooltx mcp serve` as a real process (needs `npm run build`), driven by the official MCP client. */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterEach, describe, expect, it } from 'vitest'
import { stdoutLines } from '../../mcp/test/mcp.fixtures.js'
import { rawInitialize } from '../../mcp/test/raw-initialize.js'

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const textOf = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((b) => b.text).join('\n')
const codeOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['tooltx/result'] as { code?: string } | undefined)?.code ?? 'ok'

async function workspaceChecks(client: Client) {
  const { tools } = await client.listTools()
  expect(tools.map((t) => t.name)).toEqual(['grep', 'list_files', 'read_file', 'run_check', 'write_note'])
  const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } })
  expect(read.isError).toBe(false)
  expect(textOf(read)).toContain('# Inventory service (sample workspace)')
  const secret = await client.callTool({ name: 'read_file', arguments: { path: '.env' } })
  expect(codeOf(secret)).toBe('DENIED')
  expect(textOf(secret)).toContain('".env" holds secrets')
  const write = await client.callTool({ name: 'write_note', arguments: { path: 'notes/x.md', text: 'x' } })
  expect(codeOf(write)).toBe('DENIED')
  expect(textOf(write)).toBe(
    'Error: tool "write_note" requires approval, but the approval channel is unavailable',
  )
}

describe('Y3 tooltx mcp serve', () => {
  it('Y3.1: serves the workspace tools with the CLI policy over stdio', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', 'serve', '--workspace', SAMPLE],
        stderr: 'ignore',
      }),
    )
    cleanups.push(() => client.close())
    await workspaceChecks(client)
  })

  it('Y3.2: --http [HOST]:PORT serves Streamable HTTP and prints where; --token requires the bearer token', async () => {
    const token = 'cli-token-0123456789abcdef'
    const child: ChildProcess = spawn(
      process.execPath,
      [BIN, 'mcp', 'serve', '--workspace', SAMPLE, '--http', ':0', '--token', token],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    cleanups.push(() => child.kill())
    const line = await stdoutLines(child).first
    expect(line).toMatch(
      /^MCP server for .*sample-workspace at http:\/\/127\.0\.0\.1:\d+\/mcp \(bearer token required\)$/,
    )
    const url = new URL(/at (\S+)/.exec(line)![1]!)
    const denied = new Client({ name: 'no-token', version: '1.0.0' })
    await expect(denied.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow()
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    cleanups.push(() => client.close())
    await workspaceChecks(client)
  })

  it('Y3.3: bad arguments are usage errors that say what to do', async () => {
    const run = promisify(execFile)
    const fail = (...args: string[]) =>
      run(process.execPath, [BIN, 'mcp', ...args]).catch((e: { code: number; stderr: string }) => e)
    expect(await fail('serve', '--http', 'nowhere')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        '--http needs [HOST]:PORT, e.g. --http :8848 or --http 127.0.0.1:8848; got "nowhere"',
      ),
    })
    expect(await fail('serve', '--token', 'abc')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--token needs --http'),
    })
    expect(await fail('launch')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('mcp needs a subcommand: serve'),
    })
  })

  it('Y3.3: TOOLTX_MCP_TOKEN set for HTTP serving does not stop serving over stdio; only the --token flag needs --http', async () => {
    // Even a token too short for --http: over stdio the variable is not read at all.
    const env = { ...process.env, TOOLTX_MCP_TOKEN: 'short' } as Record<string, string>
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', 'serve', '--workspace', SAMPLE],
        env,
        stderr: 'ignore',
      }),
    )
    cleanups.push(() => client.close())
    await workspaceChecks(client)
    const refused = await promisify(execFile)(
      process.execPath,
      [BIN, 'mcp', 'serve', '--workspace', SAMPLE, '--token', 'cli-token-0123456789abcdef'],
      { env },
    ).catch((e: { code: number; stdout: string; stderr: string }) => e)
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--token needs --http'),
    })
  })

  it('Y3.7: --http on an address beyond loopback refuses to start without a token; with one it serves only its own names', async () => {
    const run = promisify(execFile)
    const env = { ...process.env }
    delete env.TOOLTX_MCP_TOKEN
    const refuse = (...args: string[]) =>
      run(process.execPath, [BIN, 'mcp', 'serve', '--workspace', SAMPLE, ...args], { env }).catch(
        (e: { code: number; stdout: string; stderr: string }) => e,
      )
    for (const http of ['0.0.0.0:0', '192.0.2.7:0']) {
      const refused = await refuse('--http', http)
      expect(refused, http).toMatchObject({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining(`--http ${http} listens beyond this machine`),
      })
      expect((refused as { stderr: string }).stderr).toContain('pass --token T (or set TOOLTX_MCP_TOKEN)')
    }
    expect(await refuse('--http', '0.0.0.0:0', '--token', 'short')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--token (or TOOLTX_MCP_TOKEN) must be at least 16 characters, got 5'),
    })

    const token = 'wide-token-0123456789abcdef'
    const child: ChildProcess = spawn(
      process.execPath,
      [BIN, 'mcp', 'serve', '--workspace', SAMPLE, '--http', '0.0.0.0:0', '--token', token],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    cleanups.push(() => child.kill())
    const line = await stdoutLines(child).first
    expect(line).toMatch(/ at http:\/\/\S+:\d+\/mcp \(bearer token required\)$/)
    const url = new URL(/at (\S+)/.exec(line)![1]!)
    expect(url.hostname).not.toBe('0.0.0.0')
    // Over loopback only: a loopback Host is refused, the printed host is served.
    const loopback = new URL(url)
    loopback.hostname = '127.0.0.1'
    const refusedHost = new Client({ name: 'loopback-name', version: '1.0.0' })
    await expect(
      refusedHost.connect(
        new StreamableHTTPClientTransport(loopback, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      ),
    ).rejects.toThrow(/403|Host/)
    const status = await rawInitialize(new URL(`http://127.0.0.1:${url.port}${url.pathname}`), {
      host: url.host,
      authorization: `Bearer ${token}`,
    })
    expect(status).toBe(200)
  })
})
