import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { createToolRuntime, defineTool } from '@tooltx/core'
import {
  defaultSqliteDriver,
  loadSqliteDriver,
  openSession,
  postgresStore,
  type SessionEvent,
  sqliteStore,
  type TurnEndReason,
} from '@tooltx/session'
import pg from 'pg'
import { renderSession } from 'tooltx'
import { describe, expect, it, onTestFinished } from 'vitest'
import { freshPrefix, POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { DEFAULT_DB } from '../src/display/default-db.js'
import { cleanEnv, nobodyCanRunCli, sampleWorkspace, scratch, tooltx, tooltxWith } from './cli-harness.js'
import { fakeModel } from './fake-model.js'

/** One logged tool call of a hand-written session. */
interface LoggedCall {
  id: string
  name: string
  arguments: string
  content: string
  meta?: unknown
}

/** Writes session `id` to the SQLite database `db` as a program of its own would: one turn. */
async function writeSession(
  db: string,
  id: string,
  turn: { task?: string; calls?: LoggedCall[]; end?: TurnEndReason | 'none' } = {},
): Promise<void> {
  const store = sqliteStore(db)
  const session = await openSession(store, { id })
  const at = { turn: 1, step: 1 }
  await session.append('turn/start', { turn: 1 })
  await session.append('step/start', at)
  if (turn.task !== undefined) {
    await session.append('user/message', {
      ...at,
      message: { role: 'user', content: [{ type: 'text', text: turn.task }] },
    })
  }
  const calls = turn.calls ?? []
  if (calls.length > 0) {
    await session.append('assistant/message', {
      ...at,
      content: calls.map((call) => ({
        type: 'tool-call' as const,
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      })),
    })
    for (const call of calls) {
      await session.append('tool/call', {
        ...at,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      })
      await session.append('tool/result', {
        ...at,
        callId: call.id,
        name: call.name,
        content: [{ type: 'text', text: call.content }],
        isError: false,
        ...(call.meta === undefined ? {} : { meta: call.meta as never }),
      })
    }
  }
  await session.append('step/end', at)
  if (turn.end !== 'none') await session.append('turn/end', { turn: 1, reason: turn.end ?? 'completed' })
  await session.close()
  await store.close()
}

/** A user's own `read_file`, with the CLI tool's argument shape and the CLI's read-card meta shape. */
const USER_READ: LoggedCall = {
  id: 'call_1',
  name: 'read_file',
  arguments: '{"path":"README.md"}',
  content: 'user tool output',
  meta: { path: 'README.md', offset: 1, totalLines: 1, lines: [{ number: 1, text: 'from the user tool' }] },
}

describe('tooltx replay and sessions', () => {
  it('K3.1: the replay hint keeps --db when the database is not the default', async () => {
    const cwd = scratch()
    const demo = await tooltx(cwd, 'demo', '--fast', '--db', 'elsewhere/s.db')
    expect(demo.code).toBe(0)
    const id = /Session saved as (\S+) in elsewhere\/s\.db\./.exec(demo.stdout)?.[1]
    expect(demo.stdout).toContain(`Replay it with: npx tooltx replay ${id} --db elsewhere/s.db\n`)
    const replay = await tooltx(cwd, 'replay', id!, '--db', 'elsewhere/s.db')
    expect(replay.code).toBe(0)
    expect(existsSync(path.join(cwd, '.tooltx'))).toBe(false)
  }, 60_000)

  it('K3.1: run prints the replay hint with --db too', async () => {
    const ws = sampleWorkspace()
    const model = await fakeModel([{ text: 'hello' }])
    const env = cleanEnv({ OPENAI_API_KEY: 'test-key' })
    const result = await tooltxWith(
      { cwd: ws, env },
      ...['run', 'hi', '--workspace', ws, '--base-url', model.baseURL, '--db', 'my dir/s.db'],
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/Replay it with: npx tooltx replay run-\S+ --db 'my dir\/s\.db'\n/)
  })

  it('K3.2: sessions and replay never create a database', async () => {
    const cwd = scratch()
    const listed = await tooltx(cwd, 'sessions')
    expect(listed).toEqual({
      code: 0,
      stdout: `no sessions in ${DEFAULT_DB} yet; run \`tooltx demo\` to make one\n`,
      stderr: '',
    })
    const replay = await tooltx(cwd, 'replay', 'latest')
    expect(replay.code).toBe(1)
    expect(replay.stderr).toBe(
      `tooltx: no session "latest": there is no session database at ${DEFAULT_DB}; run \`tooltx demo\` first, or pass --db\n`,
    )
    expect(readdirSync(cwd)).toEqual([])
  })

  // As root the check runs the CLI as `nobody`, who must be able to reach this checkout and Node.
  const root = process.getuid?.() === 0
  it.skipIf(root && !nobodyCanRunCli())(
    'K3.3: a database in a folder the user may not write is still listed and replayed',
    async () => {
      const cwd = scratch()
      const dir = path.join(cwd, 'store')
      mkdirSync(dir, { mode: 0o755 })
      const db = path.join(dir, 'sessions.db')
      await writeSession(db, 'ro-session', { task: 'read me', end: 'completed' })
      chmodSync(db, 0o644)
      chmodSync(dir, 0o555)
      onTestFinished(() => chmodSync(dir, 0o755))
      // Root may write anywhere, so as root the CLI runs as `nobody`.
      const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
      const listed = await tooltxWith({ cwd, env: cleanEnv(), ...as }, 'sessions', '--db', db)
      expect(listed.stderr).toBe('')
      expect(listed.code).toBe(0)
      expect(listed.stdout).toMatch(/^ro-session +5 {2}\S+ {2}completed {3}read me$/m)
      const replay = await tooltxWith({ cwd, env: cleanEnv(), ...as }, 'replay', 'ro-session', '--db', db)
      expect(replay.stderr).toBe('')
      expect(replay.stdout).toContain('    user: read me')
      expect(readdirSync(dir)).toEqual(['sessions.db'])
    },
  )

  it('K3.4: replay accepts latest and a unique prefix of an id; an ambiguous prefix names the candidates', async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 'alpha-1', { task: 'first' })
    await writeSession(db, 'alpha-22', { task: 'second' })
    await writeSession(db, 'beta', { task: 'third' })
    const latest = await tooltx(cwd, 'replay', 'latest', '--db', db)
    expect(latest.stdout).toContain('session beta (')
    expect(latest.stdout).toContain('    user: third')
    const prefix = await tooltx(cwd, 'replay', 'alpha-2', '--db', db)
    expect(prefix.stdout).toContain('session alpha-22 (')
    expect(prefix.stdout).toContain('    user: second')
    const ambiguous = await tooltx(cwd, 'replay', 'alp', '--db', db)
    expect(ambiguous.code).toBe(1)
    expect(ambiguous.stderr).toBe(
      'tooltx: "alp" starts 2 session ids (alpha-1, alpha-22); give more of the id\n',
    )
    const missing = await tooltx(cwd, 'replay', 'gamma', '--db', db)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`no session "gamma" in ${db}; run \`tooltx sessions\` to list them`)
  })

  it("K3.5: sessions shows each session's final status and its task", async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 's-completed', { task: 'summarise the TODOs', end: 'completed' })
    await writeSession(db, 's-aborted', { task: 'a task\nover two lines', end: 'aborted' })
    await writeSession(db, 's-interrupted', { task: 'x'.repeat(80), end: 'interrupted' })
    await writeSession(db, 's-error', { task: 'fails', end: 'error' })
    await writeSession(db, 's-open', { task: 'still going', end: 'none' })
    const listed = await tooltx(cwd, 'sessions', '--db', db)
    expect(listed.code).toBe(0)
    const rows = listed.stdout.trimEnd().split('\n')
    expect(rows[0]).toMatch(/^id +events {2}updated +status +task$/)
    const row = (id: string) => {
      const line = rows.find((r) => r.startsWith(`${id} `))!
      const [, status, task] = /^\S+ +\d+ {2}\S+ {2}(\S+) +(.*)$/.exec(line)!
      return { status, task }
    }
    expect(row('s-completed')).toEqual({ status: 'completed', task: 'summarise the TODOs' })
    expect(row('s-aborted')).toEqual({ status: 'aborted', task: 'a task over two lines' })
    expect(row('s-interrupted')).toEqual({ status: 'interrupted', task: `${'x'.repeat(59)}…` })
    expect(row('s-error')).toEqual({ status: 'error', task: 'fails' })
    expect(row('s-open')).toEqual({ status: 'unfinished', task: 'still going' })
  })

  it('N2.12: a submitted message a worker gave up on is shown by sessions and replay', async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 's-given-up', { task: 'first task', end: 'completed' })
    const store = sqliteStore(db)
    const session = await openSession(store, { id: 's-given-up' })
    await session.append('submission/failed', {
      submission: 'sub-1',
      reason: 'the agent factory threw: no model',
      message: { role: 'user', content: [{ type: 'text', text: 'second task' }] },
    })
    await session.close()
    await store.close()
    const listed = await tooltx(cwd, 'sessions', '--db', db)
    expect(listed.stdout).toMatch(
      /s-given-up .* completed +\(1 submitted message failed: see replay\) first task/,
    )
    const replay = await tooltx(cwd, 'replay', 's-given-up', '--db', db)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain(
      '✗ submitted message sub-1 was given up, never answered: the agent factory threw: no model (message: "second task")',
    )
  })

  it('K3.6: a damaged row names the database, the session and the seq', async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 'hurt', { task: 'x' })
    // A row without a checksum (as written before checksums, L11.7) whose data is not JSON.
    const raw = loadSqliteDriver(defaultSqliteDriver()).open(db)
    raw.prepare("UPDATE events SET crc = NULL WHERE session = 'hurt'").run()
    raw.prepare("UPDATE events SET data = '{broken' WHERE session = 'hurt' AND seq = 3").run()
    raw.close()
    const replay = await tooltx(cwd, 'replay', 'hurt', '--db', db)
    expect(replay.code).toBe(1)
    expect(replay.stderr).toMatch(
      new RegExp(
        `^tooltx: invariant violated: session "hurt" in ${db} is damaged at seq 3 \\(user/message\\): its data is not JSON \\(.+\\); it was left unchanged — restore it from a backup\\n$`,
      ),
    )
    const listed = await tooltx(cwd, 'sessions', '--db', db)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(
      /^hurt +\d+ {2}\S+ {2}damaged {5}invariant violated: session "hurt" .* at seq 3 /m,
    )
  })

  it.skipIf(POSTGRES_URL === undefined)(
    'G2.5: on PostgreSQL a damaged row fails only its session: sessions lists it as damaged and the others as usual',
    async () => {
      const cwd = scratch()
      const prefix = freshPrefix()
      const store = postgresStore(POSTGRES_URL!)
      for (const id of [`${prefix}-good`, `${prefix}-hurt`]) {
        const session = await openSession(store, { id })
        await session.append('turn/start', { turn: 1 })
        await session.append('step/start', { turn: 1, step: 1 })
        await session.append('user/message', {
          turn: 1,
          step: 1,
          message: { role: 'user', content: [{ type: 'text', text: 'a task' }] },
        })
        await session.close()
      }
      await store.close()
      const client = new pg.Client({ connectionString: POSTGRES_URL })
      await client.connect()
      // The database is shared: the damaged session must not outlive the test.
      onTestFinished(async () => {
        const ids = [`${prefix}-good`, `${prefix}-hurt`]
        await client.query('DELETE FROM tooltx_events WHERE session = ANY($1)', [ids])
        await client.query('DELETE FROM tooltx_sessions WHERE id = ANY($1)', [ids])
        await client.end()
      })
      await client.query("UPDATE tooltx_events SET data = '{broken' WHERE session = $1 AND seq = 3", [
        `${prefix}-hurt`,
      ])
      const listed = await tooltx(cwd, 'sessions', '--db', POSTGRES_URL!)
      expect(listed.code).toBe(0)
      expect(listed.stdout).toMatch(new RegExp(`^${prefix}-good +3 +\\S+ +unfinished +a task$`, 'm'))
      expect(listed.stdout).toMatch(
        new RegExp(
          `^${prefix}-hurt +3 +\\S+ +damaged +invariant violated: session "${prefix}-hurt" .* at seq 3 `,
          'm',
        ),
      )
      const replay = await tooltx(cwd, 'replay', `${prefix}-good`, '--db', POSTGRES_URL!)
      expect(replay.code).toBe(0)
    },
    60_000,
  )
  requirePostgresInCi('G2.5 on PostgreSQL')

  it("K3.7: a user's tool named like a CLI tool replays with generic cards, the CLI's own tools with their cards", async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 'user-session', { task: 'read it', calls: [USER_READ] })
    const replay = await tooltx(cwd, 'replay', 'user-session', '--db', db)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain(
      '    ▶ read_file\n        {"path":"README.md"}\n    ✓ read_file\n        user tool output\n',
    )
    expect(replay.stdout).not.toContain('Read README.md')

    const demo = await tooltx(cwd, 'demo', '--fast', '--db', db)
    const id = /Session saved as (\S+)/.exec(demo.stdout)![1]!
    const cli = await tooltx(cwd, 'replay', id, '--db', db)
    expect(cli.stdout).toContain('    ▶ Read README.md  [read]\n')
    expect(cli.stdout).toContain('    ▶ Write notes/todo-summary.md\n')
    expect(cli.stdout).toContain('    ▶ $ Run lint\n')
    // The result presenters still read the tool's own meta inside the signed one.
    expect(cli.stdout).toMatch(/\n {8}exit code \d+\n/)
  }, 60_000)

  it('K3.8: renderSession from the tooltx package prints what replay prints, or cards of your own definitions', async () => {
    const cwd = scratch()
    const db = path.join(cwd, 's.db')
    await writeSession(db, 'mine', { task: 'read it', calls: [USER_READ] })
    const store = sqliteStore(db)
    const events: readonly SessionEvent[] = await store.load('mine')
    await store.close()
    const replay = await tooltx(cwd, 'replay', 'mine', '--db', db)
    const printed = replay.stdout.split('\n').slice(2, -1)
    expect(renderSession(events)).toEqual(printed)

    const mine = defineTool({
      name: 'read_file',
      description: 'my reader',
      parameters: { path: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
      execute: () => 'x',
      presentCall: (args) => ({ card: 'generic', title: `Open ${args.path}`, kind: 'read' }),
    })
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(mine)
    const lines = renderSession(events, (name) => runtime.view(scope).get(name))
    expect(lines).toContain('    ▶ Open README.md  [read]')
  })
})
