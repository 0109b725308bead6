/**
 * The user docs cannot rot: every ```ts block of README.md and docs/*.md is a complete program.
 * (The ```ts ai-sdk blocks need AI SDK 7, outside the root install: @tooltx/ai-sdk's tests run them.)
 * Each is type-checked strictly (skipLibCheck off, against the built packages exactly as a user
 * imports them) and run in its own Node process; its output must show what the prose says.
 * Needs `npm run build` first (npm test builds before it runs).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileSnippets, snippets } from './doc-snippets.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

/** What each program's output must contain, by file and heading. */
const EXPECTED: Record<string, readonly string[]> = {
  'README.md › tooltx': ["type: 'text'", 'tooltx-workspace'],
  'README.md › Long sessions, reasoning models': ['Read all five.', 'clear-tool-results'],
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
  'docs/mcp.md › Durable tasks for long-running calls': [
    'receipt {"tooltx/resumable":true,"mcpTask":{"server":"reports","tool":"report","taskId":',
    'working',
    'completed',
    "text: 'report on sales'",
  ],
  'docs/mcp.md › Serve a scope view': [
    'serving http://127.0.0.1:',
    'add readOnly=true',
    '{"sum":5} [{"type":"text","text":"2 + 3 = 5"}]',
    'true [{"type":"text","text":"Error: invalid arguments: \\"a\\" must be an integer"}]',
  ],
  "docs/mcp.md › Import a server's tools": [
    'true Echoes back the input string',
    "[ { type: 'text', text: 'Echo: hello' } ]",
    'DENIED tool "mcp__everything__get-env" denied by pre-execute policy: no environment dumps',
    'invalid arguments: missing required property "b"',
  ],
  'docs/audit.md › Audit a session': [
    'c1 execute → ask (docs may hold drafts)',
    'c2 deny → deny',
    'c3 execute → execute',
    '1 would change',
    'nested: true',
  ],
  'docs/provenance.md › One injection, stopped': [
    'read_email {"integrity":"untrusted"} ok',
    'send_money null DENIED',
    'argument recipient ("GB33BUKB20201555555555") was copied from the result of read_email c1',
  ],
  'docs/fork.md › Fork a session': [
    "support.fork-6 { source: 'support', at: 6 }",
    '2 It shipped yesterday; it arrives tomorrow.',
    'source still has 11 events',
  ],
  'docs/approvals-and-effects.md › Declaring effects and recording receipts': [
    'effect {"refund":"re_1","order":"A-17"}',
    'result false',
  ],
  'docs/approvals-and-effects.md › Resuming after a crash': [
    'c1 ok',
    'c2 TOOL_EFFECT_RECORDED',
    'c3 TOOL_OUTCOME_UNKNOWN',
  ],
  'docs/approvals-and-effects.md › Durable approvals': [
    "suspended [ 'r1 refund' ]",
    'APPROVAL_CONFLICT',
    'completed Refunded.',
    'approval/asked → approval/decided → turn/resumed → tool/result',
  ],
  'docs/running-many-agents.md › Fencing writes to the outside world': [
    'epochs 1 2',
    'stale write landed: false',
    "stock { count: 7, fence: '2' }",
  ],
  'docs/interop.md › OpenAI strict mode': ['{"query":"todo","cursor":null}'],
  'docs/interop.md › OpenTelemetry': [
    'execute_tool add child c1 ok',
    'execute_tool add child c2 INVALID_ARGS',
    'invoke_agent demo root',
  ],
}

/** Blocks that talk to a PostgreSQL (`TOOLTX_TEST_PG`). */
const NEEDS_POSTGRES = new Set(['docs/running-many-agents.md › Fencing writes to the outside world'])

const all = [
  'README.md',
  ...readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].flatMap((file) => snippets(repo, file, 'ts'))
let dir = ''
let diagnostics = new Map<string, string[]>()

beforeAll(() => {
  // Inside the repo's node_modules, so `@tooltx/*` resolves to the packages as a user's would.
  dir = mkdtempSync(path.join(repo, 'node_modules', '.docs-test-'))
  diagnostics = compileSnippets(dir, all)
}, 120_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('W1.4: every TypeScript block of the docs is a program that type-checks and runs', () => {
  it('W1.4: every block is listed with what its output must show', () => {
    expect(all.map((s) => `${s.file} › ${s.heading}`).sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  for (const [i, snippet] of all.entries()) {
    const key = `${snippet.file} › ${snippet.heading}`
    // A block that needs a PostgreSQL runs where the other PostgreSQL tests do (always under CI).
    const noDatabase = NEEDS_POSTGRES.has(key) && !process.env.TOOLTX_TEST_PG && process.env.CI !== 'true'
    it.skipIf(noDatabase)(`W1.4: ${key}: type-checks strictly and prints what the prose says`, async () => {
      expect(diagnostics.get(path.join(dir, `snippet-${i}.mts`)) ?? []).toEqual([])
      expect(diagnostics.get('global') ?? []).toEqual([])
      const { stdout } = await run(process.execPath, [path.join(dir, `snippet-${i}.mjs`)], { cwd: repo })
      for (const fragment of EXPECTED[key] ?? ['(no expectation listed)']) expect(stdout).toContain(fragment)
    })
  }
})
