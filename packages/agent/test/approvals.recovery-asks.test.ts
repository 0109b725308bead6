/**
 * Recovery and the asks a dead process left (found by the seams model test, V1.11–V1.14).
 * F2.16: a call whose recorded decision refused it never ran, so the recovery of a process that
 * died once `turn/resumed` was durable answers it with the `DENIED` of that decision, not
 * `TOOL_OUTCOME_UNKNOWN` (an expired ask, then a crash). F2.17: a call recovery runs again
 * whose ask the process left undecided has that ask closed first, so asking anew does not
 * break the log and leave the session unrecoverable (an in-process ask, then a crash). F2.20:
 * a refusal after an allowance (the ask of a re-run) does not prove the body never ran.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import {
  memoryStore,
  type NewSessionEvent,
  openSession,
  type SessionEvent,
  type SessionStore,
} from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'
import { block, effectTools } from './counted-tool.js'
import { crashingStore } from './crash-store.js'

const results = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'tool/result' ? [[e.data.callId, e.data.error?.code, e.data.content]] : [],
  )

/** How long the expiring ask waits: long enough that its session is closed well before it expires. */
const EXPIRY_MS = 1000

/**
 * A turn suspended on `pay` (c1, then `log` c2 parked), decided `how`, then resumed by a process
 * that dies once `turn/resumed` landed; a restarted process recovers it.
 */
async function refusedThenCrash(how: 'denied' | 'expired') {
  const t = effectTools([
    ['pay', 'write'],
    ['log', 'write'],
  ] as const)
  const store = memoryStore()
  const session = await openSession(store, { id: 's' })
  const approvals = { mode: 'durable', expiresAfterMs: how === 'expired' ? EXPIRY_MS : 60_000 } as const
  const calls = { toolCalls: [block('c1', 'pay', 1), block('c2', 'log', 2)] }
  const agent = (s: typeof session, steps: Parameters<typeof scripted>[0]) =>
    createAgent({ ...t, session: s, model: scripted(steps), approvals, maxParallelToolCalls: 1 })
  expect(await agent(session, [calls]).send('pay')).toMatchObject({ reason: 'suspended' })
  const digest = pendingApprovals(session)[0]!.argumentsDigest
  if (how === 'denied') await decideApproval(session, 'c1', { decision: 'denied', by: 'ann', digest })
  // Closed before the expiry, so this live agent does not continue the turn itself (F2.18, F2.19).
  await session.close()
  if (how === 'expired') await sleep(EXPIRY_MS + 50)
  // Resuming appends the expiry (for an expired ask), then `turn/resumed`: the process dies there.
  const dying = crashingStore(store, { at: how === 'denied' ? 1 : 2, written: true })
  const resumed = await openSession(dying.store, { id: 's', repair: false })
  await agent(resumed, [])
    .resume()
    .catch(() => {})
  expect(dying.crashed()).toBe(true)
  await resumed.close().catch(() => {})
  const restarted = await openSession(store, { id: 's', repair: false })
  await agent(restarted, [{ text: 'done' }]).resume()
  const events = restarted.events()
  await restarted.close()
  return { events, runs: t.runs }
}

describe('F2.16 recovery answers a call its decision refused with that denial', () => {
  it.each([
    ['denied', 'the user rejected tool "pay"'],
    ['expired', 'approval for tool "pay" expired before anyone decided it'],
  ] as const)(
    'F2.16: an ask %s, then a crash after turn/resumed: the call is DENIED, never unknown, and never runs',
    async (how, message) => {
      const { events, runs } = await refusedThenCrash(how)
      expect(runs).toEqual([])
      const [pay] = results(events)
      expect(pay).toEqual(['c1', 'DENIED', [{ type: 'text', text: `Error: ${message}` }]])
      expect(events.filter((e) => e.type === 'approval/decided')).toHaveLength(1)
    },
  )
})

/**
 * The log of `store`'s session `s` with its step recorded as narrowed to `log`: what a version
 * before P4.11 wrote when the step's `prepareStep` kept `pay` out and the policy still asked.
 */
async function keptOut(store: SessionStore): Promise<SessionStore> {
  const events = await store.load('s')
  const copy = memoryStore()
  const session = await openSession(copy, { id: 's', repair: false })
  await session.appendBatch(
    events.map(
      ({ type, data }) =>
        (type === 'assistant/message'
          ? { type, data: { ...data, prepared: { tools: ['log'] } } }
          : { type, data }) as NewSessionEvent,
    ),
  )
  await session.close()
  return copy
}

