import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, type JsonValue, stringifyJson } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import {
  defaultSqliteDriver,
  deriveMessages,
  forkSession,
  loadSqliteDriver,
  memoryStore,
  openSession,
  planRepair,
  type SessionEvent,
  type SessionStore,
  sqliteReader,
  sqliteStore,
} from '@tooltx/session'
import fc from 'fast-check'
import { createToolset } from 'tooltx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWorkspaceToolset } from '../src/toolset.js'
import { BIN, cleanEnv, sampleWorkspace, tooltx, tooltxWith } from './cli-harness.js'
import { fakeModel } from './fake-model.js'

const FIXTURES = fileURLToPath(new URL('./fixtures/audit/', import.meta.url))
const policy = (name: string) => path.join(FIXTURES, name)

let cwd: string
let db: string
let demoId: string
let demoEvents: readonly SessionEvent[]

/** The events of session `id` in the test database. */
async function stored(id: string): Promise<readonly SessionEvent[]> {
  const reader = sqliteReader(db)!
  try {
    return (await reader.read(id)) ?? []
  } finally {
    await reader.close()
  }
}

const json = (value: unknown) => stringifyJson(value as JsonValue)

beforeAll(async () => {
  if (!existsSync(BIN)) throw new Error('the CLI is not built: run `npm run build` first (npm test does)')
  cwd = mkdtempSync(path.join(tmpdir(), 'tooltx-audit-'))
  db = path.join(cwd, 'sessions.db')
  const demo = await tooltx(cwd, 'demo', '--fast', '--yes', '--db', db)
  if (demo.code !== 0) throw new Error(`the demo failed: ${demo.stderr}`)
  demoId = /Session saved as (\S+) in/.exec(demo.stdout)![1]!
  demoEvents = await stored(demoId)
}, 120_000)

afterAll(() => rmSync(cwd, { recursive: true, force: true }))

/** Runs `tooltx audit … --json` and returns the exit status and the parsed document. */
async function auditJson(...args: string[]) {
  const result = await tooltx(cwd, 'audit', ...args, '--db', db, '--json')
  return { code: result.code, stderr: result.stderr, doc: JSON.parse(result.stdout) }
}

