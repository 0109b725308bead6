import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createToolRuntime, type ToolResult } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { openWorkspace } from '../src/tools/workspace.js'
import { createToolset, fixedApprover, workspaceTools } from '../src/toolset.js'

const SECRET = 'INVENTORY_DB_PASSWORD'
const OUTSIDE_SECRET = 'TOP SECRET OUTSIDE'

let base: string
let root: string
let outside: string

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'tooltx-k1-'))
  root = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  cpSync(SAMPLE_WORKSPACE, root, { recursive: true })
  mkdirSync(path.join(root, 'config'))
  writeFileSync(path.join(root, 'config/.env.local'), `${SECRET}_LOCAL=hunter2\n`)
  writeFileSync(path.join(root, 'config/.ENV'), `${SECRET}_UPPER=hunter3\n`)
  mkdirSync(outside)
  writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`)
  writeFileSync(path.join(outside, 'check.mjs'), `console.log('${OUTSIDE_SECRET}')\n`)
  // Links out of the workspace, to a secret inside it, and one harmless link inside.
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'))
  symlinkSync(outside, path.join(root, 'leakdir'))
  symlinkSync('.env', path.join(root, 'settings.txt'))
  symlinkSync('README.md', path.join(root, 'readme-link.md'))
  symlinkSync(path.join(outside, 'nothing.txt'), path.join(root, 'dangling.txt'))
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

let n = 0
/**
 * Calls a CLI tool straight through the runtime, in `mode`, approving any write: with the CLI's
 * policy (`createToolset`), or `bare`, the workspace tools alone, to see what they refuse themselves.
 */
async function call(
  name: string,
  args: unknown,
  options: { root?: string; mode?: 'native' | 'code'; bare?: true } = {},
) {
  const { runtime, scope } = options.bare
    ? bareTools(options.root ?? root)
    : createToolset({ root: options.root ?? root, mode: options.mode ?? 'native' })
  const codeRuntime = options.mode === 'code' ? quickjsRuntime() : undefined
  try {
    return await runtime.execute({
      callId: `call_${++n}`,
      name,
      arguments: args,
      signal: new AbortController().signal,
      scope,
      approver: fixedApprover('allowed-once'),
      ...(codeRuntime ? { codeRuntime } : {}),
    })
  } finally {
    await codeRuntime?.close()
  }
}

/** The workspace tools in a runtime without the CLI's guard. */
function bareTools(at: string) {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  for (const def of workspaceTools(openWorkspace(at))) scope.register(def)
  return { runtime, scope }
}

/** The error code of a failure, `undefined` for a success. */
function codeOf(result: ToolResult): string | undefined {
  return result.isError ? result.error.info.code : undefined
}

/** The value of a result that must be a success. */
function successValue<T>(result: ToolResult): T {
  if (result.isError) throw new Error(`expected a success, got ${result.error.message}`)
  return result.value as T
}

/** Everything a result shows anyone: its model-facing content, value and meta, as one string. */
function seen(result: ToolResult): string {
  return JSON.stringify(result)
}

describe('K1.1 protected files are protected in every tool, not only by a path argument', () => {
  it('K1.1: grep for PASSWORD over the workspace finds no line of a .env file (natively)', async () => {
    const result = await call('grep', { pattern: 'PASSWORD' })
    expect(result.isError).toBe(false)
    expect(seen(result)).not.toContain(SECRET)
    expect(result.content).toEqual([{ type: 'text', text: 'no matches' }])
  })

  it('K1.1: grep for PASSWORD from inside run_code finds no line of a .env file either', async () => {
    const result = await call(
      RUN_CODE,
      { code: "return await tools.grep({ pattern: 'PASSWORD' })", description: 'search for passwords' },
      { mode: 'code' },
    )
    expect(result.isError).toBe(false)
    expect(seen(result)).not.toContain(SECRET)
    expect(seen(result)).toContain('"total":0')
  })

  it('K1.1: grep over a folder holding .env files, and list_files, skip every protected file', async () => {
    const grep = await call('grep', { pattern: '=', path: 'config' })
    expect(seen(grep)).not.toContain(SECRET)
    const list = await call('list_files', {})
    expect(list.isError).toBe(false)
    const paths = successValue<{ paths: string[] }>(list).paths
    expect(paths).toContain('src/pricing.ts')
    expect(paths.filter((p) => /(^|\/)\.env/i.test(p))).toEqual([])
  })

  it('K1.1: read_file is denied a .env file in any folder and in any case', async () => {
    for (const target of ['.env', 'config/.env.local', 'config/.ENV', 'src/../.env']) {
      const result = await call('read_file', { path: target })
      expect(result.isError, target).toBe(true)
      expect(codeOf(result), target).toBe('DENIED')
      expect(seen(result)).not.toContain(SECRET)
    }
  })

  it('K1.1: a check script that is a link to a protected file is refused, not run', async () => {
    const ws = mkdtempSync(path.join(base, 'check-'))
    cpSync(SAMPLE_WORKSPACE, ws, { recursive: true })
    rmSync(path.join(ws, 'scripts/lint.mjs'))
    writeFileSync(path.join(ws, '.env.mjs'), `console.log('${SECRET}')\n`)
    symlinkSync('../.env.mjs', path.join(ws, 'scripts/lint.mjs'))
    const result = await call('run_check', { check: 'lint' }, { root: ws })
    expect(codeOf(result)).toBe('PROTECTED')
    expect(seen(result)).not.toContain(SECRET)
  })

  it('K1.1: a path is protected iff one of its segments starts with .env, in any case', async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,7}$/)
    const envSegment = fc
      .tuple(fc.constantFrom('.env', '.ENV', '.Env'), fc.stringMatching(/^[A-Za-z0-9_.-]{0,5}$/))
      .map(([a, b]) => a + b)
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 3 }),
        envSegment,
        fc.array(segment, { maxLength: 2 }),
        async (before, env, after) => {
          const secret = await call('read_file', { path: [...before, env, ...after].join('/') })
          expect(codeOf(secret)).toBe('DENIED')
          const plain = await call('read_file', { path: [...before, ...after].join('/') || '.' })
          expect(['DENIED', 'PROTECTED']).not.toContain(codeOf(plain))
        },
      ),
      { numRuns: 50 },
    )
  })
})

// The workspace's own refusals (K1.2), seen without the CLI's guard, which denies these calls first (K1.6).
describe('K1.2 symlinks cannot escape the workspace or reach a protected file', () => {
  it('K1.2: read_file refuses a link to a file outside the workspace, and a path through a linked folder', async () => {
    for (const target of ['leak.txt', 'leakdir/secret.txt']) {
      const result = await call('read_file', { path: target }, { bare: true })
      expect(codeOf(result), target).toBe('OUTSIDE_WORKSPACE')
      expect(seen(result)).not.toContain(OUTSIDE_SECRET)
    }
  })

  it('K1.2: grep and list_files skip links that lead outside; grep refuses to start in one', async () => {
    const grep = await call('grep', { pattern: 'SECRET' }, { bare: true })
    expect(grep.isError).toBe(false)
    expect(seen(grep)).not.toContain(OUTSIDE_SECRET)
    const list = await call('list_files', {}, { bare: true })
    const paths = successValue<{ paths: string[] }>(list).paths
    expect(paths.filter((p) => p.startsWith('leak'))).toEqual([])
    const inLink = await call('grep', { pattern: 'SECRET', path: 'leakdir' }, { bare: true })
    expect(codeOf(inLink)).toBe('OUTSIDE_WORKSPACE')
  })

  it('K1.2: a path that does not exist, or a link to nothing, is NOT_FOUND naming the path', async () => {
    for (const target of ['missing.txt', 'dangling.txt']) {
      const result = await call('read_file', { path: target }, { bare: true })
      expect(codeOf(result), target).toBe('NOT_FOUND')
      expect(result.isError && result.error.message).toBe(`"${target}" does not exist in the workspace`)
    }
  })

  it('K1.2: a link to a protected file inside the workspace is protected too', async () => {
    const read = await call('read_file', { path: 'settings.txt' }, { bare: true })
    expect(codeOf(read)).toBe('PROTECTED')
    expect(seen(read)).not.toContain(SECRET)
    const grep = await call('grep', { pattern: 'PASSWORD' }, { bare: true })
    expect(seen(grep)).not.toContain(SECRET)
  })

  it('K1.2: a link to an ordinary file inside the workspace still reads, lists and searches', async () => {
    // With the CLI's guard too: a link that stays inside is no reason to deny.
    const read = await call('read_file', { path: 'readme-link.md', limit: 1 })
    expect(read.isError).toBe(false)
    expect(successValue<{ lines: string[] }>(read).lines).toEqual(['# Inventory service (sample workspace)'])
    const list = await call('list_files', {}, { bare: true })
    expect(successValue<{ paths: string[] }>(list).paths).toContain('readme-link.md')
    const grep = await call('grep', { pattern: '^# Inventory' })
    const files = successValue<{ matches: { path: string }[] }>(grep).matches.map((m) => m.path)
    expect(files).toEqual(['README.md', 'readme-link.md'])
    const one = await call('grep', { pattern: '^# Inventory', path: 'readme-link.md' })
    expect(successValue<{ matches: unknown[] }>(one).matches).toEqual([
      { path: 'readme-link.md', line: 1, text: '# Inventory service (sample workspace)' },
    ])
  })

  it('K1.2: write_note through a linked notes folder is refused and writes nothing outside', async () => {
    const ws = mkdtempSync(path.join(base, 'write-'))
    cpSync(SAMPLE_WORKSPACE, ws, { recursive: true })
    rmSync(path.join(ws, 'notes'), { recursive: true })
    symlinkSync(outside, path.join(ws, 'notes'))
    const result = await call('write_note', { name: 'x.md', text: 'overwritten' }, { root: ws, bare: true })
    expect(codeOf(result)).toBe('OUTSIDE_WORKSPACE')
    expect(existsSync(path.join(outside, 'x.md'))).toBe(false)
  })

  it('K1.2: write_note onto a note that is a link to a protected file is refused', async () => {
    const ws = mkdtempSync(path.join(base, 'write-'))
    cpSync(SAMPLE_WORKSPACE, ws, { recursive: true })
    symlinkSync('../.env', path.join(ws, 'notes/todo.md'))
    const result = await call(
      'write_note',
      { name: 'todo.md', text: 'overwritten' },
      { root: ws, bare: true },
    )
    expect(codeOf(result)).toBe('PROTECTED')
  })

  it('K1.2: a check script that is a link out of the workspace is refused, not run', async () => {
    const ws = mkdtempSync(path.join(base, 'check-'))
    cpSync(SAMPLE_WORKSPACE, ws, { recursive: true })
    rmSync(path.join(ws, 'scripts/lint.mjs'))
    symlinkSync(path.join(outside, 'check.mjs'), path.join(ws, 'scripts/lint.mjs'))
    const result = await call('run_check', { check: 'lint' }, { root: ws, bare: true })
    expect(codeOf(result)).toBe('OUTSIDE_WORKSPACE')
    expect(seen(result)).not.toContain(OUTSIDE_SECRET)
  })
})
