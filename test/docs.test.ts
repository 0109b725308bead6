/**
 * The user docs cannot rot: every ```ts block of README.md and docs/*.md is a complete program.
 * Each is type-checked strictly (skipLibCheck off, against the built packages exactly as a user
 * imports them) and run in its own Node process; its output must show what the prose says.
 * Needs `npm run build` first (npm test builds before it runs).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

interface Snippet {
  file: string
  heading: string
  code: string
}

/** The ```ts blocks of a Markdown file, each with the heading it sits under. */
function snippets(file: string): Snippet[] {
  const found: Snippet[] = []
  let heading = '(top)'
  const text = readFileSync(path.join(repo, file), 'utf8')
  for (const part of text.split(/^```/m).entries()) {
    const [index, chunk] = part
    if (index % 2 === 0) {
      const headings = chunk.match(/^#+ .*$/gm)
      if (headings !== null) heading = headings.at(-1)!.replace(/^#+ /, '')
    } else if (chunk.startsWith('ts\n')) found.push({ file, heading, code: chunk.slice(3) })
  }
  return found
}

/** What each program's output must contain, by file and heading. */
const EXPECTED: Record<string, readonly string[]> = {
  'README.md › tooltx': ["type: 'text'", 'tooltx-workspace'],
  'docs/getting-started.md › A first tool': ["text: '5'", 'true INVALID_ARGS'],
  'docs/getting-started.md › A policy': [
    'c1 allowed',
    'c2 DENIED',
    'secret notes are off limits',
    'untrusted-1 DENIED',
    'not for guests',
  ],
  'docs/getting-started.md › An approval': [
    'asked: deploy {"service":"staging"} (deploys change production)',
    'billing DENIED',
    'https://staging.example.test',
  ],
  'docs/getting-started.md › A session': ['4 assistant/message', '5 tool/call', 'tool/result', 'turn/end'],
  'docs/getting-started.md › Replay': ['6 tool/result', 'turn/end', 'tool call outcome is unknown'],
  'docs/interop.md › OpenAI strict mode': ['{"query":"todo","cursor":null}'],
  'docs/interop.md › The AI SDK': ['logged {"a":2,"b":3}', 'tool result false 5', 'It is 5.'],
  'docs/interop.md › OpenTelemetry': [
    'execute_tool add child c1 ok',
    'execute_tool add child c2 INVALID_ARGS',
    'invoke_agent demo root',
  ],
}

/** Blocks that use AI SDK 7, which runs on Node.js 22 or later: type-checked everywhere, run there only (Z2.8). */
const NEEDS_NODE_22 = new Set(['docs/interop.md › The AI SDK'])
const modernNode = Number.parseInt(process.versions.node, 10) >= 22

const all = [
  'README.md',
  ...readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].flatMap(snippets)
let dir = ''
const diagnostics = new Map<string, string[]>()

beforeAll(() => {
  // Inside the repo's node_modules, so `@tooltx/*` resolves to the packages as a user's would.
  dir = mkdtempSync(path.join(repo, 'node_modules', '.docs-test-'))
  const files = all.map((snippet, i) => {
    const name = path.join(dir, `snippet-${i}.mts`)
    writeFileSync(name, snippet.code)
    return name
  })
  const program = ts.createProgram(files, {
    strict: true,
    skipLibCheck: false,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    outDir: dir,
  })
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const key = d.file?.fileName ?? 'global'
    diagnostics.set(key, [
      ...(diagnostics.get(key) ?? []),
      ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    ])
  }
  program.emit()
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('W1.4: every TypeScript block of the docs is a program that type-checks and runs', () => {
  it('W1.4: every block is listed with what its output must show', () => {
    expect(all.map((s) => `${s.file} › ${s.heading}`).sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const [i, snippet] of all.entries()) {
    const key = `${snippet.file} › ${snippet.heading}`
    it(`W1.4: ${key}: type-checks strictly and prints what the prose says`, async (context) => {
      expect(diagnostics.get(path.join(dir, `snippet-${i}.mts`)) ?? []).toEqual([])
      expect(diagnostics.get('global') ?? []).toEqual([])
      if (NEEDS_NODE_22.has(key) && !modernNode) {
        context.skip(`run skipped on Node.js ${process.versions.node}: AI SDK 7 needs Node.js 22 or later`)
      }
      const { stdout } = await run(process.execPath, [path.join(dir, `snippet-${i}.mjs`)], { cwd: repo })
      for (const fragment of EXPECTED[key] ?? ['(no expectation listed)']) expect(stdout).toContain(fragment)
    })
  }
})
