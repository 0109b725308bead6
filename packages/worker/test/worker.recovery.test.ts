import { randomUUID } from 'node:crypto'
import { createAgent, decideApproval, pendingApprovals, type ScriptedStep, scripted } from '@tooltx/agent'
import { defineTool, idempotencyKey, type RunContext } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import { createWorker, RESUME_TEXT, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import { describe, expect, it } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'
import { summarizeSession } from '../../cli/src/display/session-summary.js'
import { TimelineRenderer } from '../../cli/src/display/timeline.js'
import { freshPrefix, freshSchema, POSTGRES_URL, requirePostgresInCi } from './postgres.js'

/** A `'read'` tool, `peek`, and a `'write'` tool, `pay`, that note each run's key and fencing token. */
function tools() {
  const runs: { name: string; key: string; fence: number | undefined }[] = []
  const note = (name: string, exec: RunContext) =>
    runs.push({ name, key: exec.idempotencyKey, fence: exec.fencingToken })
  const parameters = { id: { type: 'string', required: true } } as const
  const { runtime, scope } = scopeWith(
    defineTool({
      name: 'peek',
      description: 'Reads an id.',
      parameters,
      output: textOutput,
      effect: 'read',
      execute: (args, exec) => {
        note('peek', exec)
        return `saw ${args.id}`
      },
    }),
    defineTool({
      name: 'pay',
      description: 'Pays an id.',
      parameters,
      output: textOutput,
      execute: (args, exec) => {
        note('pay', exec)
        return `paid ${args.id}`
      },
    }),
  )
  return { runtime, scope, runs }
}

const until = async (check: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
}

const brief = (events: readonly SessionEvent[]) =>
  events.map((e) => {
    if (e.type === 'tool/result') return `tool/result ${e.data.callId} ${e.data.error?.code ?? 'ok'}`
    if (e.type === 'turn/end') return `turn/end ${e.data.reason}`
    return 'callId' in e.data ? `${e.type} ${e.data.callId}` : e.type
  })

describe.skipIf(POSTGRES_URL === undefined)('N2.10–N2.12: waits, takeovers and given-up submissions', () => {
  it('N2.10: a message to a session waiting for a person waits as long as it takes, using no retry (retryLimit 0), and runs after the decision', async () => {
    const store = memoryStore()
    const queue = turnQueue({
      connectionString: POSTGRES_URL!,
      schema: freshSchema(),
      retryLimit: 0,
      retryDelaySeconds: 0,
      maxWaitSeconds: 1,
    })
    const { runtime, scope } = tools()
    runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'check' }))
    const scripts: ScriptedStep[][] = [
      [{ toolCalls: [{ id: 'p1', name: 'peek', arguments: '{"id":"a"}' }] }],
      [{ text: 'resumed answer' }, { text: 'second answer' }],
    ]
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({
      store,
      queue,
      // Every job builds an agent; those that find the turn still waiting never call the model.
      agent: (session) => {
        const model = scripted(scripts.length > 1 ? scripts.shift()! : scripts[0]!)
        return createAgent({ runtime, scope, session, model, approvals: 'durable' })
      },
      onJob: (report) => reports.push(report),
    })
    const id = `${freshPrefix()}-waits`
    const first = await queue.submit(id, 'peek at a')
    await until(() => reports.length === 1)
    expect(reports[0]).toMatchObject({ submission: first, result: 'done' })
    const second = await queue.submit(id, 'and then?')
    // Each offer finds the turn still waiting: the job is put back, never failed.
    await until(() => reports.filter((r) => r.submission === second).length >= 3)
    const waits = reports.filter((r) => r.submission === second)
    expect(waits.every((r) => r.result === 'waiting')).toBe(true)
    expect(waits[0]!.reason).toBe(
      'the turn waits for a decision on "p1" (peek); a job for the session after the decision resumes it',
    )
    expect(await queue.pending()).toBe(1)
    const decider = await openSession(store, { id })
    const [pending] = pendingApprovals(decider)
    await decideApproval(decider, 'p1', {
      decision: 'allowed-once',
      by: 'ops',
      digest: pending!.argumentsDigest,
    })
    await decider.close()
    await until(() => reports.some((r) => r.submission === second && r.result === 'done'))
    await worker.stop()
    expect(reports.at(-1)).toEqual({ submission: second, session: id, plan: 'fresh', result: 'done' })
    expect(reports.some((r) => r.result === 'failed' || r.result === 'handed-back')).toBe(false)
    expect(await queue.pending()).toBe(0)
    await queue.close()
  }, 30_000)

  it('N2.11 F1.9: a worker that takes over a crashed turn re-runs its interrupted read with the same key, answers the write from its receipt, and hands tools its larger fencing token', async () => {
    const store = memoryStore()
    const session = `${freshPrefix()}-takeover`
    const submission = randomUUID()
    const where = { turn: 1, step: 1 }
    const call = (id: string, name: string) => ({
      type: 'tool-call' as const,
      id,
      name,
      arguments: '{"id":"x"}',
    })
    // What a worker killed mid-turn left: both calls logged, the write's receipt durable, no results.
    const crashed = await openSession(store, { id: session })
    expect(crashed.epoch).toBe(1)
    await crashed.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: where },
      {
        type: 'user/message',
        data: {
          ...where,
          message: {
            role: 'user',
            content: [{ type: 'text', text: 'peek and pay' }],
            source: { kind: 'submission', id: submission, plan: 'fresh' },
          },
        },
      },
      { type: 'assistant/message', data: { ...where, content: [call('r1', 'peek'), call('w1', 'pay')] } },
      { type: 'tool/call', data: { ...where, callId: 'r1', name: 'peek', arguments: '{"id":"x"}' } },
      { type: 'tool/call', data: { ...where, callId: 'w1', name: 'pay', arguments: '{"id":"x"}' } },
      { type: 'tool/effect', data: { ...where, callId: 'w1', name: 'pay', receipt: { ref: 'r-1' } } },
    ])
    await crashed.close()
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema() })
    const { runtime, scope, runs } = tools()
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({
      store,
      queue,
      agent: (s) => createAgent({ runtime, scope, session: s, model: scripted([{ text: 'resumed' }]) }),
      onJob: (report) => reports.push(report),
    })
    // The queue offers the job again (its visibility timeout ran out): the same submission id.
    await queue.submit(session, 'peek and pay', { id: submission })
    await until(() => reports.length === 1)
    await worker.stop()
    await queue.close()
    expect(reports).toEqual([{ submission, session, plan: 'resume', result: 'done' }])
    const events = (await openSession(store, { id: session })).events()
    expect(brief(events.slice(7))).toEqual([
      'tool/result r1 ok',
      'tool/result w1 TOOL_EFFECT_RECORDED',
      'step/end',
      'turn/end interrupted',
      'turn/start',
      'step/start',
      'user/message',
      'assistant/message',
      'step/end',
      'turn/end completed',
    ])
    const resume = events.find((e) => e.type === 'user/message' && e.data.turn === 2)
    expect(resume?.type === 'user/message' && resume.data.message.content).toEqual([
      { type: 'text', text: RESUME_TEXT },
    ])
    // The read ran once more, with the key of its first run and the new owner's epoch; the write never.
    const key = idempotencyKey({ scope: session, callId: 'r1', arguments: { id: 'x' } })
    expect(runs).toEqual([{ name: 'peek', key, fence: 2 }])
  }, 30_000)

  it('N2.12: a job that fails with no retry left is recorded as submission/failed, which sessions and replay show', async () => {
    const store = memoryStore()
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema(), retryLimit: 0 })
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({
      store,
      queue,
      agent: () => {
        throw new Error('no model configured')
      },
      onJob: (report) => reports.push(report),
    })
    const session = `${freshPrefix()}-failed`
    const submission = await queue.submit(session, 'please answer')
    await until(() => reports.length === 1)
    await until(async () => (await queue.pending()) === 0)
    await worker.stop()
    await queue.close()
    expect(reports).toEqual([
      {
        submission,
        session,
        plan: 'fresh',
        result: 'failed',
        reason: 'the agent factory threw: no model configured',
      },
    ])
    const events = await store.load(session)
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        'submission/failed',
        {
          submission,
          reason: 'the agent factory threw: no model configured',
          message: { role: 'user', content: [{ type: 'text', text: 'please answer' }] },
        },
      ],
    ])
    expect(summarizeSession(events).failedSubmissions).toBe(1)
    const timeline = new TimelineRenderer(() => undefined)
    expect(events.flatMap((e) => timeline.render(e))).toEqual([
      `✗ submitted message ${submission} was given up, never answered: the agent factory threw: no model configured (message: "please answer")`,
    ])
  }, 30_000)
})

requirePostgresInCi('N2.10')
