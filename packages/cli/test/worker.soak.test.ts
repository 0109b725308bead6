/**
 * The soak (N2.8): 4 `tooltx worker` processes, 200 sessions, 1,000 submitted messages whose
 * turns make parallel tool calls, and a random worker SIGKILLed about every second for 60 s
 * (and restarted). Afterwards every log is checked whole.
 */
import { randomUUID } from 'node:crypto'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import { deriveMessages, openSession, postgresStore, type SessionEvent } from '@tooltx/session'
import { SUBMISSION_KIND, turnQueue } from '@tooltx/worker'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { fakeModel } from './fake-model.js'
import { jobLines, lastRole, startWorker, type WorkerProcess } from './worker-processes.js'

const WORKERS = 4
const SESSIONS = 200
const MESSAGES = 1000
const KILL_PHASE_MS = 60_000
/** Everything after the kill phase (draining the queue, stopping, checking) must fit in this. */
const DRAIN_MS = 75_000

/** What one session's log must satisfy; returns the problems found (none is the pass). */
function problems(events: readonly SessionEvent[], submitted: readonly string[]): string[] {
  const found: string[] = []
  events.forEach((event, i) => {
    if (event.seq !== i + 1) found.push(`event ${i} has seq ${event.seq}`)
  })
  const calls = new Map<string, number>()
  const results = new Map<string, number>()
  const turnsOf = new Map<string, number[]>()
  const ends = new Map<number, string>()
  for (const event of events) {
    if (event.type === 'tool/call') calls.set(event.data.callId, (calls.get(event.data.callId) ?? 0) + 1)
    if (event.type === 'tool/result')
      results.set(event.data.callId, (results.get(event.data.callId) ?? 0) + 1)
    if (event.type === 'turn/end') ends.set(event.data.turn, event.data.reason)
    if (event.type === 'user/message') {
      const source = event.data.message.source as { kind?: string; id?: string } | undefined
      if (source?.kind !== SUBMISSION_KIND || source.id === undefined)
        found.push(`seq ${event.seq}: unmarked user message`)
      else turnsOf.set(source.id, [...(turnsOf.get(source.id) ?? []), event.data.turn])
    }
  }
  for (const [id, n] of calls)
    if (n !== 1 || results.get(id) !== 1)
      found.push(`call ${id}: ${n} calls, ${results.get(id) ?? 0} results`)
  for (const id of results.keys()) if (!calls.has(id)) found.push(`result ${id} without a call`)
  for (const id of submitted) {
    const completed = (turnsOf.get(id) ?? []).filter((turn) => ends.get(turn) === 'completed')
    if (completed.length !== 1) found.push(`submission ${id}: ${completed.length} completed turns`)
  }
  if (turnsOf.size !== submitted.length)
    found.push(`${turnsOf.size} submissions in the log, ${submitted.length} submitted`)
  return found
}

