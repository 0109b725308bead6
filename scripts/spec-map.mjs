#!/usr/bin/env node
/**
 * The SPEC map: for every subsection of docs/SPEC.md (`### K2 …`), the packages and the test
 * files whose test titles name one of its ids (`K2.3: …`), as the markdown table that
 * docs/architecture.md keeps between its `spec-map` markers (W1.6).
 *
 *   node scripts/spec-map.mjs            prints the table
 *   node scripts/spec-map.mjs --write    rewrites the table in docs/architecture.md
 *
 * A title is the first string argument of a call whose name starts with `it`, `test` or
 * `describe` (`it.skipIf(…)(…)` and `describePostgres(…)` included); ids in comments or other
 * strings do not count. Tests at the repository root show as package `repo`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const DOC = 'docs/architecture.md'
const START = '<!-- spec-map:start -->'
const END = '<!-- spec-map:end -->'

/** A test title: the literal that opens `it(`, `test.each(…)(`, `describeX(` and the like. */
const TITLE = /\b(?:it|test|describe)[A-Za-z]*(?:\.\w+(?:\([^()]*\))?)*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g
const ID = /\b([A-Z]\d+)\.\d+/g

/** Every `*.test.ts` under `dir` (repository-relative, `/`-separated), skipping builds and installs. */
function testFiles(dir) {
  const found = []
  for (const entry of readdirSync(path.join(repo, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== 'dist')
      found.push(...testFiles(file))
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(file)
  }
  return found
}

/** The SPEC subsections (`K2`) whose ids the test titles of `file` name. */
function subsectionsNamed(file) {
  const titles = [...readFileSync(path.join(repo, file), 'utf8').matchAll(TITLE)].map((m) => m[2])
  return new Set(titles.flatMap((title) => [...title.matchAll(ID)].map((m) => m[1])))
}

/** The package a test file belongs to, and how the table names the file. */
function place(file) {
  const [top, name, ...rest] = file.split('/')
  return top === 'packages' ? { pkg: name, shown: [name, ...rest].join('/') } : { pkg: 'repo', shown: file }
}

/** The table, one line per SPEC subsection in SPEC order, header first. */
export function specMap() {
  const spec = readFileSync(path.join(repo, 'docs/SPEC.md'), 'utf8')
  const files = [...testFiles('packages'), ...testFiles('test')].sort()
  const named = new Map(files.map((file) => [file, subsectionsNamed(file)]))
  const lines = ['| SPEC subsection | packages | test files |', '|---|---|---|']
  for (const [, id, title] of spec.matchAll(/^### ([A-Z]\d+) (.*)$/gm)) {
    const places = files.filter((file) => named.get(file).has(id)).map(place)
    const pkgs = [...new Set(places.map((p) => p.pkg))].sort()
    const shown = places.map((p) => `\`${p.shown}\``)
    lines.push(`| ${id} ${title} | ${pkgs.join(', ') || '—'} | ${shown.join(', ') || '—'} |`)
  }
  return lines.join('\n')
}

/** Replaces what stands between the markers of docs/architecture.md with the current table. */
function writeTable() {
  const file = path.join(repo, DOC)
  const text = readFileSync(file, 'utf8')
  const start = text.indexOf(START)
  const end = text.indexOf(END)
  if (start < 0 || end < start) throw new Error(`${DOC} lacks the ${START} … ${END} markers`)
  writeFileSync(file, `${text.slice(0, start + START.length)}\n${specMap()}\n${text.slice(end)}`)
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--write')) writeTable()
  else console.log(specMap())
}