/**
 * A turn whose `pay` (here `'read'`, so recovery runs it again, but still asking) is asked of an
 * in-process approver that never answers, in a process that dies once its `approval/asked` is
 * durable; resolves with the store and what the first process ran. `hidden` records the step as
 * one whose `prepareStep` kept `pay` out (a log from before P4.11, which asks about such calls no
 * more).
 */
async function askedThenCrash(hidden: boolean) {
  const t = effectTools([
    ['pay', 'read'],
    ['log', 'write'],
  ] as const)
  const prepareStep = hidden ? () => ({ tools: ['log'] }) : undefined
  for (let at = 1; at < 10; at++) {
    const store: SessionStore = memoryStore()
    const dying = crashingStore(store, { at, written: true })
    const session = await openSession(dying.store, { id: 's' })
    await createAgent({
      ...t,
      session,
      model: scripted([{ toolCalls: [block('c1', 'pay', 1)] }, { text: 'done' }]),
      approver: () => new Promise<never>(() => {}),
    })
      .send('pay')
      .catch(() => {})
    await session.close().catch(() => {})
    const events = await store.load('s')
    if (dying.crashed() && events.at(-1)?.type === 'approval/asked')
      return { store: hidden ? await keptOut(store) : store, t, prepareStep }
  }
  throw new Error('no append was the approval/asked')
}

describe('F2.17 recovery closes an ask the dead process left before it runs the call again', () => {
  it.each([false, true])(
    'F2.17: an in-process ask, then a crash (prepareStep keeping pay out: %s): resume recovers the session, the ask recorded cancelled before the new one',
    async (hidden) => {
      const { store, t, prepareStep } = await askedThenCrash(hidden)
      const session = await openSession(store, { id: 's', repair: false })
      const agent = createAgent({
        ...t,
        session,
        model: scripted([{ text: 'done' }]),
        approver: () => 'allowed-once',
        ...(prepareStep === undefined ? {} : { prepareStep }),
      })
      await agent.resume()
      const events = session.events()
      await session.close()
      const asks = events.flatMap((e) =>
        e.type === 'approval/asked' || e.type === 'approval/decided'
          ? [`${e.type} ${'outcome' in e.data ? e.data.outcome : ''}`.trim()]
          : [],
      )
      // A kept-out call is asked about no more (P4.11): it fails at the approval stage.
      const again = hidden ? [] : ['approval/asked', 'approval/decided allowed-once']
      expect(asks).toEqual(['approval/asked', 'approval/decided cancelled', ...again])
      const [pay] = results(events)
      // A tool the step kept out never runs (T4.5), whatever the approver said.
      if (hidden) expect(pay?.[1]).toBe('UNKNOWN_TOOL')
      else expect(pay?.[1]).toBeUndefined()
      expect(t.runs).toEqual(hidden ? [] : ['pay 1'])
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    },
  )
})
describe('F2.20 a refusal after an allowance proves nothing: the body may have run', () => {
  /** `pay` (c1) asked and allowed, then asked again (a re-run) and rejected, then a crash. */
  async function allowedThenRejected(effect: 'read' | 'write') {
    const t = effectTools([['pay', effect]] as const)
    const store = memoryStore()
    const where = { turn: 1, step: 1 }
    const c1 = block('c1', 'pay', 1)
    const ask = { type: 'approval/asked', data: { ...where, callId: 'c1', name: 'pay' } } as const
    const decide = (outcome: 'allowed-once' | 'rejected') =>
      ({ type: 'approval/decided', data: { ...where, callId: 'c1', name: 'pay', outcome } }) as const
    const seed = await openSession(store, { id: 's' })
    await seed.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: where },
      { type: 'assistant/message', data: { ...where, content: [c1] } },
      { type: 'tool/call', data: { ...where, callId: 'c1', name: 'pay', arguments: c1.arguments } },
      ask,
      decide('allowed-once'),
      ask,
      decide('rejected'),
    ])
    await seed.close()
    const session = await openSession(store, { id: 's', repair: false })
    const agent = createAgent({ ...t, session, model: scripted([]), approver: () => 'allowed-once' })
    await agent.resume()
    const events = session.events()
    await session.close()
    return { results: results(events).map(([id, code]) => [id, code]), runs: t.runs }
  }

  it("F2.20, F2.16: recovery runs a 'read' call again and answers a 'write' TOOL_OUTCOME_UNKNOWN, never DENIED", async () => {
    expect(await allowedThenRejected('read')).toEqual({ results: [['c1', undefined]], runs: ['pay 1'] })
    expect(await allowedThenRejected('write')).toEqual({
      results: [['c1', 'TOOL_OUTCOME_UNKNOWN']],
      runs: [],
    })
  })
})