describe.skipIf(POSTGRES_URL === undefined)('N2.8: the soak', () => {
  it(
    'N2.8: 4 workers, 200 sessions, 1,000 messages with parallel tool calls, a worker SIGKILLed about every second for 60 s: every message answered by exactly one completed turn, every call by one result, no seq gap, derived messages equal a replay',
    async () => {
      const db = POSTGRES_URL!
      const queueName = `soak-${randomUUID().slice(0, 8)}`
      const prefix = `soak-${randomUUID().slice(0, 8)}`
      const model = await fakeModel((request) => {
        if (lastRole(request) === 'tool') return { text: 'answered' }
        const n = randomUUID()
        return {
          delayMs: 15,
          toolCalls: [
            { id: `a-${n}`, name: 'read_file', arguments: '{"path":"README.md"}' },
            { id: `b-${n}`, name: 'list_files', arguments: '{"path":"src"}' },
          ],
        }
      })
      const flags = ['--concurrency', '4', '--visibility-timeout', '3', '--grace', '2']
      const spawnOne = () => startWorker({ db, queue: queueName, baseURL: model.baseURL, flags })
      const workers: WorkerProcess[] = Array.from({ length: WORKERS }, spawnOne)
      const everyWorker: WorkerProcess[] = [...workers]
      onTestFinished(() => {
        for (const w of everyWorker)
          if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL')
      })
      // The workers put their visibility timeout in force on the queue, so jobs submitted once
      // they are up get theirs, whatever the submitting side's queue options say (N2.1).
      await Promise.all(workers.map((w) => w.waitFor((line) => line.startsWith('tooltx worker '))))
      const queue = turnQueue({ connectionString: db, name: queueName })
      onTestFinished(() => queue.close())
      const submitted = new Map<string, string[]>()
      for (let s = 0; s < SESSIONS; s++) submitted.set(`${prefix}-${s}`, [])
      const ids = [...submitted.keys()]
      for (let m = 0; m < MESSAGES; m++) {
        const session = ids[m % SESSIONS]!
        submitted.get(session)!.push(await queue.submit(session, `message ${m}: look around`))
      }

      let kills = 0
      const killUntil = Date.now() + KILL_PHASE_MS
      while (Date.now() < killUntil) {
        await sleep(700 + Math.random() * 600)
        const slot = Math.floor(Math.random() * WORKERS)
        workers[slot]!.proc.kill('SIGKILL')
        await workers[slot]!.exited
        kills++
        workers[slot] = spawnOne()
        everyWorker.push(workers[slot]!)
      }
      const drainUntil = Date.now() + DRAIN_MS
      let pending = await queue.pending()
      const pendingAfterKills = pending
      const drainStarted = Date.now()
      while (pending > 0 && Date.now() < drainUntil) {
        await sleep(500)
        pending = await queue.pending()
      }
      console.log(
        `soak: ${pendingAfterKills} submissions pending after the kill phase, drained in ${Date.now() - drainStarted} ms`,
      )
      // A worker restarted late may still be loading: SIGTERM is handled once it is up (N2.7).
      await Promise.all(workers.map((w) => w.waitFor((line) => line.startsWith('tooltx worker '))))
      for (const w of workers) w.proc.kill('SIGTERM')
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual(workers.map(() => 0))
      // Reports by result (N2.2). A SIGKILLed worker reports nothing about the jobs it held: the
      // visibility timeout hands them out again, silently, and the worker that takes one reports
      // `resume` (the turn the kill cut short is continued) or `answered` (the turn had ended),
      // which only a job handed out again can be.
      const reports = jobLines(everyWorker.flatMap((w) => w.lines))
      const byResult = { done: 0, waiting: 0, 'handed-back': 0, failed: 0 }
      for (const report of reports) byResult[report.result]++
      const again = { resume: 0, answered: 0 }
      for (const report of reports)
        if (report.result === 'done' && (report.plan === 'resume' || report.plan === 'answered'))
          again[report.plan]++
      const reasons = new Map<string, number>()
      for (const report of reports) {
        if (report.result === 'done' || report.reason === undefined) continue
        const reason = `${report.result}: ${report.reason.replace(/"[^"]*"|\d+/g, '…').slice(0, 80)}`
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
      }
      console.log(
        `soak: job reports ${JSON.stringify(byResult)}; taken again after a kill: ${again.resume} resumed a turn cut short, ${again.answered} found it answered; why not done: ${JSON.stringify([...reasons])}`,
      )
      expect(pending).toBe(0)

      const store = postgresStore(db)
      onTestFinished(() => store.close())
      const found: string[] = []
      let turns = 0
      let calls = 0
      for (const [id, subs] of submitted) {
        const session = await openSession(store, { id })
        const events = session.events()
        found.push(...problems(events, subs).map((p) => `${id}: ${p}`))
        const replayed = stringifyJson(deriveMessages(await store.load(id)) as unknown as JsonValue)
        if (stringifyJson(session.messages() as unknown as JsonValue) !== replayed)
          found.push(`${id}: messages differ from a replay`)
        turns += events.filter((e) => e.type === 'turn/end').length
        calls += events.filter((e) => e.type === 'tool/call').length
        await session.close()
      }
      console.log(
        `soak: ${kills} SIGKILLs, ${turns} turns (${MESSAGES} completed), ${calls} tool calls, ${everyWorker.length} worker processes`,
      )
      expect(found).toEqual([])
      expect(kills).toBeGreaterThanOrEqual(40)
      // Every message was reported done by some worker, and the kills hit live turns: without a
      // job taken again the soak would have proved nothing about takeover.
      const done = new Set(reports.filter((r) => r.result === 'done').map((r) => r.submission))
      expect([...submitted.values()].flat().filter((id) => !done.has(id))).toEqual([])
      expect(again.resume + again.answered).toBeGreaterThan(0)
    },
    KILL_PHASE_MS + DRAIN_MS + 60_000,
  )
})

requirePostgresInCi('N2.8')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
