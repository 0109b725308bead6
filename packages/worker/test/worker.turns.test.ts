import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, type ScriptedStep, scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent, sqliteStore } from '@tooltx/session'
import { createWorker, RESUME_TEXT, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import { describe, expect, it, onTestFinished } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'
import { freshPrefix, freshSchema, POSTGRES_URL, requirePostgresInCi } from './postgres.js'

/** A runtime with one parallel-safe tool, `look`, that echoes its `id` argument. */
function toolset() {
  return scopeWith(
    defineTool({
      name: 'look',
      description: 'Echoes its id.',
      parameters: { id: { type: 'string', required: true } },
      output: textOutput,
      isConcurrencySafe: () => true,
      execute: (args) => `saw ${args.id}`,
    }),
  )
}

/**
 * What a worker test starts from: a memory store, a queue on a fresh schema (`queue` adds queue
 * options), the `toolset()`, and an empty list for the worker's job reports.
 */
function workerSetup(queue: { retryDelaySeconds?: number } = {}) {
  return {
    store: memoryStore(),
    queue: turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema(), ...queue }),
    ...toolset(),
    reports: [] as WorkerJobReport[],
  }
}

/** Two parallel tool calls, then a text answer. */
const steps = (tag: string): ScriptedStep[] => [
  {
    toolCalls: [
      { id: `${tag}-a`, name: 'look', arguments: '{"id":"a"}' },
      { id: `${tag}-b`, name: 'look', arguments: '{"id":"b"}' },
    ],
  },
  { text: `answered ${tag}` },
]

const brief = (events: readonly SessionEvent[]) =>
  events.map((e) =>
    e.type === 'tool/call' || e.type === 'tool/result' ? `${e.type} ${e.data.callId}` : e.type,
  )

describe.skipIf(POSTGRES_URL === undefined)('N2: workers on a PostgreSQL queue', () => {
  it('N2.2: a worker picks up a submitted turn, runs it with the agent loop and completes the job', async () => {
    const { store, queue, runtime, scope, reports } = workerSetup()
    let turns = 0
    let finished!: () => void
    const done = new Promise<void>((resolve) => {
      finished = resolve
    })
    const worker = await createWorker({
      store,
      queue,
      agent: (session) => createAgent({ runtime, scope, session, model: scripted(steps(`t${++turns}`)) }),
      onJob: (report) => {
        reports.push(report)
        if (report.result === 'done') finished()
      },
    })
    const id = `${freshPrefix()}-one`
    const submission = await queue.submit(id, 'look at a and b')
    await done
    await worker.stop()
    expect(await queue.pending()).toBe(0)
    await queue.close()
    expect(reports).toEqual([{ submission, session: id, plan: 'fresh', result: 'done' }])
    const session = await openSession(store, { id })
    expect(brief(session.events())).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'assistant/message',
      'tool/call t1-a',
      'tool/call t1-b',
      'tool/result t1-a',
      'tool/result t1-b',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const user = session.events()[2]!
    expect(user.type === 'user/message' && user.data.message).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'look at a and b' }],
      source: { kind: 'submission', id: submission, plan: 'fresh' },
    })
    expect(session.events().at(-1)!.data).toEqual({ turn: 1, reason: 'completed' })
  })
})

