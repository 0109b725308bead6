/**
 * The ```ts ai-sdk blocks of the docs, which need AI SDK 7 and so stay out of the root docs test:
 * each type-checks strictly against the built package (its own name resolves to this folder's
 * `exports`, `ai` to this folder's node_modules, `@tooltx/*` to the workspace root) and runs.
 * Needs `tsc -b packages/ai-sdk` first (npm run test:ai-sdk builds before it runs).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileSnippets, snippets } from '../../../test/doc-snippets.js'

const repo = fileURLToPath(new URL('../../..', import.meta.url))
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

const EXPECTED: Record<string, readonly string[]> = {
  'docs/interop.md › The AI SDK': ['logged {"a":2,"b":3}', 'tool result false 5', 'It is 5.'],
}

const all = snippets(repo, 'docs/interop.md', 'ts ai-sdk')
let dir = ''
let diagnostics = new Map<string, string[]>()

beforeAll(() => {
  // In this package's folder (not its node_modules), so `@tooltx/ai-sdk` is the package itself.
  dir = mkdtempSync(path.join(packageDir, '.docs-test-'))
  diagnostics = compileSnippets(dir, all)
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('W1.4: every AI SDK block of the docs is a program that type-checks and runs', () => {
  it('W1.4: every ai-sdk block is listed with what its output must show', () => {
    expect(all.map((s) => `${s.file} › ${s.heading}`)).toEqual(Object.keys(EXPECTED))
  })

  for (const [i, snippet] of all.entries()) {
    const key = `${snippet.file} › ${snippet.heading}`
    it(`W1.4: ${key}: type-checks strictly and prints what the prose says`, async () => {
      expect(diagnostics.get(path.join(dir, `snippet-${i}.mts`)) ?? []).toEqual([])
      expect(diagnostics.get('global') ?? []).toEqual([])
      const { stdout } = await run(process.execPath, [path.join(dir, `snippet-${i}.mjs`)], {
        cwd: packageDir,
      })
      for (const fragment of EXPECTED[key] ?? ['(no expectation listed)']) expect(stdout).toContain(fragment)
    })
  }
})
