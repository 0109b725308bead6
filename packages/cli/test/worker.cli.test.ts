import { randomUUID } from 'node:crypto'
import { postgresStore, type SessionEvent } from '@tooltx/session'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { cleanEnv, tooltxWith } from './cli-harness.js'
import { fakeModel } from './fake-model.js'
import { lastRole, startWorker, type WorkerProcess } from './worker-processes.js'

const brief = (events: readonly SessionEvent[]) =>
  events.map((e) => {
    if (e.type === 'turn/end') return `turn/end ${e.data.reason}`
    if (e.type === 'tool/call' || e.type === 'tool/result') return `${e.type} ${e.data.callId}`
    if (e.type === 'user/message')
      return `user/message ${String((e.data.message.source as { plan?: string })?.plan)}`
    return e.type
  })

const stopAll = (workers: WorkerProcess[]) =>
  onTestFinished(() => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL')
  })

describe('N2.7: tooltx worker and tooltx submit', () => {
  it('N2.7: both need --db postgres://… and say so with exit status 2', async () => {
    const env = cleanEnv({ OPENAI_API_KEY: 'test-key' })
    /** Runs tooltx with `args`, expecting a usage error whose stderr holds `says`. */
    const refused = async (args: string[], says: string) => {
      const result = await tooltxWith({ cwd: '.', env }, ...args)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(says)
      return result
    }
    await refused(
      ['worker', '--db', '.tooltx/sessions.db'],
      'tooltx: worker needs --db postgres://user:password@host:port/database (workers share sessions and the queue through PostgreSQL), got ".tooltx/sessions.db"',
    )
    const submit = await refused(['submit', 'demo', 'hello'], 'tooltx: submit needs --db postgres://')
    expect(submit.stderr).toContain('got no --db')
    await refused(
      ['submit', 'demo', '--db', 'postgres://x@127.0.0.1/db'],
      'tooltx: submit needs a session id and a message',
    )
    await refused(
      ['worker', '--db', 'postgres://x@127.0.0.1/db', '--concurrency', '0'],
      'tooltx: --concurrency must be a whole number of at least 1, got "0"',
    )
  })
})

describe.skipIf(POSTGRES_URL === undefined)('N2.4: a worker killed mid-turn', () => {
  it('N2.4: tooltx submit queues a turn; the worker running it is SIGKILLed; another takes over the lease after the visibility timeout, repairs and finishes it', async () => {
    const db = POSTGRES_URL!
    const queue = `q-${randomUUID().slice(0, 8)}`
    const session = `kill-${randomUUID().slice(0, 8)}`
    let killed = false
    const model = await fakeModel((request) => {
      if (lastRole(request) !== 'tool') {
        const n = randomUUID().slice(0, 6)
        return {
          toolCalls: [
            { id: `a-${n}`, name: 'read_file', arguments: '{"path":"README.md"}' },
            { id: `b-${n}`, name: 'read_file', arguments: '{"path":"src/pricing.ts"}' },
          ],
        }
      }
      // The first worker never gets its answer: it is killed while it waits for it.
      return killed ? { text: 'answered' } : { text: 'too late', delayMs: 120_000 }
    })
    const flags = ['--visibility-timeout', '2', '--grace', '1']
    const first = startWorker({ db, queue, baseURL: model.baseURL, flags })
    const workers = [first]
    stopAll(workers)
    await first.waitFor((line) => line.startsWith('tooltx worker '))
    const env = cleanEnv()
    const submitted = await tooltxWith(
      { cwd: '.', env },
      'submit',
      session,
      'read two files',
      '--db',
      db,
      '--queue',
      queue,
    )
    expect(submitted.stderr).toBe('')
    expect(submitted.code).toBe(0)
    const id = /^submitted ([0-9a-f-]{36}) to session /.exec(submitted.stdout)?.[1]
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    // Wait until the first worker has both results and is waiting for the model's answer.
    const deadline = Date.now() + 30_000
    while (!model.requests.some((r) => lastRole(r) === 'tool') && Date.now() < deadline) await sleep(50)
    const second = startWorker({ db, queue, baseURL: model.baseURL, flags })
    workers.push(second)
    await second.waitFor((line) => line.startsWith('tooltx worker '))
    killed = true
    first.proc.kill('SIGKILL')
    expect(await first.exited).toBe('SIGKILL')
    await second.waitFor((line) => line === `job ${id} ${session}: done (resume)`, 60_000)
    second.proc.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    expect(second.lines.at(-1)).toBe('worker stopped')

    const store = postgresStore(db)
    onTestFinished(() => store.close())
    const events = await store.load(session)
    const calls = events.filter((e) => e.type === 'tool/call').map((e) => e.data.callId)
    // Each turn opens with a step that runs two calls in parallel, then starts its next step.
    const twoCalls = (message: string, first: string | undefined, second: string | undefined) => [
      'turn/start',
      'step/start',
      `user/message ${message}`,
      'assistant/message',
      `tool/call ${first}`,
      `tool/call ${second}`,
      `tool/result ${first}`,
      `tool/result ${second}`,
      'step/end',
      'step/start',
    ]
    expect(brief(events)).toEqual([
      'submission/queued',
      ...twoCalls('fresh', calls[0], calls[1]),
      'step/end',
      'turn/end interrupted',
      ...twoCalls('resume', calls[2], calls[3]),
      'assistant/message',
      'step/end',
      'turn/end completed',
    ])
    const resume = events.find((e) => e.type === 'user/message' && e.data.turn === 2)
    expect(resume?.type === 'user/message' && resume.data.message.source).toEqual({
      kind: 'submission',
      id,
      plan: 'resume',
    })
  })
})

requirePostgresInCi('N2.4')

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
