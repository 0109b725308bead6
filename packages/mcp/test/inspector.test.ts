/**
 * `tooltx mcp serve` (the built CLI, needs `npm run build`) driven by the MCP Inspector's CLI
 * (`@modelcontextprotocol/inspector-cli`), a second client independent of our own tests' SDK
 * client: real processes over stdio and over Streamable HTTP on loopback.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { stdoutLines } from './mcp.fixtures.js'

const require = createRequire(import.meta.url)
const INSPECTOR = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build/index.js',
)
const BIN = fileURLToPath(new URL('../../cli/dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../../cli/sample-workspace', import.meta.url))
const run = promisify(execFile)
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** What the Inspector CLI printed (its JSON answer) and its exit status. */
async function inspector(...args: string[]): Promise<{ code: number; json: any; stderr: string }> {
  if (!existsSync(BIN)) throw new Error('the CLI is not built: run `npm run build` first (npm test does)')
  try {
    // It finds its own package.json relative to the working directory: run it from its build folder.
    const { stdout, stderr } = await run(process.execPath, [INSPECTOR, ...args], {
      cwd: path.dirname(INSPECTOR),
      timeout: 60_000,
    })
    return { code: 0, json: JSON.parse(stdout), stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, json: undefined, stderr: e.stderr }
  }
}

const served = [process.execPath, BIN, 'mcp', 'serve', '--workspace', SAMPLE]
const codeOf = (result: any) => result._meta?.['tooltx/result']?.code ?? 'ok'
const textOf = (result: any) => (result.content as { text: string }[]).map((b) => b.text).join('\n')

describe('Y3 tooltx mcp serve with the MCP Inspector CLI', () => {
  it('Y3.1, Y1.2, Y1.4, Y1.5: over stdio: tools/list in name order with schemas; calls go through the CLI policy', async () => {
    const list = await inspector(...served, '--method', 'tools/list')
    expect(list.code).toBe(0)
    const tools = list.json.tools as { name: string; title: string; inputSchema: { type: string } }[]
    expect(tools.map((t) => t.name)).toEqual(['grep', 'list_files', 'read_file', 'run_check', 'write_note'])
    expect(tools.find((t) => t.name === 'read_file')).toMatchObject({
      title: 'Read file',
      inputSchema: { type: 'object', required: ['path'] },
      annotations: { readOnlyHint: true },
    })

    const call = (name: string, ...pairs: string[]) =>
      inspector(...served, '--method', 'tools/call', '--tool-name', name, '--tool-arg', ...pairs)
    const read = await call('read_file', 'path=README.md')
    expect(read.code).toBe(0)
    expect(read.json.isError).toBe(false)
    expect(textOf(read.json)).toContain('# Inventory service (sample workspace)')
    expect(read.json.structuredContent).toMatchObject({ path: 'README.md' })

    const secret = await call('read_file', 'path=.env')
    expect([secret.json.isError, codeOf(secret.json)]).toEqual([true, 'DENIED'])
    expect(textOf(secret.json)).toContain('".env" holds secrets')

    // The Inspector CLI announces no elicitation, so the write's ask fails closed.
    const write = await call('write_note', 'name=x.md', 'text=x')
    expect([write.json.isError, codeOf(write.json)]).toEqual([true, 'DENIED'])
    expect(textOf(write.json)).toBe(
      'Error: tool "write_note" requires approval, but the approval channel is unavailable',
    )

    const bad = await call('run_check', 'check=deploy')
    expect([bad.json.isError, codeOf(bad.json)]).toEqual([true, 'INVALID_ARGS'])
    expect(textOf(bad.json)).toBe('Error: invalid arguments: "check" must be one of ["lint","slow-check"]')
  }, 180_000)

  it('Y3.2, Y1.13: over Streamable HTTP with a bearer token: served with the header, refused without it', async () => {
    const token = 'inspector-token-0123456789'
    const child: ChildProcess = spawn(
      process.execPath,
      [...served.slice(1), '--http', ':0', '--token', token],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    cleanups.push(() => child.kill())
    const line = await stdoutLines(child).first
    const url = /at (\S+) \(bearer token required\)$/.exec(line)![1]!
    const authed = (...args: string[]) =>
      inspector(url, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args)
    const list = await authed('--method', 'tools/list')
    expect(list.code).toBe(0)
    expect(list.json.tools.map((t: { name: string }) => t.name)).toEqual([
      'grep',
      'list_files',
      'read_file',
      'run_check',
      'write_note',
    ])
    const grep = await authed('--method', 'tools/call', '--tool-name', 'grep', '--tool-arg', 'pattern=TODO')
    expect(grep.json.isError).toBe(false)
    expect(textOf(grep.json)).toContain('src/inventory.ts:9')
    const refused = await inspector(url, '--transport', 'http', '--method', 'tools/list')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('unauthorized: send Authorization: Bearer <token>')
  }, 120_000)
})
