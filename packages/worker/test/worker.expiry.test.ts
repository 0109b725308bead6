import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createAgent, decideApproval, pendingApprovals, scripted } from '@tooltx/agent'
import { forkSession, memoryStore, openSession } from '@tooltx/session'
import { type TurnQueue, turnQueue } from '@tooltx/worker'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { expiryJob, untilExpiry } from '../src/ask-expiry.js'
import { markedMessage, userMessageOf } from '../src/submission.js'
import { answered, brief, EXPIRED_TURN, lateness, payTool, setup, until } from './expiry-harness.js'
import { freshPrefix, POSTGRES_URL, requirePostgresInCi } from './postgres.js'

requirePostgresInCi('N2.20')

const REPO = fileURLToPath(new URL('../../..', import.meta.url))

describe('N2.20: the expiry job of a log', () => {
  it('N2.20: a turn a submission started that waits on an undecided ask has an expiry job; a decided ask, or a turn no submission started, has none', async () => {
    const { runtime, scope } = payTool()
    const model = () => scripted([{ toolCalls: [{ id: 'w1', name: 'pay', arguments: '{"id":"x"}' }] }])
    const submitted = await openSession(memoryStore(), { id: 'submitted' })
    const agent = createAgent({ runtime, scope, session: submitted, model: model(), approvals: 'durable' })
    const submission = {
      id: '0b6d6f3e-9a3c-4f55-8f0e-0c1de1b7c002',
      session: 'submitted',
      message: userMessageOf('pay x'),
    }
    expect((await agent.inject(markedMessage(submission, 'fresh'))).reason).toBe('suspended')
    const [pending] = pendingApprovals(submitted)
    expect(expiryJob(submitted.events())).toEqual({
      continues: submission.id,
      message: submission.message,
      expiry: { callId: 'w1', expiresAt: pending!.expiresAt },
    })
    await decideApproval(submitted, 'w1', { decision: 'denied', by: 'ops', digest: pending!.argumentsDigest })
    expect(expiryJob(submitted.events())).toBeUndefined()
    const plain = await openSession(memoryStore(), { id: 'plain' })
    const run = createAgent({ runtime, scope, session: plain, model: model(), approvals: 'durable' })
    expect((await run.send('pay x')).reason).toBe('suspended')
    expect(expiryJob(plain.events())).toBeUndefined()
  })

  it('N2.22: an expiry job waits exactly the time left until the ask expires, and not at all from then on or once it is decided', async () => {
    const { runtime, scope } = payTool()
    const session = await openSession(memoryStore(), { id: 'clock' })
    const model = scripted([{ toolCalls: [{ id: 'w1', name: 'pay', arguments: '{"id":"x"}' }] }])
    await createAgent({ runtime, scope, session, model, approvals: 'durable' }).send('pay x')
    const [pending] = pendingApprovals(session)
    const at = Date.parse(pending!.expiresAt)
    const expiry = { callId: 'w1', expiresAt: pending!.expiresAt }
    fc.assert(
      fc.property(fc.integer({ min: -100_000_000, max: 100_000_000 }), (offset) => {
        const left = untilExpiry(session.events(), expiry, at + offset)
        expect(left).toBe(offset < 0 ? -offset : undefined)
      }),
    )
    expect(untilExpiry(session.events(), { ...expiry, callId: 'other' }, at - 1000)).toBeUndefined()
    await decideApproval(session, 'w1', { decision: 'denied', by: 'ops', digest: pending!.argumentsDigest })
    expect(untilExpiry(session.events(), expiry, at - 1000)).toBeUndefined()
  })
})

describe('N2.20: the expiry job on the queue', () => {
  it('N2.20: submit checks expiry before touching the database: it needs continues, a call id and an ISO time', async () => {
    const queue = turnQueue({ connectionString: 'postgres://nobody@127.0.0.1:1/none' })
    const continues = '0b6d6f3e-9a3c-4f55-8f0e-0c1de1b7c001'
    await expect(
      queue.submit('s1', 'hi', { expiry: { callId: 'c1', expiresAt: new Date().toISOString() } }),
    ).rejects.toThrow('submit: expiry needs continues, the submission whose turn the ask waits in')
    for (const expiry of [
      { callId: '', expiresAt: '2030-01-01T00:00:00.000Z' },
      { callId: 'c1', expiresAt: 'soon' },
    ]) {
      await expect(queue.submit('s1', 'hi', { continues, expiry })).rejects.toMatchObject({
        code: 'INVALID_DEFINITION',
        message: expect.stringContaining(
          'submit: expiry must be { callId: "<call id>", expiresAt: "<ISO time>" }',
        ),
      })
    }
    await queue.close()
  })
})