describe.skipIf(POSTGRES_URL === undefined)('N2.1, N2.6: the queue and graceful stops', () => {
  it('N2.1: submitting the same id twice queues one job; pending counts the unanswered submissions', async () => {
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema() })
    const id = randomUUID()
    const session = `${freshPrefix()}-twice`
    expect(await queue.submit(session, 'one', { id })).toBe(id)
    expect(await queue.submit(session, 'one again', { id })).toBe(id)
    await queue.submit(session, 'two')
    expect(await queue.pending()).toBe(2)
    await queue.close()
  })

  /** A worker whose turns wait `delayMs` before the model's first reply, reporting into `reports`. */
  async function slowWorker(
    queue: ReturnType<typeof turnQueue>,
    store: ReturnType<typeof memoryStore>,
    graceMs: number,
    reports: WorkerJobReport[],
  ) {
    const { runtime, scope } = toolset()
    return createWorker({
      store,
      queue,
      graceMs,
      agent: (session) =>
        createAgent({ runtime, scope, session, model: scripted([{ text: 'slow answer', delayMs: 400 }]) }),
      onJob: (report) => reports.push(report),
    })
  }

  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 20_000
    while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  it('N2.6: stop() lets a running turn finish within graceMs, then resolves with the job completed', async () => {
    const { store, queue, reports } = workerSetup()
    const worker = await slowWorker(queue, store, 10_000, reports)
    const session = `${freshPrefix()}-grace`
    const id = await queue.submit(session, 'take your time')
    await until(() => worker.active === 1)
    await worker.stop()
    expect(reports).toEqual([{ submission: id, session, plan: 'fresh', result: 'done' }])
    expect(await queue.pending()).toBe(0)
    await queue.close()
  })

  it('N2.6: after graceMs stop() aborts the turn and hands the job back; another worker resumes it to a completed turn', async () => {
    const { store, queue, reports } = workerSetup({ retryDelaySeconds: 0 })
    const first = await slowWorker(queue, store, 0, reports)
    const session = `${freshPrefix()}-handback`
    const id = await queue.submit(session, 'take your time')
    await until(() => first.active === 1)
    await first.stop()
    expect(reports).toEqual([
      {
        submission: id,
        session,
        plan: 'fresh',
        result: 'waiting',
        reason: 'the worker is stopping; its turn was aborted',
      },
    ])
    const second = await slowWorker(queue, store, 10_000, reports)
    await until(() => reports.length === 2)
    await second.stop()
    expect(reports[1]).toEqual({ submission: id, session, plan: 'resume', result: 'done' })
    const events = (await openSession(store, { id: session })).events()
    const ends = events.filter((e) => e.type === 'turn/end').map((e) => e.data)
    expect(ends).toEqual([
      { turn: 1, reason: 'aborted' },
      { turn: 2, reason: 'completed' },
    ])
    const resume = events.find((e) => e.type === 'user/message' && e.data.turn === 2)
    expect(resume?.type === 'user/message' && resume.data.message).toEqual({
      role: 'user',
      content: [{ type: 'text', text: RESUME_TEXT }],
      source: { kind: 'submission', id, plan: 'resume' },
    })
    await queue.close()
  })
})

describe.skipIf(POSTGRES_URL === undefined)('N2.5: handing jobs back', () => {
  it('N2.5 L14.6: two jobs of one session in one worker run one after the other: the second waits, never opened beside the first', async () => {
    const { store, queue, runtime, scope, reports } = workerSetup()
    const session = `${freshPrefix()}-twice`
    const first = await queue.submit(session, 'one')
    const second = await queue.submit(session, 'two')
    const worker = await createWorker({
      store,
      queue,
      concurrency: 2,
      agent: (s) =>
        createAgent({ runtime, scope, session: s, model: scripted([{ text: 'slow', delayMs: 300 }]) }),
      onJob: (report) => reports.push(report),
    })
    const deadline = Date.now() + 20_000
    while (reports.filter((r) => r.result === 'done').length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await worker.stop()
    await queue.close()
    expect(reports).toContainEqual({
      submission: second,
      session,
      result: 'waiting',
      reason: `the session is busy: invariant violated: session "${session}" is open in another handle of this store object, which holds its lease until that handle is closed; it was not opened again and nothing in it was repaired — use the open handle, or close it (session.close()) and then open the session again`,
    })
    expect(reports.filter((r) => r.result === 'done')).toEqual([
      { submission: first, session, plan: 'fresh', result: 'done' },
      { submission: second, session, plan: 'fresh', result: 'done' },
    ])
    const ends = (await store.load(session)).filter((e) => e.type === 'turn/end').map((e) => e.data)
    expect(ends).toEqual([
      { turn: 1, reason: 'completed' },
      { turn: 2, reason: 'completed' },
    ])
  })

  it('N2.5 N2.10: while a live writer holds the session the job waits, never forced; once it closes, the job runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-worker-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const holderStore = sqliteStore(join(dir, 'sessions.db'))
    const workerStore = sqliteStore(join(dir, 'sessions.db'))
    const session = `${freshPrefix()}-held`
    const held = await openSession(holderStore, { id: session })
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema() })
    const { runtime, scope } = toolset()
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({
      store: workerStore,
      queue,
      agent: (s) => createAgent({ runtime, scope, session: s, model: scripted(steps('h')) }),
      onJob: (report) => reports.push(report),
    })
    const id = await queue.submit(session, 'wait for the holder')
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 20_000
      while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await until(() => reports.length === 1)
    expect(reports[0]).toMatchObject({ submission: id, session, result: 'waiting' })
    expect(reports[0]!.reason).toMatch(
      new RegExp(`^the session is busy: .*session "${session}" is held by another live writer`),
    )
    expect(held.events()).toEqual([])
    await held.close()
    await until(() => reports.some((r) => r.result === 'done'))
    await worker.stop()
    expect(reports.at(-1)).toEqual({ submission: id, session, plan: 'fresh', result: 'done' })
    const events = (await holderStore.load(session)).filter((e) => e.type === 'turn/end')
    expect(events.map((e) => e.data)).toEqual([{ turn: 1, reason: 'completed' }])
    await queue.close()
    await workerStore.close()
    await holderStore.close()
  })
})