describe('A1 tooltx audit', () => {
  it('A1.5: a policy denying read_file on *.md lists exactly the demo calls that read Markdown', async () => {
    const markdown = demoEvents
      .filter((e) => e.type === 'tool/call' && e.data.name === 'read_file')
      .filter((e) => e.type === 'tool/call' && String(JSON.parse(e.data.arguments).path).endsWith('.md'))
      .map((e) => (e.type === 'tool/call' ? e.data.callId : ''))
    expect(markdown).toEqual(['call_readme'])
    const result = await tooltx(cwd, 'audit', demoId, '--policy', policy('markdown-policy.mjs'), '--db', db)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(1)
    const reason = 'tool "read_file" denied by pre-execute policy: Markdown is off limits'
    const [header, ...rows] = result.stdout.trimEnd().split('\n')
    expect(header).toMatch(/^session +call +tool +before → after +reason$/)
    expect(rows).toEqual([
      expect.stringMatching(new RegExp(`^${demoId} +call_readme +read_file +execute → deny +${reason}$`)),
      '',
      '7 calls in 1 session: 1 would change, 6 unchanged, 0 without a recorded decision, 0 policy failures',
    ])
    const { doc } = await auditJson(demoId, '--policy', policy('markdown-policy.mjs'))
    const changed = doc.sessions[0].calls.filter((c: { changed: boolean }) => c.changed)
    expect(changed.map((c: { callId: string }) => c.callId)).toEqual(markdown)
  }, 30_000)

  it('A1.2: a policy identical to the recorded one reports no difference and exits 0', async () => {
    const result = await tooltx(cwd, 'audit', demoId, '--policy', policy('same-policy.mjs'), '--db', db)
    expect(result).toEqual({
      code: 0,
      stdout:
        'no decision would change\n\n7 calls in 1 session: 0 would change, 7 unchanged, 0 without a recorded decision, 0 policy failures\n',
      stderr: '',
    })
    const { doc } = await auditJson('--all', '--policy', policy('same-policy.mjs'))
    const decisions = doc.sessions[0].calls.map((c: { callId: string; before: unknown; after: unknown }) => [
      c.callId,
      c.before,
      c.after,
    ])
    const secrets = { kind: 'deny', reason: 'tool "read_file" denied by guard: ".env" holds secrets' }
    const asks = { kind: 'ask', reason: 'writes a file in the workspace' }
    const run = { kind: 'execute' }
    expect(decisions).toEqual([
      ['call_list', run, run],
      ['call_grep', run, run],
      ['call_readme', run, run],
      ['call_env', secrets, secrets],
      ['call_lint', run, run],
      ['call_slow', run, run],
      ['call_note', asks, asks],
    ])
  }, 30_000)

  it('A1.3: a policy that throws is a policy failure of each call it throws for, never a crash', async () => {
    const { code, stderr, doc } = await auditJson(demoId, '--policy', policy('throwing-policy.mjs'))
    expect(stderr).toBe('')
    expect(code).toBe(1)
    const changed = doc.sessions[0].calls.filter((c: { changed: boolean }) => c.changed)
    expect(changed.map((c: { callId: string; after: unknown }) => [c.callId, c.after])).toEqual([
      [
        'call_lint',
        { kind: 'policy-failed', reason: 'guard handler failed: the check registry is unreachable' },
      ],
      [
        'call_slow',
        { kind: 'policy-failed', reason: 'guard handler failed: the check registry is unreachable' },
      ],
    ])
    expect(doc.totals).toEqual({
      sessions: 1,
      calls: 7,
      changed: 2,
      unchanged: 5,
      notComparable: 0,
      policyFailures: 2,
    })
  }, 30_000)

  it('A1.9: a hook that never settles is a policy failure of its call after --hook-timeout, and the audit goes on', async () => {
    const started = Date.now()
    const { code, stderr, doc } = await auditJson(
      demoId,
      '--policy',
      policy('hanging-policy.mjs'),
      '--hook-timeout',
      '300',
    )
    expect(stderr).toBe('')
    expect(code).toBe(1)
    const pre = 'a pre-execute handler, the approval step or a guard'
    const after = Object.fromEntries(
      doc.sessions[0].calls.map((c: { callId: string; after: unknown }) => [c.callId, c.after]),
    )
    const unsettled = {
      kind: 'policy-failed',
      reason: `the policy did not settle within 300 ms (${pre} never returned), so its decision is unknown`,
    }
    expect(after.call_lint).toEqual(unsettled)
    expect(after.call_slow).toEqual(unsettled)
    expect(after.call_note).toEqual({
      kind: 'policy-failed',
      reason:
        'the policy did not settle within 300 ms (a wrapper or post-execute handler never returned), so its decision is unknown',
    })
    // The calls the stuck hooks do not concern are decided as before.
    expect(after.call_list).toEqual({ kind: 'execute' })
    expect(doc.totals).toMatchObject({ calls: 7, changed: 3, unchanged: 4, policyFailures: 3 })
    // Three bounded calls, not a hang: well under the 5 s default each.
    expect(Date.now() - started).toBeLessThan(15_000)
    const table = await tooltx(
      cwd,
      'audit',
      demoId,
      '--policy',
      policy('hanging-policy.mjs'),
      '--hook-timeout',
      '200',
      '--db',
      db,
    )
    expect(table.code).toBe(1)
    expect(table.stdout).toContain('did not settle within 200 ms')
    expect(table.stdout).toMatch(
      /7 calls in 1 session: 3 would change, 4 unchanged, 0 without a recorded decision, 3 policy failures/,
    )
  }, 60_000)

  it('A1.10: a policy module whose import or registration never settles is a usage error, and --hook-timeout must be a whole number', async () => {
    for (const [file, what] of [
      ['hanging-import.mjs', 'loading the policy module'],
      ['hanging-registration.mjs', 'the policy module'],
    ] as const) {
      const result = await tooltx(
        cwd,
        'audit',
        demoId,
        '--policy',
        policy(file),
        '--hook-timeout',
        '200',
        '--db',
        db,
      )
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`tooltx: ${what} ${policy(file)}`)
      expect(result.stderr).toContain('did not settle within 200 ms')
    }
    const bad = await tooltx(
      cwd,
      'audit',
      demoId,
      '--policy',
      policy('same-policy.mjs'),
      '--hook-timeout',
      '0.5',
      '--db',
      db,
    )
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^tooltx: --hook-timeout must be a whole number of at least 1, got "0\.5"/)
  }, 60_000)

  it('A1.11: --all names a damaged session on stderr, audits the others and exits 1', async () => {
    const copy = path.join(cwd, 'damaged.db')
    copyFileSync(db, copy)
    const store = sqliteStore(copy)
    await store.append('hurt', demoEvents.slice(0, 4))
    await store.close()
    const raw = loadSqliteDriver(defaultSqliteDriver()).open(copy)
    raw.prepare("UPDATE events SET crc = NULL WHERE session = 'hurt'").run()
    raw.prepare("UPDATE events SET data = '{broken' WHERE session = 'hurt' AND seq = 2").run()
    raw.close()
    const result = await tooltx(
      cwd,
      'audit',
      '--all',
      '--policy',
      policy('same-policy.mjs'),
      '--db',
      copy,
      '--json',
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      /^tooltx: session hurt could not be audited: invariant violated: session "hurt" in .* is damaged at seq 2 /,
    )
    const doc = JSON.parse(result.stdout)
    expect(doc.sessions.map((s: { id: string }) => s.id)).toEqual([demoId])
    expect(doc.totals).toMatchObject({ sessions: 1, calls: 7, changed: 0 })
  }, 60_000)

  it('A1.6: --json holds every audited call of every session and the totals, in this shape', async () => {
    const { doc } = await auditJson(demoId, '--policy', policy('markdown-policy.mjs'))
    expect(Object.keys(doc)).toEqual(['sessions', 'totals'])
    expect(doc.sessions.map((s: { id: string }) => s.id)).toEqual([demoId])
    const readme = doc.sessions[0].calls[2]
    const call = demoEvents.find((e) => e.type === 'tool/call' && e.data.callId === 'call_readme')!
    expect(readme).toEqual({
      seq: call.seq,
      turn: 1,
      step: 1,
      callId: 'call_readme',
      name: 'read_file',
      before: { kind: 'execute' },
      after: {
        kind: 'deny',
        reason: 'tool "read_file" denied by pre-execute policy: Markdown is off limits',
      },
      changed: true,
    })
    expect(doc.totals).toEqual({
      sessions: 1,
      calls: 7,
      changed: 1,
      unchanged: 6,
      notComparable: 0,
      policyFailures: 0,
    })
  }, 30_000)

  it('A1.4: the same log and policy print byte-identical output, as a table and as JSON', async () => {
    for (const format of [[], ['--json']]) {
      const args = ['audit', '--all', '--policy', policy('throwing-policy.mjs'), '--db', db, ...format]
      const first = await tooltx(cwd, ...args)
      const second = await tooltx(cwd, ...args)
      expect(second.stdout).toBe(first.stdout)
      expect(second.code).toBe(first.code)
    }
  }, 60_000)

  it('A1.1: the arguments are validated against the tools module’s current schemas', async () => {
    const { code, doc } = await auditJson(
      demoId,
      '--policy',
      policy('same-policy.mjs'),
      '--tools',
      policy('strict-tools.mjs'),
    )
    expect(code).toBe(1)
    const changed = doc.sessions[0].calls.filter((c: { changed: boolean }) => c.changed)
    // call_env stays denied: the guard decides before the arguments are validated.
    expect(changed.map((c: { callId: string; after: unknown }) => [c.callId, c.after])).toEqual([
      ['call_readme', { kind: 'invalid', reason: 'invalid arguments: missing required property "limit"' }],
    ])
  }, 30_000)

  it('A1.1: without --tools the CLI’s workspace tools validate the arguments', async () => {
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'bad-args' })
    const { runtime, scope } = createToolset({ root: sampleWorkspace() })
    const model = scripted([
      { toolCalls: [{ id: 'call_bad', name: 'read_file', arguments: '{"path":5}' }] },
      { text: 'done' },
    ])
    await createAgent({ runtime, scope, session, model }).send('read')
    await session.close()
    await store.close()
    const { code, doc } = await auditJson('bad-args', '--policy', policy('same-policy.mjs'))
    expect(code).toBe(0)
    const invalid = { kind: 'invalid', reason: 'invalid arguments: "path" must be a string' }
    expect(
      doc.sessions[0].calls.map((c: { before: unknown; after: unknown }) => [c.before, c.after]),
    ).toEqual([[invalid, invalid]])
  }, 30_000)

  it('K2.15: without --tools the general workspace tools of run validate their calls too', async () => {
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'bad-edit' })
    const { runtime, scope } = createWorkspaceToolset({ root: sampleWorkspace() })
    const args = '{"path":"README.md","old_text":5,"new_text":"x"}'
    const model = scripted([
      { toolCalls: [{ id: 'call_bad', name: 'edit_file', arguments: args }] },
      { text: 'done' },
    ])
    await createAgent({ runtime, scope, session, model }).send('edit')
    await session.close()
    await store.close()
    const { code, doc } = await auditJson('bad-edit', '--policy', policy('same-policy.mjs'))
    expect(code).toBe(0)
    const invalid = { kind: 'invalid', reason: 'invalid arguments: "old_text" must be a string' }
    expect(
      doc.sessions[0].calls.map((c: { before: unknown; after: unknown }) => [c.before, c.after]),
    ).toEqual([[invalid, invalid]])
  }, 30_000)

  it('A1.7: nested Code Mode calls are audited under their run_code call', async () => {
    const ws = sampleWorkspace()
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 'code-session' })
    const { runtime, scope } = createToolset({ root: ws, mode: 'code' })
    const sandbox = quickjsRuntime()
    const code = [
      "const readme = await tools.read_file({ path: 'README.md' })",
      'const files = await tools.list_files({})',
      "return 'read'",
    ].join('\n')
    const model = scripted([
      {
        toolCalls: [
          { id: 'call_code', name: 'run_code', arguments: JSON.stringify({ code, description: 'read' }) },
        ],
      },
      { text: 'done' },
    ])
    const agent = createAgent({ runtime, scope, session, model, codeRuntime: sandbox })
    const outcome = await agent.send('read the readme in code')
    await sandbox.close()
    await session.close()
    await store.close()
    expect(outcome.reason).toBe('completed')
    const dispatched = (await stored('code-session')).filter((e) => e.type === 'tool/code-dispatch-start')
    expect(dispatched.map((e) => e.data.name)).toEqual(['read_file', 'list_files'])

    const markdown = await auditJson('code-session', '--policy', policy('markdown-policy.mjs'))
    const calls = markdown.doc.sessions[0].calls
    expect(
      calls.map((c: { name: string; rootCallId?: string; changed: boolean }) => [
        c.name,
        c.rootCallId,
        c.changed,
      ]),
    ).toEqual([
      ['run_code', undefined, false],
      ['read_file', 'call_code', true],
      ['list_files', 'call_code', false],
    ])
    expect(calls[1].after).toEqual({
      kind: 'deny',
      reason: 'tool "read_file" denied by pre-execute policy: Markdown is off limits',
    })
    expect(calls[1].parentCallId).toBe('call_code')

    const table = await tooltx(
      cwd,
      'audit',
      'code-session',
      '--policy',
      policy('no-code-policy.mjs'),
      '--db',
      db,
    )
    expect(table.code).toBe(1)
    const rows = table.stdout.split('\n').slice(1, 4)
    expect(rows).toEqual([
      expect.stringMatching(
        /^code-session +call_code +run_code +execute → deny +tool "run_code" denied by pre-execute policy: no programs$/,
      ),
      expect.stringMatching(
        /^code-session +call_code › \S+ +read_file +execute → not-run +its run_code call would not run$/,
      ),
      expect.stringMatching(
        /^code-session +call_code › \S+ +list_files +execute → not-run +its run_code call would not run$/,
      ),
    ])
  }, 60_000)

  it('A1.5: usage errors exit 2 and say what to pass', async () => {
    const missing = await tooltx(cwd, 'audit', demoId, '--db', db)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^tooltx: audit needs --policy FILE\n/)
    const both = await tooltx(
      cwd,
      'audit',
      demoId,
      '--all',
      '--policy',
      policy('same-policy.mjs'),
      '--db',
      db,
    )
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/^tooltx: audit needs session ids or --all \(not both\)\n/)
    const shape = await tooltx(cwd, 'audit', demoId, '--policy', policy('not-a-function.mjs'), '--db', db)
    expect(shape.code).toBe(2)
    expect(shape.stderr).toContain('must `export default` a function (runtime) =>')
    const absent = await tooltx(cwd, 'audit', demoId, '--policy', 'nowhere.mjs', '--db', db)
    expect(absent.code).toBe(2)
    expect(absent.stderr).toMatch(/^tooltx: cannot load the policy module nowhere\.mjs: /)
  }, 30_000)
})

