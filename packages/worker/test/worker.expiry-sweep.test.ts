/**
 * N2.26, N2.27: no suspended turn is left without its expiry job — the job is queued before the
 * ask is durable, and a worker's start-up sweep queues the job of a turn that has none (a turn
 * suspended before workers queued expiry jobs, or one whose job was lost). Real PostgreSQL, the
 * queue on a schema of the test's own (the sweep looks at the sessions it has jobs of).
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { answered, brief, EXPIRED_TURN, setup, until } from './expiry-harness.js'
import { freshPrefix, POSTGRES_URL, requirePostgresInCi } from './postgres.js'

requirePostgresInCi('N2.26')

describe.runIf(POSTGRES_URL !== undefined)('N2.26, N2.27: every expiring ask has its job', () => {
  it('N2.26: the expiry job is queued before the ask is durable: when it was queued the log held no ask', async () => {
    const t = setup(1500)
    const seen: string[][] = []
    const id = `${freshPrefix()}-order`
    // The worker's queue notes what the log held each time it queued an expiry job.
    await t.worker({
      ...t.queue,
      submit: async (...args) => {
        if (args[2]?.expiry !== undefined) seen.push(brief(await t.load(id)))
        return t.queue.submit(...args)
      },
    })
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => answered(t.reports, submission))
    expect(seen[0]).toEqual(['turn/start', 'tool/call'])
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
  }, 30_000)

  it('N2.26: when queueing before the ask fails, the ask is still recorded and the job queues it once the turn has suspended, with no retry', async () => {
    const t = setup(1500)
    let refusals = 1
    await t.worker({
      ...t.queue,
      submit: (...args) =>
        args[2]?.expiry !== undefined && refusals-- > 0
          ? Promise.reject(new Error('connection refused'))
          : t.queue.submit(...args),
    })
    const id = `${freshPrefix()}-late`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => answered(t.reports, submission))
    expect(t.reports.map((r) => `${r.result} ${r.plan}`)).toEqual(['done fresh', 'done answered'])
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
  }, 30_000)

  it('N2.27: a worker that starts finds a turn suspended with no expiry job and queues it, once however often it starts; the turn continues at the expiry', async () => {
    const t = setup(2500)
    const first = await t.worker()
    expect(await first.swept).toBe(0)
    const id = `${freshPrefix()}-swept`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => t.reports.length === 1)
    await first.stop()
    // As if a worker from before expiry jobs had suspended the turn: its job is gone.
    const client = new pg.Client({ connectionString: POSTGRES_URL! })
    await client.connect()
    await client.query(`DELETE FROM ${t.schema}.job WHERE data ? 'expiry'`)
    await client.end()
    expect(await t.expiryJobs()).toEqual([])
    const [a, b] = await Promise.all([t.worker(), t.worker()])
    expect([await a.swept, await b.swept]).toEqual([1, 1])
    const jobs = await t.expiryJobs()
    expect(jobs).toHaveLength(1)
    const asked = (await t.load(id)).find((e) => e.type === 'approval/asked')
    expect(jobs[0]!.start_after.toISOString()).toBe(asked?.type === 'approval/asked' && asked.data.expiresAt)
    await until(() => answered(t.reports, submission))
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
    expect(t.reports.some((r) => r.result === 'failed' || r.result === 'handed-back')).toBe(false)
  }, 30_000)
})
