import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { postgresStore } from '@tooltx/session'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { cleanEnv, sampleWorkspace, tooltxWith } from './cli-harness.js'
import { fakeModel, toolMessage } from './fake-model.js'
import { jobLines, lastRole, startWorker, type WorkerProcess } from './worker-processes.js'

requirePostgresInCi('N2.16')

/** A model that edits `hello.txt` (call `call_edit`) and, once it has the result, says `done.`. */
const editingModel = () =>
  fakeModel((request) =>
    lastRole(request) === 'tool'
      ? { text: 'done.' }
      : {
          toolCalls: [
            {
              id: 'call_edit',
              name: 'edit_file',
              arguments: JSON.stringify({ path: 'hello.txt', old_text: 'two', new_text: 'TWO' }),
            },
          ],
        },
  )

/** Stops a worker with SIGTERM and waits until it has exited. */
async function stop(worker: WorkerProcess): Promise<void> {
  worker.proc.kill('SIGTERM')
  expect(await worker.exited).toBe(0)
}

describe('tooltx worker --approvals', () => {
  it('N2.16: --approvals takes only durable, and not with --yes (usage errors, exit 2, before connecting)', async () => {
    const worker = (...args: string[]) =>
      tooltxWith(
        { cwd: '.', env: cleanEnv() },
        'worker',
        '--db',
        'postgres://nobody@127.0.0.1:1/none',
        ...args,
      )
    const other = await worker('--approvals', 'later')
    expect(other.code).toBe(2)
    expect(other.stderr).toContain('--approvals takes only "durable", got "later"')
    const both = await worker('--approvals', 'durable', '--yes')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--approvals durable and --yes contradict each other: pick one')
  })
})

/**
 * Worker A takes a submission whose turn asks durably to edit `hello.txt`, reports the job
 * done, and stops; `tooltx approvals` then lists the ask and `tooltx approve --digest` decides
 * it, queueing the job that resumes the turn. Returns what the test needs to go on.
 */
async function decidedWhileNoWorkerRuns() {
  const db = POSTGRES_URL!
  const queue = `q-${randomUUID().slice(0, 8)}`
  const session = `durable-${randomUUID().slice(0, 8)}`
  const ws = sampleWorkspace()
  const file = path.join(ws, 'hello.txt')
  writeFileSync(file, 'one\ntwo\n')
  const model = await editingModel()
  const workers: WorkerProcess[] = []
  onTestFinished(() => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL')
  })
  const worker = () => {
    const flags = ['--workspace', ws, '--approvals', 'durable']
    const started = startWorker({ db, queue, baseURL: model.baseURL, flags })
    workers.push(started)
    return started
  }
  const first = worker()
  await first.waitFor((line) => line.startsWith('tooltx worker '))
  const cli = (...args: string[]) => tooltxWith({ cwd: ws, env: cleanEnv() }, ...args, '--db', db)
  const submitted = await cli('submit', session, 'make two loud', '--queue', queue)
  const id = /^submitted ([0-9a-f-]{36}) /.exec(submitted.stdout)![1]!
  await first.waitFor((line) => line.startsWith(`job ${id} ${session}: done`))
  // The first worker stops: nothing keeps polling while the ask waits.
  await stop(first)
  expect(jobLines(first.lines)).toEqual([
    {
      submission: id,
      session,
      result: 'done',
      plan: 'fresh',
      reason:
        'the turn waits for a decision on "call_edit" (edit_file); a job for the session after the decision resumes it',
    },
  ])
  expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
  // Other sessions of the database may wait too: read this session's entry only.
  const listed = await cli('approvals')
  const entry = listed.stdout.slice(listed.stdout.indexOf(`${session}  call call_edit  edit_file  expires `))
  expect(entry).toMatch(/^\S+ {2}call call_edit/)
  expect(entry).toContain('reason: changes hello.txt (2 lines now; file sha256 ')
  const digest = /digest: ([0-9a-f]+)/.exec(entry)![1]!
  const approved = await cli(
    'approve',
    session,
    'call_edit',
    '--digest',
    digest,
    '--by',
    'ops',
    '--queue',
    queue,
  )
  expect(approved.stderr).toBe('')
  expect(approved.code).toBe(0)
  expect(approved.stdout).toContain(
    `Queued a job on ${queue} that continues submission ${id}: a worker (tooltx worker --db …) resumes the turn.`,
  )
  return { db, session, id, file, model, first, worker }
}

