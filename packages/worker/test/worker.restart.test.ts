import { createAgent, scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import {
  memoryStore,
  openSession,
  postgresStore,
  type Session,
  type SessionEvent,
  type SessionStore,
} from '@tooltx/session'
import { createWorker, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import { describe, expect, it } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'
import { freshPrefix, freshSchema, POSTGRES_URL } from './postgres.js'
import { postgresBinaries, startThrowawayPostgres } from './throwaway-postgres.js'

const bin = postgresBinaries()

/** The submissions each logged, completed turn answered, by submission id. */
function answered(events: readonly SessionEvent[]): string[] {
  const byTurn = new Map<number, string>()
  const out: string[] = []
  for (const event of events) {
    if (event.type === 'user/message') {
      const source = event.data.message.source as { id?: string } | undefined
      if (source?.id !== undefined) byTurn.set(event.data.turn, source.id)
    } else if (event.type === 'turn/end' && event.data.reason === 'completed') {
      const id = byTurn.get(event.data.turn)
      if (id !== undefined) out.push(id)
    }
  }
  return out
}

/** The log in one line per event, for a failure message. */
const brief = (events: readonly SessionEvent[]): string =>
  events
    .map((e) => {
      if (e.type === 'turn/end') return `${e.seq} turn/end ${e.data.reason} ${e.data.message ?? ''}`
      if (e.type === 'user/message') return `${e.seq} user/message ${JSON.stringify(e.data.message.source)}`
      return `${e.seq} ${e.type}`
    })
    .join('\n')

/**
 * A `'write'` tool, `ship`, that counts its runs by idempotency key, and an agent factory whose
 * model asks for it once per session: a turn that resumes a cut-short one (its call already
 * logged) only answers, as a real model told the outcome would.
 */
function shipping() {
  const runs = new Map<string, number>()
  const { runtime, scope } = scopeWith(
    defineTool({
      name: 'ship',
      description: 'Ships an order (a write).',
      parameters: { id: { type: 'string', required: true } },
      output: textOutput,
      execute: (args, exec) => {
        const key = `${exec.idempotencyKey}`
        runs.set(key, (runs.get(key) ?? 0) + 1)
        return `shipped ${args.id}`
      },
    }),
  )
  const agent = (session: Session) => {
    const asked = session.events().some((e) => e.type === 'tool/call')
    const call = { id: `${session.id}-c1`, name: 'ship', arguments: '{"id":"1"}' }
    const steps = asked
      ? [{ text: 'shipped after the restart', delayMs: 50 }]
      : [
          { toolCalls: [call], delayMs: 150 },
          { text: 'shipped', delayMs: 150 },
        ]
    return createAgent({ runtime, scope, session, model: scripted(steps) })
  }
  return { runs, agent }
}

/**
 * Waits until every id in `ids` has a `done` report, up to `ms`. A job may be reported `done`
 * twice: the queue hands a job out again when its completion was lost to the restart or it
 * outlived the visibility timeout, and the second delivery finds it answered and runs nothing.
 */
async function allDone(reports: readonly WorkerJobReport[], ids: readonly string[], ms: number) {
  const deadline = Date.now() + ms
  const done = () => new Set(reports.filter((r) => r.result === 'done').map((r) => r.submission))
  while (ids.some((id) => !done().has(id)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50))
}

/** The `done` reports' submissions, each once, sorted; a repeated one must have run nothing. */
function doneOnce(reports: readonly WorkerJobReport[]): string[] {
  const seen = new Set<string>()
  for (const report of reports.filter((r) => r.result === 'done')) {
    if (seen.has(report.submission)) expect(report.plan).toBe('answered')
    seen.add(report.submission)
  }
  return [...seen].sort()
}

// What the restart makes the queue's background work report: its connections terminated or
// reset, refused while the server is down, or turned away while it shuts down or starts up.
const RESTART_ERROR = /terminat|connect|shut|starting up|ECONNREFUSED|ECONNRESET|EPIPE|closed/i

describe.skipIf(bin === undefined && process.env.CI !== 'true')(
  'N2.13: a PostgreSQL restart under running workers',
  () => {
    it('N2.13: pg_ctl restart in the middle of turns: workers and stores reconnect, every message is answered once, no write runs twice, nothing acknowledged is lost', async () => {
      if (bin === undefined) throw new Error('CI=true but no PostgreSQL binaries under /usr/lib/postgresql')
      const server = await startThrowawayPostgres(bin)
      const errors: unknown[] = []
      const store = postgresStore(server.url, { leaseMs: 900 })
      const queue = turnQueue({
        connectionString: server.url,
        visibilityTimeoutSeconds: 2,
        maintenanceIntervalSeconds: 1,
        retryDelaySeconds: 0,
        reportError: (error) => errors.push(error),
      })
      try {
        const { runs, agent } = shipping()
        const reports: WorkerJobReport[] = []
        const worker = await createWorker({
          store,
          queue,
          concurrency: 3,
          agent,
          onJob: (report) => reports.push(report),
        })
        const sessions = ['r1', 'r2', 'r3']
        const ids = await Promise.all(sessions.map((s) => queue.submit(s, `ship order of ${s}`)))
        // Restart while the turns run (each takes about half a second).
        const deadline = Date.now() + 10_000
        while (worker.active < 3 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10))
        await server.restart()
        // Generous for a loaded machine: a job handed back is offered again within seconds.
        await allDone(reports, ids, 60_000)
        await worker.stop()
        expect(doneOnce(reports)).toEqual([...ids].sort())
        expect(reports.some((r) => r.result === 'failed')).toBe(false)
        // Every message is answered by exactly one completed turn, and every call by one result.
        for (const [i, id] of sessions.entries()) {
          const session = await openSession(store, { id })
          const events = session.events()
          expect(answered(events), brief(events)).toEqual([ids[i]])
          const calls = events.filter((e) => e.type === 'tool/call').length
          expect(events.filter((e) => e.type === 'tool/result').length).toBe(calls)
          await session.close()
        }
        // A write started before the restart is never run again (its outcome is unknown instead).
        expect([...runs.values()].every((n) => n === 1)).toBe(true)
        // A job the restart cut short failed with the database's own error as its reason.
        for (const report of reports.filter((r) => r.result === 'handed-back')) {
          expect(report.reason).toMatch(/^the (turn did not end durably .*|session could not be opened): \S/)
        }
        // The restart closed connections under the queue, and its errors say so.
        expect(errors.length).toBeGreaterThan(0)
        for (const error of errors) expect(String(error)).toMatch(RESTART_ERROR)
      } finally {
        await queue.close().catch(() => {})
        await store.close().catch(() => {})
        await server.stop()
      }
    }, 120_000)
  },
)

describe.skipIf(POSTGRES_URL === undefined)('N2.13: a write that fails in the middle of a turn', () => {
  it('N2.13 N2.5: a turn whose write failed does not end `error` once the database is back: the job is retried, the turn recovered and resumed, the message answered once', async () => {
    // A store that refuses the write of the turn's first tool call once, as a database that
    // is restarting does, and takes every write after it (the database is back at once).
    const inner = memoryStore()
    let refused: string | undefined
    const store: SessionStore = {
      ...inner,
      append: async (id, events) => {
        if (refused === undefined && events.some((e) => e.type === 'tool/call')) {
          refused = id
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
        }
        await inner.append(id, events)
      },
    }
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema(), retryDelaySeconds: 0 })
    const { runs, agent } = shipping()
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({ store, queue, agent, onJob: (report) => reports.push(report) })
    const id = `${freshPrefix()}-write`
    try {
      const submission = await queue.submit(id, 'ship order 1')
      await allDone(reports, [submission], 20_000)
      await worker.stop()
      expect(refused).toBe(id)
      expect(reports.map((r) => [r.plan, r.result])).toEqual([
        ['fresh', 'handed-back'],
        ['resume', 'done'],
      ])
      expect(reports[0]!.reason).toBe(
        'the turn did not end durably (aborted, or its end was not written): connect ECONNREFUSED 127.0.0.1:5432',
      )
      const session = await openSession(store, { id })
      const events = session.events()
      await session.close()
      // The failed turn was left open, recovered (`interrupted`) by the next attempt, and resumed.
      expect(answered(events), brief(events)).toEqual([submission])
      expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual([
        'interrupted',
        'completed',
      ])
      // The refused write held the call, which never started; the resumed turn ran it once.
      expect([...runs.values()]).toEqual([1])
    } finally {
      await worker.stop()
      await queue.close().catch(() => {})
    }
  })

  it('N2.13 N2.12: on the last attempt such a job records submission/failed on a fresh handle, after the crash repair of its open turn', async () => {
    const inner = memoryStore()
    let refused = false
    const store: SessionStore = {
      ...inner,
      append: async (id, events) => {
        if (!refused && events.some((e) => e.type === 'tool/call')) {
          refused = true
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432')
        }
        await inner.append(id, events)
      },
    }
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema(), retryLimit: 0 })
    const { runs, agent } = shipping()
    const reports: WorkerJobReport[] = []
    const worker = await createWorker({ store, queue, agent, onJob: (report) => reports.push(report) })
    const id = `${freshPrefix()}-last`
    try {
      await queue.submit(id, 'ship order 1')
      const deadline = Date.now() + 20_000
      while (reports.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      await worker.stop()
      const reason =
        'the turn did not end durably (aborted, or its end was not written): connect ECONNREFUSED 127.0.0.1:5432'
      expect(reports.map((r) => [r.plan, r.result, r.reason])).toEqual([['fresh', 'failed', reason]])
      const session = await openSession(store, { id })
      const events = session.events()
      await session.close()
      expect(answered(events)).toEqual([])
      expect(events.map((e) => (e.type === 'turn/end' ? `turn/end ${e.data.reason}` : e.type))).toEqual([
        'turn/start',
        'step/start',
        'user/message',
        'step/end',
        'turn/end interrupted',
        'submission/failed',
      ])
      expect(runs.size).toBe(0)
    } finally {
      await worker.stop()
      await queue.close().catch(() => {})
    }
  })
})
