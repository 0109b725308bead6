/**
 * F2.13–F2.15: one decision rule. A decision of a durable ask that `decide` would refuse is
 * refused by the log too, however it is written, so resume (and a worker, which resumes through
 * an agent) never obeys it.
 */
import { createToolRuntime, defineTool } from '@tooltx/core'
import {
  type ApprovalDecidedData,
  judgeDecision,
  memoryStore,
  openSession,
  type Session,
  type SessionEvent,
  type SessionStore,
  suspendedTurn,
} from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'

/** A session whose turn 1 waits on a durable ask for `pay` (deciders: alice), and the runs of `pay`. */
async function suspended(expiresAfterMs = 60_000) {
  const runs: number[] = []
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(
    defineTool({
      name: 'pay',
      description: 'pay',
      effect: 'write',
      parameters: { n: { type: 'number', required: true } },
      execute: async ({ n }) => {
        runs.push(n)
        return { n }
      },
    }),
  )
  runtime.onPreExecute(async (exec, next) => (exec.name === 'pay' ? { kind: 'ask' } : next()))
  const store = memoryStore()
  const session = await openSession(store, { id: 's' })
  /** An agent on `session` in a process of its own: its model answers once the call ran. */
  const agent = (session: Session) =>
    createAgent({
      runtime,
      scope,
      session,
      model: scripted([{ text: 'done' }]),
      approvals: { mode: 'durable', expiresAfterMs, deciders: ['alice'] },
    })
  const first = createAgent({
    runtime,
    scope,
    session,
    // Its last step answers when it continues the turn itself at the expiry (F2.18).
    model: scripted([{ toolCalls: [{ id: 'c1', name: 'pay', arguments: '{"n":1}' }] }, { text: 'done' }]),
    approvals: { mode: 'durable', expiresAfterMs, deciders: ['alice'] },
  })
  expect(await first.send('pay')).toMatchObject({ reason: 'suspended' })
  const pending = pendingApprovals(session)[0]!
  const decision: ApprovalDecidedData = {
    turn: 1,
    step: 1,
    callId: 'c1',
    name: 'pay',
    outcome: 'allowed-once',
    argumentsDigest: pending.argumentsDigest,
    by: 'alice',
    decidedAt: new Date().toISOString(),
  }
  return { store, session, agent, first, runs, pending, decision }
}

/** Writes `data` as the next `approval/decided` straight into the store, around any session. */
async function forgeInStore(store: SessionStore, data: ApprovalDecidedData): Promise<void> {
  const events = await store.load('s')
  const forged = { seq: events.length + 1, type: 'approval/decided', data } as SessionEvent
  await store.acquire('s')
  await store.append('s', [forged])
  await store.release?.('s')
}