describe.skipIf(POSTGRES_URL === undefined)('tooltx worker --approvals durable (PostgreSQL)', () => {
  it('N2.16, N2.17, N2.18: an ask ends the job without a retry; approve, after that worker is gone, queues the job that resumes the turn; another worker finishes it with no second message', async () => {
    const { db, session, id, file, model, first, worker } = await decidedWhileNoWorkerRuns()
    const second = worker()
    // The queued job runs as the submission whose turn it continues: once resumed, it is answered.
    await second.waitFor((line) => line === `job ${id} ${session}: done (answered)`, 30_000)
    await stop(second)
    expect(readFileSync(file, 'utf8')).toBe('one\nTWO\n')
    expect(toolMessage(model, 'call_edit')).not.toMatch(/^Error/)

    const store = postgresStore(db)
    onTestFinished(() => store.close())
    const events = await store.load(session)
    const kinds = events.map((e) => e.type)
    expect(kinds.filter((k) => k === 'user/message')).toHaveLength(1)
    expect(kinds.filter((k) => k === 'tool/result')).toHaveLength(1)
    const order = ['approval/asked', 'approval/decided', 'turn/resumed', 'tool/result', 'turn/end']
    expect(kinds.filter((k) => order.includes(k))).toEqual(order)
    expect(events.findLast((e) => e.type === 'turn/end')?.data).toEqual({ turn: 1, reason: 'completed' })
    const all = [...jobLines(first.lines), ...jobLines(second.lines)]
    expect(all.some((j) => j.result === 'failed' || j.result === 'handed-back')).toBe(false)
  }, 90_000)

  it('K5.13: a file changed after the durable ask is not written by the worker that resumes the approved edit: CONFLICT', async () => {
    const { session, id, file, model, worker } = await decidedWhileNoWorkerRuns()
    writeFileSync(file, 'zero\none\ntwo\n')
    const second = worker()
    await second.waitFor((line) => line === `job ${id} ${session}: done (answered)`, 30_000)
    await stop(second)
    expect(readFileSync(file, 'utf8')).toBe('zero\none\ntwo\n')
    expect(toolMessage(model, 'call_edit')).toBe(
      'Error: "hello.txt" changed after the change was shown for approval, so nothing was written; ' +
        'read the file again and make the change against what it holds now',
    )
  }, 90_000)
})

/** A submission to a worker whose asks expire after `expiry` seconds; the worker stops once it suspended, when `stopAfterAsk`. */
async function expiringSubmission(expiry: number, stopAfterAsk: boolean) {
  const db = POSTGRES_URL!
  const queue = `q-${randomUUID().slice(0, 8)}`
  const session = `expiry-${randomUUID().slice(0, 8)}`
  const ws = sampleWorkspace()
  const file = path.join(ws, 'hello.txt')
  writeFileSync(file, 'one\ntwo\n')
  const model = await editingModel()
  const workers: WorkerProcess[] = []
  onTestFinished(() => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL')
  })
  const worker = () => {
    const flags = ['--workspace', ws, '--approvals', 'durable', '--approval-expiry', String(expiry)]
    const started = startWorker({ db, queue, baseURL: model.baseURL, flags })
    workers.push(started)
    return started
  }
  const first = worker()
  await first.waitFor((line) => line.startsWith('tooltx worker '))
  const cli = (...args: string[]) => tooltxWith({ cwd: ws, env: cleanEnv() }, ...args, '--db', db)
  const submitted = await cli('submit', session, 'make two loud', '--queue', queue)
  const id = /^submitted ([0-9a-f-]{36}) /.exec(submitted.stdout)![1]!
  await first.waitFor((line) => line.startsWith(`job ${id} ${session}: done (fresh)`))
  if (stopAfterAsk) await stop(first)
  const store = postgresStore(db)
  onTestFinished(() => store.close())
  const asked = (await store.load(session)).find((e) => e.type === 'approval/asked')
  const expiresAt = asked?.type === 'approval/asked' ? asked.data.expiresAt! : ''
  return { db, queue, session, id, file, model, first, worker, cli, store, expiresAt }
}

