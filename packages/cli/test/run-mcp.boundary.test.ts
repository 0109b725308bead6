/**
 * The CLI's boundary guard over imported tools (Y4.5): the official MCP filesystem server
 * (`@modelcontextprotocol/server-filesystem`) runs as a real stdio process, imported as
 * `tooltx run --mcp` imports it, and every one of its tools that can name a path is tried
 * against `.env` files and against paths outside the workspace.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { JsonValue, ToolResult } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { connectRunServers, mcpServerSpecs, type RunServers } from '../src/commands/run-mcp.js'
import { createToolset, fixedApprover, type Toolset } from '../src/toolset.js'
import { cleanEnv, scratch, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'

const require = createRequire(import.meta.url)
const FILESYSTEM_SERVER = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
)
const SECRET = 'STRIPE_KEY=sk_live_never_shown'
const OUTSIDE_SECRET = 'OUTSIDE THE WORKSPACE'

let base: string
let root: string
let outside: string
let toolset: Toolset
let servers: RunServers
const codeRuntime = quickjsRuntime()

beforeAll(async () => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tooltx-fs-boundary-')))
  root = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  mkdirSync(path.join(root, 'notes'), { recursive: true })
  mkdirSync(path.join(root, '.envs'))
  mkdirSync(outside)
  writeFileSync(path.join(root, 'README.md'), '# readme\n')
  writeFileSync(path.join(root, '.env'), `${SECRET}\n`)
  writeFileSync(path.join(root, '.envs/prod'), `${SECRET}\n`)
  writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`)
  symlinkSync('.env', path.join(root, 'settings.txt'))
  symlinkSync(outside, path.join(root, 'leakdir'))
  // Mode `both`: the imported tools are offered natively and inside run_code.
  toolset = createToolset({ root, mode: 'both' })
  servers = await connectRunServers(
    mcpServerSpecs([`fs=node ${FILESYSTEM_SERVER} ${root}`]),
    toolset.runtime,
    toolset.scope,
    toolset.workspace.root,
    path.join(base, 'logs'),
  )
})

afterAll(async () => {
  await servers?.close()
  await codeRuntime.close()
  rmSync(base, { recursive: true, force: true })
})

let n = 0
/** Calls a tool in the run's scope as `tooltx run --yes` would: every ask approved. */
function call(name: string, args: JsonValue): Promise<ToolResult> {
  return toolset.runtime.execute({
    callId: `fs_${++n}`,
    name,
    arguments: args,
    signal: new AbortController().signal,
    scope: toolset.scope,
    approver: fixedApprover('allowed-once'),
    codeRuntime,
  })
}

/**
 * Per tool of the server: calls naming a secret, calls naming a path outside the workspace,
 * and one ordinary call inside it. Together they name each kind of path argument the tool has.
 */