/** A memory store holding a copy of the demo session. */
async function demoStore(): Promise<SessionStore> {
  const store = memoryStore()
  await store.append(demoId, demoEvents)
  return store
}

/** Checks the fork properties of A2.1 and A2.2 for a fork of `source` at `at`. */
async function checkFork(store: SessionStore, sourceId: string, at: number): Promise<void> {
  const source = await store.load(sourceId)
  const before = json(source)
  const fork = await forkSession(store, sourceId, { at })
  const events = fork.events()
  expect(events[0]).toEqual({ seq: 1, type: 'session/fork', data: { source: sourceId, at } })
  const kept = source.slice(0, at).filter((e) => e.type !== 'session/fork')
  const shift = source[0]?.type === 'session/fork' ? 0 : 1
  for (const e of kept) expect(events[e.seq - 1 + shift]).toEqual({ ...e, seq: e.seq + shift })
  // The same messages as the source up to the cut, then only what repair answers.
  const prefix = deriveMessages(source.slice(0, at))
  expect(json(deriveMessages(events).slice(0, prefix.length))).toBe(json(prefix))
  expect(planRepair(events)).toEqual([])
  // It accepts a new turn like any session.
  const turns = events.filter((e) => e.type === 'turn/start').length
  const runtime = createToolRuntime()
  const agent = createAgent({
    runtime,
    scope: runtime.scope(),
    session: fork,
    model: scripted([{ text: 'continued' }]),
  })
  const outcome = await agent.send('carry on')
  expect(outcome).toEqual({ turn: turns + 1, reason: 'completed', text: 'continued' })
  await fork.close()
  const reopened = await openSession(store, { id: fork.id })
  expect(reopened.events().length).toBe(fork.events().length)
  await reopened.close()
  expect(json(await store.load(sourceId))).toBe(before)
}

