/**
 * T4.4, T4.5: a step `prepareStep` narrowed is recorded on its assistant message, and a resumed
 * (F2.7) or recovered (F1.4) step runs as that step did: a call it kept out never runs.
 */

import { memoryStore, type NewSessionEvent, openSession, type SessionEvent } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import type { PrepareStep } from '../src/context/prepare-step.js'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'
import { block, effectTools } from './counted-tool.js'
import { calledTurn } from './loop-harness.js'

/** `look` (read), `put` (idempotent), `wipe` (write) run freely; `pay` (write) asks. */
const tools = () =>
  effectTools([
    ['look', 'read'],
    ['put', 'idempotent'],
    ['wipe', 'write'],
    ['pay', 'write'],
  ] as const)

/** Each call's answer: `ok` or its error code, in log order. */
const answers = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'tool/result' ? [`${e.data.callId} ${e.data.isError ? e.data.error?.code : 'ok'}`] : [],
  )

describe('T4.4, T4.5 a prepared step, recorded and rebuilt', () => {
  it('T4.4, T4.5, F2.7: a call prepareStep kept out of a suspended step is answered UNKNOWN_TOOL after resume, never run', async () => {
    const t = tools()
    const store = memoryStore()
    const session = await openSession(store, { id: 's' })
    const prepared = { system: 'Pay only.', tools: ['look', 'pay'], toolChoice: 'required' as const }
    const asked: number[] = []
    const prepareStep: PrepareStep = ({ step }) => {
      asked.push(step)
      return step === 1 ? prepared : undefined
    }
    const first = createAgent({
      ...t,
      session,
      model: scripted([{ toolCalls: [block('c1', 'pay', 1), block('c2', 'wipe', 2)] }]),
      approvals: 'durable',
      prepareStep,
    })
    expect(await first.send('pay and wipe')).toMatchObject({ reason: 'suspended' })
    const message = session.events().find((e) => e.type === 'assistant/message')!
    expect(message.data).toMatchObject({ turn: 1, step: 1, prepared })
    const digest = pendingApprovals(session)[0]!.argumentsDigest
    await decideApproval(session, 'c1', { decision: 'allowed-once', by: 'ann', digest })
    await session.close()
    // Another process resumes with an agent that has no prepareStep: the recorded step is rebuilt.
    const reopened = await openSession(store, { id: 's' })
    const second = createAgent({
      ...t,
      session: reopened,
      model: scripted([{ text: 'paid' }]),
      approvals: 'durable',
    })
    expect(await second.resume()).toMatchObject({ reason: 'completed', text: 'paid' })
    expect(t.runs).toEqual(['pay 1'])
    expect(asked).toEqual([1])
    expect(answers(reopened.events())).toEqual(['c1 ok', 'c2 UNKNOWN_TOOL'])
    const ends = reopened.events().flatMap((e) => (e.type === 'step/end' ? [e.data] : []))
    expect(ends[0]).toEqual({ turn: 1, step: 1, prepared })
    // The rebuilt step's scope was disposed: the agent's scope offers wipe again.
    expect(t.runtime.view(t.scope).get('wipe')?.name).toBe('wipe')
  })

  it('T4.5, F1.4: recovery runs an interrupted step in its recorded narrowing: a kept-out call fails UNKNOWN_TOOL, even an idempotent one', async () => {
    const t = tools()
    const store = memoryStore()
    const blocks = [block('c1', 'look', 1), block('c2', 'put', 2), block('c3', 'wipe', 3)]
    const log = calledTurn(blocks).map(
      (e): NewSessionEvent =>
        e.type === 'assistant/message' ? { ...e, data: { ...e.data, prepared: { tools: ['look'] } } } : e,
    )
    const first = await openSession(store, { id: 's' })
    await first.appendBatch(log)
    await first.close()
    const session = await openSession(store, { id: 's', repair: false })
    const agent = createAgent({ ...t, session, model: scripted([]) })
    await agent.resume()
    expect(t.runs).toEqual(['look 1'])
    expect(answers(session.events())).toEqual(['c1 ok', 'c2 UNKNOWN_TOOL', 'c3 UNKNOWN_TOOL'])
    expect(session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    expect(t.runtime.view(t.scope).get('put')?.name).toBe('put')
  })

  it('T4.4: the log refuses an assistant/message whose prepared tools are not a list of names', async () => {
    const session = await openSession(memoryStore(), { id: 's' })
    const [start, step, user, message] = calledTurn([block('c1', 'look', 1)])
    await session.appendBatch([start!, step!, user!])
    const bad = { ...(message!.data as object), prepared: { tools: 'look' } }
    await expect(session.append('assistant/message', bad as never)).rejects.toMatchObject({
      code: 'INVARIANT',
      message: expect.stringContaining('assistant/message "prepared" must be'),
    })
  })
})