const cases = (): Record<string, { secret: JsonValue[]; outside: JsonValue[]; inside: JsonValue }> => ({
  read_file: {
    secret: [{ path: '.env' }],
    outside: [{ path: '../outside/secret.txt' }],
    inside: { path: 'README.md' },
  },
  read_text_file: {
    secret: [{ path: 'settings.txt' }, { path: '.env', head: 1 }],
    outside: [{ path: 'leakdir/secret.txt' }],
    inside: { path: 'README.md', head: 1 },
  },
  read_media_file: {
    secret: [{ path: '.envs/prod' }],
    outside: [{ path: '~/x.png' }],
    inside: { path: 'README.md' },
  },
  read_multiple_files: {
    secret: [{ paths: ['README.md', '.env'] }, { paths: ['README.md', 'notes/../.env'] }],
    outside: [{ paths: ['README.md', '/etc/passwd'] }],
    inside: { paths: ['README.md'] },
  },
  write_file: {
    secret: [{ path: '.env', content: 'STRIPE_KEY=overwritten' }],
    outside: [{ path: 'leakdir/planted.txt', content: 'x' }],
    inside: { path: 'notes/ok.md', content: 'hello' },
  },
  edit_file: {
    secret: [{ path: '.env', edits: [{ oldText: 'STRIPE', newText: 'X' }], dryRun: true }],
    outside: [{ path: '../outside/secret.txt', edits: [{ oldText: 'OUTSIDE', newText: 'X' }] }],
    inside: { path: 'README.md', edits: [{ oldText: '# readme', newText: '# read me' }], dryRun: true },
  },
  create_directory: {
    secret: [{ path: '.env.d' }],
    outside: [{ path: 'leakdir/planted' }],
    inside: { path: 'notes/new' },
  },
  list_directory: {
    secret: [{ path: '.envs' }],
    outside: [{ path: '..' }],
    inside: { path: '.' },
  },
  list_directory_with_sizes: {
    secret: [{ path: '.envs', sortBy: 'size' }],
    outside: [{ path: outside }],
    inside: { path: 'notes' },
  },
  directory_tree: {
    secret: [{ path: '.envs' }],
    outside: [{ path: '~' }],
    inside: { path: 'notes' },
  },
  move_file: {
    secret: [
      { source: '.env', destination: 'notes/leaked.txt' },
      { source: 'README.md', destination: '.env' },
    ],
    outside: [{ source: 'README.md', destination: '../outside/stolen.md' }],
    inside: { source: 'notes/ok.md', destination: 'notes/moved.md' },
  },
  search_files: {
    secret: [
      { path: '.', pattern: '.env*' },
      { path: '.envs', pattern: '*' },
    ],
    outside: [{ path: pathToFileURL(outside).href, pattern: '*' }],
    inside: { path: '.', pattern: '*.md' },
  },
  get_file_info: {
    secret: [{ path: pathToFileURL(path.join(root, '.env')).href }],
    outside: [{ path: path.join(outside, 'secret.txt') }],
    inside: { path: 'README.md' },
  },
})

/** A result that must be the guard's denial, showing nothing of what it protects. */
function expectDenied(result: ToolResult, why: string, label: string) {
  expect(result.isError, label).toBe(true)
  if (!result.isError) return
  expect(result.error.info.code, label).toBe('DENIED')
  expect(result.error.message, label).toMatch(new RegExp(`denied by guard: ".*" ${why}`))
  expect(JSON.stringify(result), label).not.toContain(SECRET)
  expect(JSON.stringify(result), label).not.toContain(OUTSIDE_SECRET)
}