describe.skipIf(POSTGRES_URL === undefined)('N2.20–N2.25: durable asks that expire on workers', () => {
  it('N2.20: an ask nobody decides continues at its expiry, within seconds, with no further submission: the call is denied once and the turn completes', async () => {
    const t = setup(1500)
    await t.worker()
    const id = `${freshPrefix()}-expires`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => answered(t.reports, submission))
    const events = await t.load(id)
    expect(brief(events)).toEqual(EXPIRED_TURN)
    expect(t.runs).toEqual([])
    const late = lateness(events)
    expect(late).toBeGreaterThanOrEqual(0)
    expect(late).toBeLessThan(3000)
    const expired = t.reports.find((r) => r.plan === 'answered')!
    expect(expired.reason).toMatch(
      /^the approval of "w1" \(pay\) expired at \S+ with nobody deciding: the call was denied and the turn went on$/,
    )
    expect(t.reports.map((r) => `${r.result} ${r.plan}`)).toEqual(['done fresh', 'done answered'])
    expect(await t.queue.pending()).toBe(0)
  }, 30_000)

  it('N2.20: the expiry job is queued once per ask: queueing it again returns the same job, which is not offered before the expiry', async () => {
    const t = setup(60_000)
    await t.worker()
    const id = `${freshPrefix()}-once`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => t.reports.length === 1)
    const events = await t.load(id)
    const asked = events.find((e) => e.type === 'approval/asked')
    if (asked?.type !== 'approval/asked') throw new Error('no ask')
    const expiry = { callId: 'w1', expiresAt: asked.data.expiresAt! }
    const again = () => t.queue.submit(id, 'pay x', { continues: submission, expiry })
    const first = await again()
    expect(await again()).toBe(first)
    // One job waits for the expiry (the worker's, which these calls found), offered not before it.
    const jobs = await t.expiryJobs()
    expect(jobs.map((j) => [j.state, j.start_after.toISOString()])).toEqual([['created', expiry.expiresAt]])
    // It is no submission: pending counts none, and nothing takes it early.
    expect(await t.queue.pending()).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(t.reports).toHaveLength(1)
  }, 30_000)

  it('N2.20, N2.26: a job that cannot queue the expiry job, before the ask nor after, fails and is retried, so the ask is never left without one', async () => {
    const t = setup(2500)
    let refusals = 2
    // The worker's queue refuses its first two submits (before the ask and after it), as a database gone for a moment would.
    const flaky: TurnQueue = {
      ...t.queue,
      submit: (...args) =>
        refusals-- > 0 ? Promise.reject(new Error('connection refused')) : t.queue.submit(...args),
    }
    await t.worker(flaky)
    const id = `${freshPrefix()}-flaky`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => answered(t.reports, submission))
    expect(t.reports.map((r) => `${r.result} ${r.plan}`)).toEqual([
      'handed-back fresh',
      'done resume',
      'done answered',
    ])
    expect(t.reports[0]!.reason).toBe(
      'the job that continues the turn when its approval expires could not be queued: connection refused',
    )
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
  }, 30_000)

  it('N2.21: with several workers and sessions, each expired ask is recorded once and its turn continues once', async () => {
    const t = setup(2000)
    await Promise.all([t.worker(), t.worker(), t.worker()])
    const ids = Array.from({ length: 6 }, (_, i) => `${freshPrefix()}-many-${i}`)
    const submissions = await Promise.all(ids.map((id) => t.queue.submit(id, 'pay x')))
    await until(() => submissions.every((s) => answered(t.reports, s)), 30_000)
    const lates: number[] = []
    for (const id of ids) {
      const events = await t.load(id)
      expect(brief(events)).toEqual(EXPIRED_TURN)
      lates.push(lateness(events))
    }
    expect(Math.max(...lates)).toBeLessThan(4000)
    expect(t.runs).toEqual([])
    expect(t.reports.some((r) => r.result === 'failed' || r.result === 'handed-back')).toBe(false)
    expect(await t.queue.pending()).toBe(0)
  }, 45_000)

  it('N2.22: a worker started after the expiry passed continues the turn at once from the queued job', async () => {
    const t = setup(1000)
    const first = await t.worker()
    const id = `${freshPrefix()}-restart`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => t.reports.length === 1)
    await first.stop()
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN.slice(0, 3))
    const started = Date.now()
    await t.worker()
    await until(() => answered(t.reports, submission))
    expect(Date.now() - started).toBeLessThan(5000)
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
  }, 30_000)

  it('N2.22: an expiry job that comes before the ask expired by the worker clock waits until then, and the turn continues after the expiry', async () => {
    const t = setup(3000)
    await t.worker()
    const id = `${freshPrefix()}-early`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => t.reports.length === 1)
    // A job due now for the ask, as a database clock running ahead would hand it out.
    await t.queue.submit(id, 'pay x', {
      continues: submission,
      expiry: { callId: 'w1', expiresAt: new Date().toISOString() },
    })
    await until(() => answered(t.reports, submission))
    const early = t.reports.find((r) => r.result === 'waiting')
    expect(early?.reason).toMatch(/^the approval of "w1" expires at \S+; the job continues the turn then$/)
    const events = await t.load(id)
    expect(brief(events)).toEqual(EXPIRED_TURN)
    expect(lateness(events)).toBeGreaterThanOrEqual(0)
  }, 30_000)

  it('N2.23: a decision written at the moment the ask expires: exactly one decision is recorded, and the turn obeys it', async () => {
    const t = setup(1500)
    await Promise.all([t.worker(), t.worker()])
    const ids = Array.from({ length: 6 }, (_, i) => `${freshPrefix()}-race-${i}`)
    const submissions = await Promise.all(ids.map((id) => t.queue.submit(id, 'pay x')))
    await until(() => t.reports.filter((r) => r.plan === 'fresh').length === ids.length)
    const decider = t.store()
    // Each decision is made just before the expiry and written around it, racing the expiry job.
    const outcomes = await Promise.all(
      ids.map(async (id, i) => {
        const [pending] = pendingApprovals(await t.load(id))
        const at = Date.parse(pending!.expiresAt)
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now() - 60 + i * 150)))
        try {
          const session = await openSession(decider, { id, repair: false })
          try {
            const digest = pending!.argumentsDigest
            await decideApproval(
              session,
              'w1',
              { decision: 'allowed-once', by: 'ops', digest },
              { now: at - 1 },
            )
            return 'decided'
          } finally {
            await session.close()
          }
        } catch (error) {
          return (error as { code?: string }).code ?? 'lease'
        }
      }),
    )
    await until(() => submissions.every((s) => answered(t.reports, s)), 30_000)
    let allowed = 0
    for (const [i, id] of ids.entries()) {
      const events = await t.load(id)
      const decisions = events.filter((e) => e.type === 'approval/decided')
      expect(decisions).toHaveLength(1)
      const decision = decisions[0]!.type === 'approval/decided' ? decisions[0]!.data.outcome : ''
      expect(['allowed-once', 'expired']).toContain(decision)
      expect(brief(events).filter((b) => b.startsWith('tool/result'))).toEqual([
        decision === 'allowed-once' ? 'tool/result w1 ok' : 'tool/result w1 DENIED',
      ])
      if (decision === 'allowed-once') allowed++
      // A decision that lost was refused, never recorded beside the expiry.
      if (outcomes[i] !== 'decided') expect(decision).toBe('expired')
      expect(brief(events).at(-1)).toBe('turn/end completed')
    }
    expect(t.runs).toHaveLength(allowed)
  }, 45_000)

  it('N2.24: a fork of a waiting session has no ask to expire: at the expiry the source continues, the fork is left as it was', async () => {
    const t = setup(1500)
    await t.worker()
    const id = `${freshPrefix()}-src`
    const submission = await t.queue.submit(id, 'pay x')
    await until(() => t.reports.length === 1)
    const forker = t.store()
    const source = await t.load(id)
    const fork = await forkSession(forker, id, { at: source.length, id: `${id}-fork` })
    const forked = fork.events()
    expect(pendingApprovals(forked)).toEqual([])
    await fork.close()
    await until(() => answered(t.reports, submission))
    expect(brief(await t.load(id))).toEqual(EXPIRED_TURN)
    expect(await t.load(`${id}-fork`)).toEqual(forked)
    expect(t.reports.every((r) => r.session === id)).toBe(true)
  }, 30_000)

  it('N2.25: an expiry job that finds the session held waits, and continues the turn once the holder closes it or dies', async () => {
    const t = setup(1500)
    await t.worker()
    const live = `${freshPrefix()}-held`
    const dead = `${freshPrefix()}-dead`
    const [first, second] = [await t.queue.submit(live, 'pay x'), await t.queue.submit(dead, 'pay x')]
    await until(() => t.reports.length === 2)
    // A live writer in this process, and one in a child process that is killed after the expiry.
    const holder = await openSession(t.store(), { id: live, repair: false })
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { openSession, postgresStore } from '@tooltx/session'
await openSession(postgresStore(process.env.DB), { id: process.env.ID, repair: false })
console.log('held')
setInterval(() => {}, 1000)`,
      ],
      {
        cwd: REPO,
        env: { ...process.env, DB: POSTGRES_URL!, ID: dead },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    await new Promise((resolve) => child.stdout!.once('data', resolve))
    await until(() => t.reports.filter((r) => r.result === 'waiting').length >= 2, 10_000)
    expect(t.reports.find((r) => r.result === 'waiting')?.reason).toMatch(/^the session is busy: /)
    await holder.close()
    child.kill('SIGKILL')
    await until(() => answered(t.reports, first) && answered(t.reports, second))
    expect(brief(await t.load(live))).toEqual(EXPIRED_TURN)
    expect(brief(await t.load(dead))).toEqual(EXPIRED_TURN)
  }, 30_000)
})
