import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Execution, JsonValue, ToolResult } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { pathBoundaryGuard } from '../src/tools/path-boundary.js'
import { createToolset, fixedApprover } from '../src/toolset.js'

const SECRET = 'PAYMENT_API_KEY=sk_live_guarded'
const OUTSIDE_SECRET = 'NOT FOR THE AGENT'

let base: string
let root: string
let outside: string

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tooltx-boundary-')))
  root = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  mkdirSync(root)
  writeFileSync(path.join(root, 'README.md'), '# readme\n')
  writeFileSync(path.join(root, '.env'), `${SECRET}\n`)
  mkdirSync(path.join(outside, 'deep'), { recursive: true })
  writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`)
  symlinkSync(outside, path.join(root, 'leakdir'))
  // `deeplink/..` is the workspace as written, but `outside` where the operating system goes.
  symlinkSync(path.join(outside, 'deep'), path.join(root, 'deeplink'))
  symlinkSync('.env', path.join(root, 'settings.txt'))
})

afterAll(() => rmSync(base, { recursive: true, force: true }))

/** What the guard says about a call of a tool named `name` with `args`. */
function judge(args: JsonValue, name = 'any_tool', freeText = new Map<string, Set<string>>()) {
  const exec = { name, arguments: args } as unknown as Execution
  return pathBoundaryGuard(root, freeText)(exec)
}

let n = 0
/** Runs a call through the CLI's toolset (in `mode`), approving whatever asks. */
async function call(name: string, args: JsonValue, mode: 'native' | 'code' = 'native'): Promise<ToolResult> {
  const { runtime, scope } = createToolset({ root: SAMPLE_WORKSPACE, mode })
  const codeRuntime = mode === 'code' ? quickjsRuntime() : undefined
  try {
    return await runtime.execute({
      callId: `boundary_${++n}`,
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

const failure = (result: ToolResult) => (result.isError ? result.error.message : undefined)

describe('K1.5 every string that could name a path is read, at any depth', () => {
  it('K1.5: strings and keys in nested objects and arrays are read as paths, whatever the argument is called', () => {
    expect(judge({ files: [{ from: 'README.md' }, { from: '.env' }] })).toBe('".env" holds secrets')
    expect(judge({ mapping: { 'config/.env.local': 'public.txt' } })).toBe(
      '"config/.env.local" holds secrets',
    )
    expect(judge({ q: [[['nested', ['../x']]]] })).toBe(
      '"../x" is outside the workspace; name paths inside it',
    )
    expect(judge({ path: 'README.md', n: 3, ok: true, none: null, list: ['src', 'notes/todo.md'] })).toBe(
      undefined,
    )
  })

  it('K1.5: a depth no recursion survives is read with a work stack', () => {
    let deep: JsonValue = '.env'
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { x: deep }
    expect(judge({ deep })).toBe('".env" holds secrets')
  })

  it('K1.5: file: URLs, ~, absolute paths and quoted or padded strings are read as the path they name', () => {
    expect(judge({ u: pathToFileURL(path.join(root, '.env')).href })).toContain('holds secrets')
    expect(judge({ u: pathToFileURL(outside).href })).toContain('is outside the workspace')
    expect(judge({ h: '~' })).toContain('is outside the workspace')
    expect(judge({ h: '~/.env' })).toBe('"~/.env" holds secrets')
    expect(judge({ a: path.join(root, 'README.md') })).toBe(undefined)
    expect(judge({ a: path.join(root, '.env') })).toContain('holds secrets')
    expect(judge({ p: '  .env ' })).toBe('"  .env " holds secrets')
    expect(judge({ p: '.env\t' })).toBe('".env\t" holds secrets')
    expect(judge({ p: `"${outside}"` })).toContain('is outside the workspace')
    expect(homedir()).not.toBe(root)
  })

  it('K1.5: text that cannot name a path is not read: a line break, a control character, a URL of another scheme, over 4096 characters once normalized, empty', () => {
    expect(judge({ text: 'copy /etc/passwd\nthen .env' })).toBe(undefined)
    expect(judge({ text: '/etc/passwd\u0000' })).toBe(undefined)
    expect(judge({ url: 'https://example.com/.env', ftp: 'ftp://host/../../etc' })).toBe(undefined)
    expect(judge({ big: `/${'a'.repeat(4096)}` })).toBe(undefined)
    // Not too long once normalized, as a tool may normalize it: still a path.
    expect(judge({ padded: `${'./'.repeat(2100)}.env` })).toContain('holds secrets')
    expect(judge({ padded: `${'./'.repeat(2100)}..` })).toContain('is outside the workspace')
    expect(judge({ empty: '' })).toBe(undefined)
  })
})

describe('K1.6 the secrets boundary: no string may name a protected path', () => {
  it('K1.6: a protected segment, a path that lands on one, or a link to one is denied', () => {
    for (const leaf of ['.env', 'config/.ENV.production', '.env/..', 'src/../.env', 'settings.txt']) {
      expect(judge({ anything: leaf }), leaf).toBe(`"${leaf}" holds secrets`)
    }
    expect(judge({ p: path.join(outside, '.env') })).toContain('holds secrets')
  })

  it('K1.6: a workspace tool is denied by the guard whatever argument names the secret', async () => {
    const read = await call('read_file', { path: 'config/../.env' })
    expect(failure(read)).toBe('tool "read_file" denied by guard: "config/../.env" holds secrets')
    const note = await call('write_note', { name: '.env.md', text: 'x' })
    expect(failure(note)).toBe('tool "write_note" denied by guard: ".env.md" holds secrets')
  })
})

describe('K1.7 the workspace boundary: no string may name a path outside the workspace', () => {
  it('K1.7: a path outside, lexically or where its links lead, also for a path still to be created', () => {
    const outsideOf = (leaf: string) => `"${leaf}" is outside the workspace; name paths inside it`
    for (const leaf of [
      '..',
      '../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      '/etc/passwd',
      'leakdir/secret.txt',
      'leakdir/not-yet.txt',
      'deeplink/../secret.txt',
    ]) {
      expect(judge({ anything: leaf }), leaf).toBe(outsideOf(leaf))
    }
    for (const leaf of ['.', 'README.md', 'new/folder/file.txt', 'deeplink-is-not-followed-by-name']) {
      expect(judge({ anything: leaf }), leaf).toBe(undefined)
    }
  })

  it('K1.7: a workspace tool is denied by the guard before its own refusal', async () => {
    const read = await call('read_file', { path: '../../package.json' })
    expect(failure(read)).toBe(
      'tool "read_file" denied by guard: "../../package.json" is outside the workspace; name paths inside it',
    )
    const list = await call('list_files', { path: '/' })
    expect(failure(list)).toContain('"/" is outside the workspace')
  })
})

describe('K1.8 free-text arguments and Code Mode', () => {
  it('K1.8: the arguments a tool declares free text are not read: grep patterns, a note body, a run_code program', async () => {
    const freeText = new Map([['grep', new Set(['pattern'])]])
    expect(judge({ pattern: '/api/.env' }, 'grep', freeText)).toBe(undefined)
    expect(judge({ pattern: '/api/.env' }, 'other', freeText)).toContain('holds secrets')
    const grep = await call('grep', { pattern: '/inventory|\\.env' })
    expect(grep.isError).toBe(false)
    const program = await call(
      RUN_CODE,
      { code: '/* one line */ return 1', description: '.env-free' },
      'code',
    )
    expect(program.isError).toBe(false)
  })

  it('K1.8: every nested call of a run_code program goes through the same guard', async () => {
    const result = await call(
      RUN_CODE,
      {
        code: `
          const codes = []
          for (const path of ['.env', 'src/../.env', '../outside.txt', '/etc/passwd']) {
            try { await tools.read_file({ path }); codes.push('read') } catch (e) { codes.push(e.code + ': ' + e.message) }
          }
          return codes`,
        description: 'tries to read outside the boundaries',
      },
      'code',
    )
    if (result.isError) throw new Error(result.error.message)
    expect((result.value as { result: string[] }).result).toEqual([
      'DENIED: tool "read_file" denied by guard: ".env" holds secrets',
      'DENIED: tool "read_file" denied by guard: "src/../.env" holds secrets',
      'DENIED: tool "read_file" denied by guard: "../outside.txt" is outside the workspace; name paths inside it',
      'DENIED: tool "read_file" denied by guard: "/etc/passwd" is outside the workspace; name paths inside it',
    ])
  })
})
