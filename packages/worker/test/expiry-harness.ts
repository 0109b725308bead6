/**
 * The world of the expiry tests (N2.20–N2.27): PostgreSQL sessions, a queue on a fresh schema,
 * a `'write'` tool every call of which is asked durably, and workers whose agents ask with an expiry.
 */
import { createAgent, scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { postgresStore, type SessionEvent, type SessionStore, suspendedTurn } from '@tooltx/session'
import { createWorker, type TurnQueue, turnQueue, type Worker, type WorkerJobReport } from '@tooltx/worker'
import pg from 'pg'
import { onTestFinished } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'
import { freshSchema, POSTGRES_URL } from './postgres.js'

/** A `'write'` tool, `pay`, whose every ask is durable (the runtime asks for each call), and its runs. */
export function payTool() {
  const runs: string[] = []
  const { runtime, scope } = scopeWith(
    defineTool({
      name: 'pay',
      description: 'Pays an id.',
      parameters: { id: { type: 'string', required: true } },
      output: textOutput,
      execute: (args) => {
        runs.push(args.id)
        return `paid ${args.id}`
      },
    }),
  )
  runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'a payment' }))
  return { runtime, scope, runs }
}

/**
 * Everything an expiry test works with: PostgreSQL sessions, a queue on a fresh schema, the
 * `pay` tool, and `worker()`, which starts a worker (its own store object, as on another
 * machine) whose agents ask durably with `expiresAfterMs`: a fresh turn pays once, a resumed one
 * answers `went on`.
 */
export function setup(expiresAfterMs: number) {
  const schema = freshSchema()
  const queue = turnQueue({
    connectionString: POSTGRES_URL!,
    schema,
    retryDelaySeconds: 0,
    maxWaitSeconds: 1,
  })
  const { runtime, scope, runs } = payTool()
  const reports: WorkerJobReport[] = []
  const stores: SessionStore[] = []
  const workers: Worker[] = []
  onTestFinished(async () => {
    for (const w of workers) await w.stop()
    await queue.close()
    for (const s of stores) await s.close()
  })
  const store = () => {
    const made = postgresStore(POSTGRES_URL!)
    stores.push(made)
    return made
  }
  const worker = async (on: TurnQueue = queue): Promise<Worker> => {
    const started = await createWorker({
      store: store(),
      queue: on,
      agent: (session) => {
        const resumed = suspendedTurn(session.events()) !== undefined
        const model = scripted(
          resumed
            ? [{ text: 'went on' }]
            : [{ toolCalls: [{ id: 'w1', name: 'pay', arguments: '{"id":"x"}' }] }, { text: 'paid' }],
        )
        return createAgent({ runtime, scope, session, model, approvals: { mode: 'durable', expiresAfterMs } })
      },
      onJob: (report) => reports.push(report),
    })
    workers.push(started)
    return started
  }
  const reader = store()
  /** The expiry jobs in the queue's table, in any state. */
  const expiryJobs = async (): Promise<{ state: string; start_after: Date }[]> => {
    const client = new pg.Client({ connectionString: POSTGRES_URL! })
    await client.connect()
    try {
      const sql = `SELECT state, start_after FROM ${schema}.job WHERE data ? 'expiry'`
      return (await client.query(sql)).rows
    } finally {
      await client.end()
    }
  }
  return { queue, schema, runs, reports, worker, store, expiryJobs, load: (id: string) => reader.load(id) }
}

export const until = async (check: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
}

export const brief = (events: readonly SessionEvent[]) =>
  events
    .filter((e) => !['step/start', 'step/end', 'assistant/message', 'user/message'].includes(e.type))
    .map((e) => {
      if (e.type === 'tool/result') return `tool/result ${e.data.callId} ${e.data.error?.code ?? 'ok'}`
      if (e.type === 'approval/decided') return `approval/decided ${e.data.outcome}`
      if (e.type === 'turn/end') return `turn/end ${e.data.reason}`
      return e.type
    })

/** The log of a turn whose ask expired and went on: the call denied, the turn completed. */
export const EXPIRED_TURN = [
  'turn/start',
  'tool/call',
  'approval/asked',
  'approval/decided expired',
  'turn/resumed',
  'tool/result w1 DENIED',
  'turn/end completed',
]

/** How long after its `expiresAt` the ask of `events` was recorded expired, in ms. */
export function lateness(events: readonly SessionEvent[]): number {
  const asked = events.find((e) => e.type === 'approval/asked')
  const decided = events.find((e) => e.type === 'approval/decided')
  if (asked?.type !== 'approval/asked' || decided?.type !== 'approval/decided') return Number.NaN
  return Date.parse(decided.data.decidedAt ?? '') - Date.parse(asked.data.expiresAt ?? '')
}

export const answered = (reports: readonly WorkerJobReport[], submission: string) =>
  reports.some((r) => r.submission === submission && r.plan === 'answered' && r.result === 'done')