describe('A2 forkSession and tooltx fork', () => {
  it('A2.1, A2.2: a fork at every event of the demo session is valid, keeps its messages and accepts a new turn', async () => {
    expect(demoEvents.length).toBeGreaterThan(20)
    const store = await demoStore()
    for (let at = 0; at <= demoEvents.length; at++) await checkFork(store, demoId, at)
  }, 60_000)

  it('A2.5: a fork of a fork names its own source and keeps the seqs of the events it shares', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(demoEvents.length), fc.nat(demoEvents.length + 8), async (first, second) => {
        const store = await demoStore()
        const fork = await forkSession(store, demoId, { at: first })
        const length = fork.events().length
        await fork.close()
        await checkFork(store, fork.id, Math.min(second, length))
      }),
      { numRuns: 25 },
    )
  }, 60_000)

  it('A2.1: turn:N keeps everything before turn N+1 starts; points outside the session are refused', async () => {
    const store = await demoStore()
    const none = await forkSession(store, demoId, { at: { turn: 0 } })
    expect(none.events().map((e) => e.type)).toEqual(['session/fork'])
    const whole = await forkSession(store, demoId, { at: { turn: 1 } })
    expect(whole.id).toBe(`${demoId}.fork-${demoEvents.length}`)
    expect(whole.events().length).toBe(demoEvents.length + 1)
    const again = await forkSession(store, demoId, { at: demoEvents.length })
    expect(again.id).toBe(`${demoId}.fork-${demoEvents.length}-2`)
    await expect(forkSession(store, demoId, { at: { turn: 2 } })).rejects.toThrow(
      `fork point turn 2 is not in session "${demoId}", which has turns 1…1; pass a turn from 0 to 1`,
    )
    await expect(forkSession(store, demoId, { at: demoEvents.length + 1 })).rejects.toThrow(
      `fork point seq ${demoEvents.length + 1} is not in session "${demoId}"`,
    )
    await expect(forkSession(store, 'absent', { at: 0 })).rejects.toThrow(
      'cannot fork "absent": there is no such session',
    )
    await expect(forkSession(store, demoId, { at: 0, id: whole.id })).rejects.toThrow(
      `cannot fork into "${whole.id}": a session with that id exists`,
    )
    expect((await store.listSessions()).map((s) => s.id)).not.toContain('absent')
  })

  it('A2.4: tooltx fork makes the fork, sessions shows its lineage, and run --session continues it', async () => {
    const forked = await tooltx(cwd, 'fork', demoId, '--at', '12', '--id', 'demo-fork', '--db', db)
    expect(forked.stderr).toBe('')
    expect(forked.code).toBe(0)
    const events = await stored('demo-fork')
    expect(forked.stdout).toBe(
      [
        `Forked ${demoId} at seq 12 into demo-fork (${events.length} events).`,
        `Replay it with:   npx tooltx replay demo-fork --db ${db}`,
        `Continue it with: npx tooltx run --session demo-fork --db ${db} "<task>"`,
        '',
      ].join('\n'),
    )
    expect(json(await stored(demoId))).toBe(json(demoEvents))
    const listed = await tooltx(cwd, 'sessions', '--db', db)
    expect(listed.stdout).toMatch(
      new RegExp(
        `^demo-fork +${events.length} {2}\\S+ {2}interrupted +\\(forked from ${demoId} at seq 12\\) Find the open TODOs`,
        'm',
      ),
    )
    const replay = await tooltx(cwd, 'replay', 'demo-fork', '--db', db)
    expect(replay.stdout.split('\n')[2]).toBe(`forked from ${demoId} at seq 12`)

    const model = await fakeModel([{ text: 'picked up where it stopped' }])
    const ws = sampleWorkspace()
    const env = cleanEnv({ OPENAI_API_KEY: 'test-key' })
    const run = await tooltxWith(
      { cwd, env },
      ...[
        'run',
        'carry on',
        '--session',
        'demo-fork',
        '--workspace',
        ws,
        '--base-url',
        model.baseURL,
        '--db',
        db,
      ],
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const continued = await stored('demo-fork')
    expect(continued.slice(0, events.length)).toEqual(events)
    expect(continued.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 2, reason: 'completed' } })
    // The model was sent the fork's conversation before the new task.
    const sent = model.requests[0]!.messages.map((m) => m.role)
    expect(sent.filter((r) => r === 'user')).toHaveLength(2)

    const unknown = await tooltxWith(
      { cwd, env },
      ...['run', 'hi', '--session', 'nope', '--workspace', ws, '--base-url', model.baseURL, '--db', db],
    )
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe(`tooltx: no session "nope" in ${db}; run \`tooltx sessions\` to list them\n`)
    const badPoint = await tooltx(cwd, 'fork', demoId, '--at', 'turn:x', '--db', db)
    expect(badPoint.code).toBe(2)
    expect(badPoint.stderr).toBe(
      'tooltx: --at must be a seq (such as 12) or turn:N (such as turn:1), got "turn:x"\nsee tooltx fork --help\n',
    )
  }, 60_000)
})