requirePostgresInCi('N2.2')

describe.skipIf(POSTGRES_URL === undefined)('F2.12: workers and durable approvals', () => {
  it('F2.12: a job whose turn suspends is done; after the decision the next job resumes the turn, then runs its own', async () => {
    const { decideApproval, pendingApprovals } = await import('@tooltx/agent')
    const { store, queue, runtime, scope, reports } = workerSetup()
    runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'check' }))
    const scripts: ScriptedStep[][] = [
      [{ toolCalls: [{ id: 'p1', name: 'look', arguments: '{"id":"a"}' }] }],
      [{ text: 'resumed answer' }, { text: 'second answer' }],
    ]
    const worker = await createWorker({
      store,
      queue,
      agent: (session) =>
        createAgent({ runtime, scope, session, model: scripted(scripts.shift()!), approvals: 'durable' }),
      onJob: (report) => reports.push(report),
    })
    const id = `${freshPrefix()}-approval`
    const until = async (n: number) => {
      const deadline = Date.now() + 20_000
      while (reports.length < n && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const first = await queue.submit(id, 'look at a')
    await until(1)
    expect(reports).toEqual([
      {
        submission: first,
        session: id,
        plan: 'fresh',
        result: 'done',
        reason:
          'the turn waits for a decision on "p1" (look); a job for the session after the decision resumes it',
      },
    ])
    // The report comes just before the job completes; the queue then has nothing pending.
    const deadline = Date.now() + 20_000
    while ((await queue.pending()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await queue.pending()).toBe(0)
    const decider = await openSession(store, { id })
    const [pending] = pendingApprovals(decider)
    await decideApproval(decider, 'p1', {
      decision: 'allowed-once',
      by: 'ops',
      digest: pending!.argumentsDigest,
    })
    await decider.close()
    const second = await queue.submit(id, 'and then?')
    await until(2)
    await worker.stop()
    await queue.close()
    expect(reports[1]).toEqual({ submission: second, session: id, plan: 'fresh', result: 'done' })
    const session = await openSession(store, { id })
    const ends = session.events().filter((e) => e.type === 'turn/end' || e.type === 'turn/resumed')
    expect(ends.map((e) => [e.type, e.data])).toEqual([
      ['turn/resumed', { turn: 1, step: 1 }],
      ['turn/end', { turn: 1, reason: 'completed' }],
      ['turn/end', { turn: 2, reason: 'completed' }],
    ])
    await session.close()
  }, 60_000)
})
