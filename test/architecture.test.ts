/**
 * docs/architecture.md cannot drift from the SPEC and the tests: its table of SPEC subsections
 * → packages → test files is exactly what `scripts/spec-map.mjs` prints for this checkout.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('..', import.meta.url))
const read = (file: string) => readFileSync(path.join(repo, file), 'utf8')

/** The table docs/architecture.md holds between its spec-map markers. */
function documentedTable(): string {
  const doc = read('docs/architecture.md')
  const match = /<!-- spec-map:start -->\n([\s\S]*?)\n<!-- spec-map:end -->/.exec(doc)
  expect(match, 'docs/architecture.md keeps the table between its spec-map markers').not.toBeNull()
  return match![1]!
}

describe('W1.6: docs/architecture.md maps the SPEC to packages and tests', () => {
  it('W1.6: the table is what scripts/spec-map.mjs prints (regenerate it with --write)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/spec-map.mjs'], { cwd: repo })
    expect(documentedTable()).toBe(stdout.trimEnd())
  })

  it('W1.6: every SPEC subsection has a row, in SPEC order', () => {
    const subsections = [...read('docs/SPEC.md').matchAll(/^### ([A-Z]\d+) /gm)].map((m) => m[1])
    const rows = documentedTable()
      .split('\n')
      .slice(2)
      .map((row) => /^\| ([A-Z]\d+) /.exec(row)?.[1])
    expect(subsections.length).toBeGreaterThan(90)
    expect(rows).toEqual(subsections)
  })
})
