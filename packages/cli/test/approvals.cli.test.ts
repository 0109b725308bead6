import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { DEFAULT_DB } from '../src/display/default-db.js'
import { openSessions } from '../src/session-store.js'
import { overviewOf } from '../src/viewer/session-overview.js'
import { FIRST_USE_NOTICE, scratch, tooltx } from './cli-harness.js'

/** How the viewer's session list shows session `id` of the default store in `cwd` (G3.1, K5.5). */
async function viewerStatus(cwd: string, id: string): Promise<string> {
  const reader = openSessions(path.join(cwd, DEFAULT_DB))!
  try {
    const info = (await reader.listSessions()).find((row) => row.id === id)!
    return overviewOf(info, (await reader.read(id)) ?? [], { now: Date.now(), idleMs: 0 }).status
  } finally {
    await reader.close()
  }
}

/** Runs `tooltx demo --durable` in `cwd` (with `db` when given) and returns its output and session id. */
async function suspendedDemo(cwd: string, db: string[]) {
  const demo = await tooltx(cwd, 'demo', '--fast', '--durable', ...db)
  const id = /Session saved as (\S+) in /.exec(demo.stdout)?.[1] ?? ''
  return { demo, id }
}

/** The approval, resume and result lines of write_note in the session's `tooltx replay`. */
async function writeNoteLines(cwd: string, id: string, db: string[]): Promise<string[]> {
  const replay = await tooltx(cwd, 'replay', id, ...db)
  return replay.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(\? approval .*write_note|[✓✗] write_note|▶ the turn resumes)/.test(line))
}

