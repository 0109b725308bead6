/**
 * T4.6, T4.7: a call to a tool its step does not offer is never put to an approver (P4.11), so
 * durable approvals do not suspend on it; a tool the view lost after its ask fails on resume.
 */

import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'
import { block, effectTools } from './counted-tool.js'

/** Each call's answer: `ok` or its error code, in log order. */
const answers = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'tool/result' ? [`${e.data.callId} ${e.data.isError ? e.data.error?.code : 'ok'}`] : [],
  )

const approvalEvents = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.type === 'approval/asked' || e.type === 'approval/decided' ? [e.type] : []))

describe('T4.6, T4.7 asks about tools the step does not offer', () => {
  it('T4.6, T4.2, P4.11: a durable turn does not suspend on a call prepareStep left out; the call fails UNKNOWN_TOOL with no approval event', async () => {
    const t = effectTools([
      ['look', 'read'],
      ['pay', 'write'],
    ])
    const session = await openSession(memoryStore(), { id: 's' })
    const agent = createAgent({
      ...t,
      session,
      model: scripted([{ toolCalls: [block('c1', 'pay', 1), block('c2', 'look', 2)] }, { text: 'done' }]),
      approvals: 'durable',
      prepareStep: ({ step }) => (step === 1 ? { tools: ['look'] } : undefined),
    })
    expect(await agent.send('pay')).toMatchObject({ reason: 'completed', text: 'done' })
    expect(answers(session.events())).toEqual(['c1 UNKNOWN_TOOL', 'c2 ok'])
    const failed = session.events().find((e) => e.type === 'tool/result' && e.data.callId === 'c1')
    expect(failed?.data).toMatchObject({ content: [{ type: 'text', text: 'Error: unknown tool "pay"' }] })
    expect(approvalEvents(session.events())).toEqual([])
    expect(pendingApprovals(session)).toEqual([])
    expect(t.runs).toEqual(['look 2'])
  })

  it('T4.7, T4.5, R4.3: a tool the resuming agent no longer offers fails UNKNOWN_TOOL after its decision, never runs and asks nobody again', async () => {
    const store = memoryStore()
    const session = await openSession(store, { id: 's' })
    const first = effectTools([
      ['look', 'read'],
      ['pay', 'write'],
    ])
    const agent = createAgent({
      ...first,
      session,
      model: scripted([{ toolCalls: [block('c1', 'pay', 1)] }]),
      approvals: 'durable',
      prepareStep: () => ({ tools: ['look', 'pay'] }),
    })
    expect(await agent.send('pay')).toMatchObject({ reason: 'suspended' })
    await session.close()
    // Another process offers no `pay`: the ask still stands until someone decides it.
    const second = effectTools([['look', 'read']])
    const reopened = await openSession(store, { id: 's' })
    const resumed = createAgent({
      ...second,
      session: reopened,
      model: scripted([{ text: 'gone' }]),
      approvals: 'durable',
    })
    expect(await resumed.resume()).toMatchObject({ reason: 'suspended' })
    const digest = pendingApprovals(reopened)[0]!.argumentsDigest
    await decideApproval(reopened, 'c1', { decision: 'allowed-once', by: 'ann', digest })
    expect(await resumed.resume()).toMatchObject({ reason: 'completed', text: 'gone' })
    expect(answers(reopened.events())).toEqual(['c1 UNKNOWN_TOOL'])
    expect(approvalEvents(reopened.events())).toEqual(['approval/asked', 'approval/decided'])
    expect([...first.runs, ...second.runs]).toEqual([])
  })
})