describe.skipIf(POSTGRES_URL === undefined)(
  'tooltx worker --approvals durable --approval-expiry (PostgreSQL)',
  () => {
    it('N2.20, K5.14: an ask nobody decides expires after --approval-expiry and the running worker continues the turn within seconds, the edit denied', async () => {
      const { session, id, file, model, first, store, expiresAt } = await expiringSubmission(2, false)
      const line = await first.waitFor((l) => l.startsWith(`job ${id} ${session}: done (answered)`), 20_000)
      const seen = Date.now()
      expect(line).toBe(
        `job ${id} ${session}: done (answered) — the approval of "call_edit" (edit_file) expired at ${expiresAt} with nobody deciding: the call was denied and the turn went on`,
      )
      expect(seen - Date.parse(expiresAt)).toBeLessThan(4000)
      await stop(first)
      expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
      expect(toolMessage(model, 'call_edit')).toBe(
        'Error: approval for tool "edit_file" expired before anyone decided it',
      )
      const kinds = (await store.load(session)).map((e) => e.type)
      const order = ['approval/asked', 'approval/decided', 'turn/resumed', 'tool/result', 'turn/end']
      expect(kinds.filter((k) => order.includes(k))).toEqual(order)
      expect(jobLines(first.lines).some((j) => j.result === 'failed' || j.result === 'handed-back')).toBe(
        false,
      )
    }, 60_000)

    it('K5.15, K5.16, N2.22: with no worker running, approvals lists the expired ask, approve records the expiry and queues the continuation; a worker started later finishes the turn', async () => {
      const { queue, session, id, file, model, worker, cli, store, expiresAt } = await expiringSubmission(
        3,
        true,
      )
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 50),
      )
      const listed = await cli('approvals')
      expect(listed.stdout.split('\n').filter((l) => l.includes(session))).toEqual([
        `${session}  call call_edit  edit_file  expired ${expiresAt}: nobody decided in time, so the call is denied`,
      ])
      expect(listed.stdout).toContain(
        '    the turn continues without it: a worker takes the job queued for the expiry (tooltx worker --db …)',
      )
      const late = await cli('approve', session, 'call_edit', '--queue', queue)
      expect(late.code).toBe(1)
      expect(late.stderr).toContain(`tooltx: the approval of call "call_edit" expired at ${expiresAt}`)
      expect(late.stdout).toContain(
        `Queued a job on ${queue} that continues submission ${id}: a worker (tooltx worker --db …) resumes the turn.`,
      )
      const second = worker()
      await second.waitFor((line) => line.startsWith(`job ${id} ${session}: done (answered)`), 30_000)
      await stop(second)
      expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n')
      expect(toolMessage(model, 'call_edit')).toBe(
        'Error: approval for tool "edit_file" expired before anyone decided it',
      )
      const events = await store.load(session)
      expect(events.filter((e) => e.type === 'approval/decided')).toHaveLength(1)
      expect(events.filter((e) => e.type === 'turn/resumed')).toHaveLength(1)
      expect(events.findLast((e) => e.type === 'turn/end')?.data).toEqual({ turn: 1, reason: 'completed' })
    }, 60_000)

    it('K5.14: --approval-expiry without --approvals durable, or below 1, is a usage error (exit 2) before connecting', async () => {
      const worker = (...args: string[]) =>
        tooltxWith(
          { cwd: '.', env: cleanEnv() },
          'worker',
          '--db',
          'postgres://nobody@127.0.0.1:1/none',
          ...args,
        )
      const alone = await worker('--approval-expiry', '5')
      expect(alone.code).toBe(2)
      expect(alone.stderr).toContain('--approval-expiry goes with --approvals durable')
      const zero = await worker('--approvals', 'durable', '--approval-expiry', '0')
      expect(zero.code).toBe(2)
      expect(zero.stderr).toContain('--approval-expiry must be a whole number of at least 1, got "0"')
    })
  },
)