describe('F2.13 one decision rule', () => {
  it('F2.13, F2.14: the log refuses forged decisions (a decider not allowed, a wrong digest, no time, a time after expiry); resume stays suspended and never runs the call', async () => {
    const { session, agent, runs, pending, decision } = await suspended()
    const late = new Date(Date.parse(pending.expiresAt) + 1).toISOString()
    const forged: [Partial<ApprovalDecidedData>, string][] = [
      [{ by: 'mallory' }, '"mallory" may not decide call "c1"; its deciders are "alice"'],
      [{ argumentsDigest: 'f'.repeat(64) }, 'does not match the recorded arguments of call "c1"'],
      [{ decidedAt: 'yesterday' }, 'does not record when it was made (decidedAt)'],
      [
        { decidedAt: late },
        `call "c1" was decided at ${late}, but its approval expired at ${pending.expiresAt}`,
      ],
      [{ outcome: 'expired', by: undefined }, 'was recorded expired at'],
      [{ outcome: 'unavailable' }, 'a durable approval cannot be decided "unavailable"'],
    ]
    const count = session.events().length
    const { asked } = suspendedTurn(session.events())!
    for (const [change, message] of forged) {
      // A change to `undefined` leaves the key out.
      const data = Object.fromEntries(
        Object.entries({ ...decision, ...change }).filter(([, v]) => v !== undefined),
      ) as unknown as ApprovalDecidedData
      await expect(session.append('approval/decided', data)).rejects.toMatchObject({
        code: 'INVARIANT',
        message: expect.stringContaining(message),
      })
      expect(judgeDecision(asked, data)?.message).toContain(message)
    }
    expect(session.events()).toHaveLength(count)
    expect(suspendedTurn(session.events())?.decided).toBeUndefined()
    expect(await agent(session).resume()).toMatchObject({ reason: 'suspended' })
    expect(runs).toEqual([])
    expect(session.events()).toHaveLength(count)
    // The lawful decision still counts, and a second one — forged or not — is refused: the first wins.
    await decideApproval(session, 'c1', { decision: 'denied', by: 'alice', digest: pending.argumentsDigest })
    await expect(session.append('approval/decided', decision)).rejects.toMatchObject({
      code: 'INVARIANT',
      message: expect.stringContaining('does not follow an undecided approval/asked'),
    })
    expect(await agent(session).resume()).toMatchObject({ reason: 'completed' })
    expect(runs).toEqual([])
  })

  it('F2.15: a decision written into the store around the session is refused at open, so no resume reads it', async () => {
    const { store, session, runs, decision } = await suspended()
    await session.close()
    await forgeInStore(store, { ...decision, by: 'mallory' })
    await expect(openSession(store, { id: 's' })).rejects.toMatchObject({
      code: 'INVARIANT',
      message: expect.stringMatching(
        /session "s" is damaged at seq \d+: approval\/decided breaks the decision rule: "mallory" may not decide call "c1"/,
      ),
    })
    expect(runs).toEqual([])
    // A lawful decision written the same way opens and resumes as any other.
    const clean = await suspended()
    await clean.session.close()
    await forgeInStore(clean.store, clean.decision)
    const reopened = await openSession(clean.store, { id: 's' })
    expect(await clean.agent(reopened).resume()).toMatchObject({ reason: 'completed' })
    expect(clean.runs).toEqual([1])
  })

  it('F2.14, F2.18: a decision made after expiry is refused; the live agent records the expiry and the call fails closed', async () => {
    const { session, first, runs, pending, decision } = await suspended(300)
    const after = new Date(Date.parse(pending.expiresAt) + 1).toISOString()
    await expect(session.append('approval/decided', { ...decision, decidedAt: after })).rejects.toMatchObject(
      {
        code: 'INVARIANT',
        message: expect.stringContaining('but its approval expired'),
      },
    )
    // Nobody decided in time: the agent that asked continues the turn itself at the expiry.
    for (let i = 0; i < 200 && session.events().at(-1)?.type !== 'turn/end'; i++)
      await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await first.whenIdle()).toMatchObject({ reason: 'completed' })
    expect(runs).toEqual([])
    const decided = session.events().filter((e) => e.type === 'approval/decided')
    expect(decided.map((e) => e.data.outcome)).toEqual(['expired'])
  })

  it('F2.13: decide records a decision exactly when the log accepts the same decision appended directly (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('alice', 'mallory'),
        fc.boolean(),
        fc.constantFrom(-60_000, -1, 0, 1, 60_000),
        fc.constantFrom('allowed-once', 'denied'),
        async (by, rightDigest, offset, choice) => {
          const viaDecide = await suspended()
          const direct = await suspended()
          const now = Date.parse(viaDecide.pending.expiresAt) + offset
          const digest = rightDigest ? viaDecide.pending.argumentsDigest : 'f'.repeat(64)
          const decided = await decideApproval(
            viaDecide.session,
            'c1',
            { decision: choice, by, digest },
            { now },
          ).then(
            () => true,
            () => false,
          )
          const data: ApprovalDecidedData = {
            ...direct.decision,
            outcome: choice === 'denied' ? 'rejected' : 'allowed-once',
            by,
            argumentsDigest: rightDigest ? direct.pending.argumentsDigest : 'f'.repeat(64),
            decidedAt: new Date(Date.parse(direct.pending.expiresAt) + offset).toISOString(),
          }
          const appended = await direct.session.append('approval/decided', data).then(
            () => true,
            () => false,
          )
          expect(appended).toBe(decided)
          expect(decided).toBe(by === 'alice' && rightDigest && offset < 0)
          const obeyed = (s: Session) => suspendedTurn(s.events())?.decided?.outcome
          expect(obeyed(direct.session)).toBe(decided ? data.outcome : undefined)
          // decide records an expiry instead of a late decision; the log only admits lawful ones.
          expect(obeyed(viaDecide.session)).toBe(
            decided ? data.outcome : by === 'alice' && rightDigest ? 'expired' : undefined,
          )
        },
      ),
      { numRuns: 40 },
    )
  })
})