describe('Y4.5 the boundary guard over every tool of the official MCP filesystem server', () => {
  it('Y4.5: the cases cover every tool the server lists that takes an argument', async () => {
    const listed = toolset.runtime
      .view(toolset.scope)
      .surface()
      .tools.map((t) => t.name)
      .filter((name) => name.startsWith('mcp__fs__'))
      .map((name) => name.slice('mcp__fs__'.length))
    expect(listed.filter((name) => name !== 'list_allowed_directories').sort()).toEqual(
      Object.keys(cases()).sort(),
    )
  })

  it('Y4.5: each tool is denied every call that names a .env file, whatever the argument is called', async () => {
    for (const [tool, { secret }] of Object.entries(cases())) {
      for (const args of secret) {
        expectDenied(await call(`mcp__fs__${tool}`, args), 'holds secrets', `${tool} ${JSON.stringify(args)}`)
      }
    }
    expect(readFileSync(path.join(root, '.env'), 'utf8')).toBe(`${SECRET}\n`)
    expect(existsSync(path.join(root, '.env.d'))).toBe(false)
    expect(existsSync(path.join(root, 'notes/leaked.txt'))).toBe(false)
  })

  it('Y4.5: each tool is denied every call that names a path outside the workspace', async () => {
    for (const [tool, { outside: named }] of Object.entries(cases())) {
      for (const args of named) {
        expectDenied(
          await call(`mcp__fs__${tool}`, args),
          'is outside the workspace; name paths inside it',
          `${tool} ${JSON.stringify(args)}`,
        )
      }
    }
    expect(existsSync(path.join(outside, 'planted.txt'))).toBe(false)
    expect(existsSync(path.join(outside, 'planted'))).toBe(false)
    expect(existsSync(path.join(outside, 'stolen.md'))).toBe(false)
  })

  it('Y4.5: an ordinary call inside the workspace reaches each tool', async () => {
    for (const [tool, { inside }] of Object.entries(cases())) {
      const result = await call(`mcp__fs__${tool}`, inside)
      expect(result.isError ? result.error.message : 'ok', tool).toBe('ok')
    }
    expect(existsSync(path.join(root, 'notes/moved.md'))).toBe(true)
  })

  it('Y4.5: a run_code program calling the imported tools meets the same guard', async () => {
    const result = await call(RUN_CODE, {
      code: `
        const seen = []
        for (const paths of [['.env'], ['README.md', '../outside/secret.txt'], ['README.md']]) {
          try { await tools.mcp__fs__read_multiple_files({ paths }); seen.push('read') } catch (e) { seen.push(e.code) }
        }
        try { await tools.mcp__fs__move_file({ source: '.env', destination: 'public.txt' }); seen.push('moved') } catch (e) { seen.push(e.code) }
        return seen`,
      description: 'reads through the filesystem server',
    })
    if (result.isError) throw new Error(result.error.message)
    expect((result.value as { result: string[] }).result).toEqual(['DENIED', 'DENIED', 'read', 'DENIED'])
    expect(JSON.stringify(result)).not.toContain(SECRET)
    expect(existsSync(path.join(root, 'public.txt'))).toBe(false)
  })

  it('Y4.5, Y4.6: tooltx run --mcp --yes: the calls of the issue, read_multiple_files({ paths }) and move_file({ source }), never reach .env; the server runs in the workspace', async () => {
    // Run from the folder above the workspace: the server's "." is still the workspace (Y4.6).
    const top = scratch()
    const cwd = path.join(top, 'ws')
    cpSync(SAMPLE_WORKSPACE, cwd, { recursive: true })
    writeFileSync(path.join(cwd, '.env'), `${SECRET}\n`)
    const model = await fakeModel([
      {
        toolCalls: [
          {
            id: 'call_many',
            name: 'mcp__fs__read_multiple_files',
            arguments: '{"paths":["README.md",".env"]}',
          },
          {
            id: 'call_move',
            name: 'mcp__fs__move_file',
            arguments: '{"source":".env","destination":"env.txt"}',
          },
          { id: 'call_readme', name: 'mcp__fs__read_text_file', arguments: '{"path":"README.md"}' },
        ],
      },
      { text: 'Nothing to see.' },
    ])
    const done = await tooltxWith(
      { cwd: top, env: cleanEnv({ OPENAI_API_KEY: 'k' }) },
      'run',
      'read the secrets',
      '--base-url',
      model.baseURL,
      '--workspace',
      cwd,
      '--yes',
      '--mcp',
      `fs=node ${FILESYSTEM_SERVER} .`,
    )
    expect(done.code).toBe(0)
    expect(toolMessage(model, 'call_many')).toBe(
      'Error: tool "mcp__fs__read_multiple_files" denied by guard: ".env" holds secrets',
    )
    expect(toolMessage(model, 'call_move')).toBe(
      'Error: tool "mcp__fs__move_file" denied by guard: ".env" holds secrets',
    )
    expect(toolMessage(model, 'call_readme')).toBe(readFileSync(path.join(cwd, 'README.md'), 'utf8'))
    expect(JSON.stringify(model.requests)).not.toContain(SECRET)
    expect(readFileSync(path.join(cwd, '.env'), 'utf8')).toBe(`${SECRET}\n`)
    expect(existsSync(path.join(cwd, 'env.txt'))).toBe(false)
  })
})