/** The whole durable-approval round trip of the demo through the CLI, against database flags `db`. */
async function roundTrip(db: string[]): Promise<void> {
  const cwd = scratch()
  const { demo, id } = await suspendedDemo(cwd, db)
  expect(demo.stderr).toBe(db.length === 0 ? FIRST_USE_NOTICE : '')
  expect(demo.code).toBe(0)
  expect(demo.stdout).toContain('approval: durable, so the write waits in the session for `tooltx approve`')
  expect(demo.stdout).toMatch(
    /\? approval asked for write_note: writes a file in the workspace \(durable: waiting for approval until \d{4}-\d\d-\d\dT[\d:.]+Z\)/,
  )
  expect(demo.stdout).toContain(`this process can exit, the approval waits in the log.`)
  expect(demo.stdout).toContain(`Decide it from another command: npx tooltx approve ${id} call_note`)
  expect(demo.stdout).toContain(`Then finish the turn with: npx tooltx demo --resume ${id}`)
  expect(demo.stdout).not.toContain('── turn 1 completed ──')
  const note = path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md')
  expect(existsSync(note)).toBe(false)

  const listed = await tooltx(cwd, 'approvals', ...db)
  expect(listed.code).toBe(0)
  const entry = listed.stdout
    .split('\n')
    .findIndex((line) => line.startsWith(`${id}  call call_note  write_note  expires `))
  expect(entry).toBeGreaterThanOrEqual(0)
  const lines = listed.stdout.split('\n')
  expect(lines[entry]).toMatch(/\(in 23 h 59 min\)$/)
  expect(lines[entry + 1]).toBe('    reason: writes a file in the workspace')
  expect(lines[entry + 2]).toMatch(/^ {4}arguments: \{"name":"todo-summary.md","text":"# Open TODOs/)
  const digest = /^ {4}digest: ([0-9a-f]{64})$/.exec(lines[entry + 3] ?? '')?.[1]
  expect(digest).toMatch(/^[0-9a-f]{64}$/)

  const tampered = await tooltx(cwd, 'approve', id, 'call_note', '--digest', '0'.repeat(64), ...db)
  expect(tampered.code).toBe(1)
  expect(tampered.stderr).toContain(
    `does not match the recorded arguments of call "call_note" (${digest}); nothing was recorded`,
  )
  const stillWaiting = await tooltx(cwd, 'demo', '--resume', id, '--fast', ...db)
  expect(stillWaiting.code).toBe(1)
  expect(stillWaiting.stderr).toBe(
    `tooltx: the turn still waits for a decision on write_note (call call_note); decide it with npx tooltx approve ${id} call_note${db.length > 0 ? ` --db ${db[1]}` : ''} and resume again\n`,
  )

  const approved = await tooltx(
    cwd,
    'approve',
    id,
    'call_note',
    '--by',
    'alice',
    '--reason',
    'looks right',
    '--digest',
    digest!,
    ...db,
  )
  expect(approved.stderr).toBe('')
  expect(approved.code).toBe(0)
  expect(approved.stdout).toContain(`approved write_note (call call_note) in ${id}, by alice`)
  const second = await tooltx(cwd, 'approve', id, 'call_note', '--deny', ...db)
  expect(second.code).toBe(1)
  expect(second.stderr).toMatch(
    /the approval of call "call_note" was already decided: allowed-once by "alice" \(seq \d+\); the first decision wins, so yours was not recorded/,
  )
  expect((await tooltx(cwd, 'approvals', ...db)).stdout).not.toContain(`${id}  call call_note`)

  const resumed = await tooltx(cwd, 'demo', '--resume', id, '--fast', ...db)
  expect(resumed.stderr).toBe('')
  expect(resumed.code).toBe(0)
  expect(resumed.stdout).toContain('▶ the turn resumes after the decision')
  expect(resumed.stdout).toContain('── turn 1 completed ──')
  expect(readFileSync(note, 'utf8')).toContain('# Open TODOs')
  expect(await writeNoteLines(cwd, id, db)).toEqual([
    expect.stringMatching(/^\? approval asked for write_note: writes a file in the workspace \(durable: /),
    '? approval for write_note: allowed-once by alice (looks right)',
    '▶ the turn resumes after the decision',
    '✓ write_note',
  ])
  const sessions = await tooltx(cwd, 'sessions', ...db)
  expect(sessions.stdout).toMatch(new RegExp(`${id} +\\d+ +\\S+ +completed `))
}

describe('tooltx demo --durable, approvals, approve and demo --resume', () => {
  it('K5.1, K5.2, K5.3, K5.4, F2.11: the demo waits for a durable approval decided from a second command and resumed by a third (the default store: SQLite, or JSONL without node:sqlite)', async () => {
    await roundTrip([])
  }, 120_000)

  it('K3.22, K5.1: the same round trip on a JSONL folder given as --db DIR/, on any Node', async () => {
    await roundTrip(['--db', '.tooltx/jsonl-sessions/'])
  }, 120_000)

  it.skipIf(POSTGRES_URL === undefined)(
    'K5.1, K5.2, K5.3, K5.4: the same round trip on PostgreSQL',
    async () => {
      await roundTrip(['--db', POSTGRES_URL!])
    },
    120_000,
  )
  requirePostgresInCi('K5.1 on PostgreSQL')

  it('K5.3, K5.5, K5.19: a denied write never runs, and sessions shows the suspended session until then', async () => {
    const cwd = scratch()
    const { id } = await suspendedDemo(cwd, [])
    const sessions = await tooltx(cwd, 'sessions')
    expect(sessions.stdout).toMatch(new RegExp(`${id} +\\d+ +\\S+ +suspended +\\(waiting for approval\\) `))
    expect(await viewerStatus(cwd, id)).toBe('waiting for approval')
    const denied = await tooltx(cwd, 'approve', id.slice(0, 20), 'call_note', '--deny', '--by', 'bob')
    expect(denied.stderr).toBe('')
    expect(denied.stdout).toContain(`denied write_note (call call_note) in ${id}, by bob`)
    const decided = (await tooltx(cwd, 'sessions')).stdout
    expect(decided).toMatch(new RegExp(`${id} +\\d+ +\\S+ +suspended `))
    expect(decided).not.toContain('(waiting for approval)')
    expect(await viewerStatus(cwd, id)).toBe('suspended')
    const resumed = await tooltx(cwd, 'demo', '--resume', 'latest', '--fast')
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toContain('✗ write_note failed (DENIED)')
    expect(resumed.stdout).toContain('Error: the user rejected tool "write_note"')
    expect(existsSync(path.join(cwd, '.tooltx/demo-workspace/notes/todo-summary.md'))).toBe(false)
    expect(await viewerStatus(cwd, id)).toBe('completed')
    expect(await writeNoteLines(cwd, id, [])).toEqual([
      expect.stringMatching(/^\? approval asked for write_note/),
      '? approval for write_note: rejected by bob',
      '▶ the turn resumes after the decision',
      '✗ write_note failed (DENIED)',
    ])
  }, 120_000)

  it('K5.8: without a terminal, approve prints the arguments whole and their digest, and approves nothing without --digest', async () => {
    const cwd = scratch()
    const { id } = await suspendedDemo(cwd, [])
    const listed = (await tooltx(cwd, 'approvals')).stdout
    const digest = /^ {4}digest: ([0-9a-f]{64})$/m.exec(listed)?.[1]
    const unconfirmed = await tooltx(cwd, 'approve', id, 'call_note')
    expect(unconfirmed.code).toBe(2)
    const lines = unconfirmed.stdout.split('\n')
    expect(lines[0]).toBe(`write_note (call call_note) in ${id}`)
    expect(lines[1]).toBe('    reason: writes a file in the workspace')
    expect(lines[2]).toMatch(/^ {4}arguments: \{"name":"todo-summary.md","text":"# Open TODOs.*"\}$/)
    expect(lines[3]).toBe(`    digest: ${digest}`)
    expect(unconfirmed.stderr).toBe(
      'tooltx: approve is not at a terminal, so it cannot ask you to confirm the arguments above, and nothing was recorded; ' +
        'check them, then approve exactly them with --digest <the digest above>\n',
    )
    // Nothing was recorded: the approval still waits, and --digest then approves it.
    expect((await tooltx(cwd, 'approvals')).stdout).toContain(`${id}  call call_note  write_note`)
    const approved = await tooltx(cwd, 'approve', id, 'call_note', '--digest', digest!)
    expect(approved.code).toBe(0)
    expect(approved.stdout).toContain(`approved write_note (call call_note) in ${id}`)
  }, 120_000)

  it('K5.2, K5.3, K5.4: bad input is one clear message with nothing recorded', async () => {
    const cwd = scratch()
    const none = await tooltx(cwd, 'approvals')
    expect(none.code).toBe(1)
    expect(none.stderr).toBe(
      `tooltx: approvals: there is no session database at ${DEFAULT_DB}; run \`tooltx demo\` first, or pass --db\n`,
    )
    const done = await tooltx(cwd, 'demo', '--fast', '--yes')
    const id = /Session saved as (\S+) in /.exec(done.stdout)?.[1] ?? ''
    expect((await tooltx(cwd, 'approvals')).stdout).toBe(`no approvals are waiting in ${DEFAULT_DB}\n`)
    const nothing = await tooltx(cwd, 'approve', id, 'call_note')
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toBe(
      `tooltx: session "${id}" has no pending durable approval for call "call_note"; none is pending\n`,
    )
    const notSuspended = await tooltx(cwd, 'demo', '--resume', id)
    expect(notSuspended.code).toBe(1)
    expect(notSuspended.stderr).toBe(
      `tooltx: session "${id}" has no turn waiting for an approval; start one with \`tooltx demo --durable\`\n`,
    )
    const usage = await tooltx(cwd, 'approve', id)
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('tooltx: approve needs a session id and a call id')
    const both = await tooltx(cwd, 'demo', '--durable', '--yes')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--durable and --yes contradict each other: pick one')
    const unknown = await tooltx(cwd, 'approve', 'nope', 'call_note')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(`no session "nope" in ${DEFAULT_DB}`)
  }, 120_000)
})
