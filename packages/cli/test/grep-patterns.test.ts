import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SAMPLE_WORKSPACE } from '../src/commands/demo.js'
import { createToolset } from '../src/toolset.js'

const TOOLSET = fileURLToPath(new URL('../dist/toolset.js', import.meta.url))
/** Patterns that backtrack exponentially on `a…a!` in a backtracking engine. */
const EVIL = ['^(a+)+$', '^(a|a)+$', '^(a|aa)+$', '(.*a){20}!x']

let root: string

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tooltx-k13-'))
  cpSync(SAMPLE_WORKSPACE, root, { recursive: true })
  writeFileSync(path.join(root, 'evil.txt'), `${'a'.repeat(48)}!\n`)
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

/**
 * Runs the built toolset in a child process: it greps for each pattern, prints the totals,
 * then waits for SIGINT. The parent interrupts it half a second after it started, so a child
 * frozen in a regex (which cannot handle SIGINT) is killed at the deadline instead.
 */
function grepInChild(patterns: readonly string[]) {
  const program = `
    import { createToolset } from ${JSON.stringify(TOOLSET)}
    process.on('SIGINT', () => { console.log('interrupted'); process.exit(130) })
    const { runtime, scope } = createToolset({ root: ${JSON.stringify(root)} })
    console.log('started')
    for (const pattern of ${JSON.stringify(patterns)}) {
      const result = await runtime.execute({
        callId: 'c', name: 'grep', arguments: { pattern }, signal: new AbortController().signal, scope,
      })
      console.log(JSON.stringify({ pattern, total: result.isError ? result.error.info.code : result.value.total }))
    }
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    if (stdout === '') setTimeout(() => child.kill('SIGINT'), 500)
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const deadline = setTimeout(() => child.kill('SIGKILL'), 10_000)
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) =>
      child.on('close', (code, signal) => {
        clearTimeout(deadline)
        resolve({ code, signal, stdout, stderr })
      }),
  )
}

describe('K1.3 grep runs model-chosen patterns in linear time', () => {
  it('K1.3: catastrophic patterns over 48 a and a ! finish at once, and SIGINT still stops the process', async () => {
    if (!existsSync(TOOLSET))
      throw new Error('the CLI is not built: run `npm run build` first (npm test does)')
    const started = Date.now()
    const child = await grepInChild(EVIL)
    expect(child.stderr).toBe('')
    expect(child.stdout.trim().split('\n')).toEqual([
      'started',
      ...EVIL.map((pattern) => JSON.stringify({ pattern, total: 0 })),
      'interrupted',
    ])
    expect(child.code).toBe(130)
    expect(Date.now() - started).toBeLessThan(8_000)
  })

  it('K1.3: a pattern RE2 cannot run (a backreference) is BAD_PATTERN saying why and what is allowed', async () => {
    const { runtime, scope } = createToolset({ root })
    const result = await runtime.execute({
      callId: 'c',
      name: 'grep',
      arguments: { pattern: '(a)\\1' },
      signal: new AbortController().signal,
      scope,
    })
    expect(result.isError && result.error.info.code).toBe('BAD_PATTERN')
    expect(result.isError && result.error.message).toMatch(
      /^"\(a\)\\1" is not a pattern grep can run \(RE2 syntax: no backreferences or lookarounds\): .*invalid escape/,
    )
  })

  it('K1.3: ordinary JavaScript-style patterns match the lines a JavaScript RegExp matches', async () => {
    const { runtime, scope } = createToolset({ root })
    const lines = ['src/inventory.ts', 'src/pricing.ts'].flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8').split('\n'),
    )
    const patterns = [
      'TODO',
      '^export function \\w+\\(',
      '`[^`]*\\$\\{',
      '(?<op>[-+])= quantity',
      '\\) / 100$',
    ]
    for (const pattern of patterns) {
      const result = await runtime.execute({
        callId: 'c',
        name: 'grep',
        arguments: { pattern, path: 'src' },
        signal: new AbortController().signal,
        scope,
      })
      const expected = lines.filter((line) => new RegExp(pattern).test(line)).length
      expect(expected, pattern).toBeGreaterThanOrEqual(1)
      expect(
        result.isError ? result.error.info.code : (result.value as { total: number }).total,
        pattern,
      ).toBe(expected)
    }
  })
})
