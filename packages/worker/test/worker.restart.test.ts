import { createAgent, scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { openSession, postgresStore, type SessionEvent } from '@tooltx/session'
import { createWorker, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import { describe, expect, it } from 'vitest'
import { scopeWith, textOutput } from '../../agent/test/loop-harness.js'
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
        const reports: WorkerJobReport[] = []
        const worker = await createWorker({
          store,
          queue,
          concurrency: 3,
          // A model that asks for the write once per session: a turn that resumes a cut-short one
          // (its call already logged) only answers, as a real model told the outcome would.
          agent: (session) => {
            const asked = session.events().some((e) => e.type === 'tool/call')
            const call = { id: `${session.id}-c1`, name: 'ship', arguments: '{"id":"1"}' }
            const steps = asked
              ? [{ text: 'shipped after the restart', delayMs: 50 }]
              : [
                  { toolCalls: [call], delayMs: 150 },
                  { text: 'shipped', delayMs: 150 },
                ]
            return createAgent({ runtime, scope, session, model: scripted(steps) })
          },
          onJob: (report) => reports.push(report),
        })
        const sessions = ['r1', 'r2', 'r3']
        const ids = await Promise.all(sessions.map((s) => queue.submit(s, `ship order of ${s}`)))
        // Restart while the turns run (each takes about half a second).
        const deadline = Date.now() + 10_000
        while (worker.active < 3 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10))
        await server.restart()
        while (reports.filter((r) => r.result === 'done').length < 3 && Date.now() < deadline + 20_000) {
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        await worker.stop()
        expect(
          reports
            .filter((r) => r.result === 'done')
            .map((r) => r.submission)
            .sort(),
        ).toEqual([...ids].sort())
        expect(reports.some((r) => r.result === 'failed')).toBe(false)
        // Every message is answered by exactly one completed turn, and every call by one result.
        for (const [i, id] of sessions.entries()) {
          const session = await openSession(store, { id })
          const events = session.events()
          expect(answered(events)).toEqual([ids[i]])
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
        for (const error of errors)
          expect(String(error)).toMatch(/terminat|connect|shut|ECONNREFUSED|closed/i)
      } finally {
        await queue.close().catch(() => {})
        await store.close().catch(() => {})
        await server.stop()
      }
    }, 60_000)
  },
)
