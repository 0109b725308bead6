import { createHash } from 'node:crypto'
import type { ApprovalOutcome, Approver } from '@tooltx/core'
import { describe, expect } from 'vitest'
import {
  answeredOnce,
  call,
  eventually,
  failingOnce,
  firstResult,
  go,
  it,
  lines,
  type Rig,
  rig,
} from './loop-harness.js'

/** The lowercase hex SHA-256 of `{"id":"<id>"}`, the canonical JSON of the rig's arguments (P4.9). */
const digestOf = (id: string) => createHash('sha256').update(JSON.stringify({ id })).digest('hex')

/** Runs one `write` call that a pre-execute policy asks about, with `approver` on the agent. */
async function askedRun(approver: Approver | undefined) {
  const r = await rig()
  r.gates.open('1')
  r.runtime.onPreExecute((exec, next) => (exec.name === 'write' ? { kind: 'ask', reason: 'writes' } : next()))
  const { agent } = go(r, [{ toolCalls: [call('write', '1')] }, { text: 'ok' }], approver ? { approver } : {})
  return { agent, r }
}

const approvalEvents = (r: Rig) =>
  r.session.events().flatMap((e) => (e.type === 'approval/asked' || e.type === 'approval/decided' ? [e] : []))

/** The log lines of call `c1`, asked for approval, decided `outcome` and answered `result`. */
const decidedLines = (outcome: string, result: string) => [
  'tool/call c1',
  'approval/asked c1',
  `approval/decided c1 ${outcome}`,
  `tool/result c1 ${result}`,
]

/** The log after the opening four lines when the turn is aborted while `c1` waits on its approval. */
const CANCELLED_C1 = [...decidedLines('cancelled', 'ABORTED_BEFORE_DISPATCH'), 'step/end', 'turn/end aborted']

describe('L8 approval events (SQLite session)', () => {
  it('L8.1, L8.3, P4.9: an approval granted is recorded as asked, then decided, between tool/call and tool/result', async () => {
    const seen: string[] = []
    const { agent, r } = await askedRun((request) => {
      seen.push(request.argumentsDigest)
      return 'allowed-once'
    })
    await agent.whenIdle()
    expect(lines(r.session).slice(4, 8)).toEqual(decidedLines('allowed-once', 'ok'))
    expect(approvalEvents(r).map((e) => e.data)).toEqual([
      { turn: 1, step: 1, callId: 'c1', name: 'write', reason: 'writes', argumentsDigest: digestOf('1') },
      {
        turn: 1,
        step: 1,
        callId: 'c1',
        name: 'write',
        outcome: 'allowed-once',
        argumentsDigest: digestOf('1'),
      },
    ])
    expect(seen).toEqual([digestOf('1')])
    expect(r.trace).toEqual(['start 1', 'end 1'])
  })

  it('L8.1, L8.3, P4.4: an approval rejected is recorded with its digest and the call is DENIED without running', async () => {
    const { agent, r } = await askedRun(() => 'rejected')
    await agent.whenIdle()
    expect(lines(r.session).slice(4, 8)).toEqual(decidedLines('rejected', 'DENIED'))
    expect(approvalEvents(r)[1]?.data).toMatchObject({ outcome: 'rejected', argumentsDigest: digestOf('1') })
    expect(firstResult(r.session)).toMatchObject({
      content: [{ type: 'text', text: 'Error: the user rejected tool "write"' }],
    })
    expect(r.trace).toEqual([])
  })

  it('L8.1, P4.7: an approver that throws or answers outside the four outcomes is recorded as unavailable, once', async () => {
    for (const approver of [
      () => {
        throw new Error('ui crashed')
      },
      () => Promise.reject(new Error('ui gone')),
      () => 'yes' as unknown as ApprovalOutcome,
    ]) {
      const { agent, r } = await askedRun(approver)
      await agent.whenIdle()
      expect(lines(r.session).filter((l) => l.startsWith('approval/'))).toEqual([
        'approval/asked c1',
        'approval/decided c1 unavailable',
      ])
      expect(lines(r.session)).toContain('tool/result c1 DENIED')
      await r.close()
    }
  })

  it('L8.2, P4.8: an abort while approval is pending records cancelled at once and ignores the late answer', async () => {
    let answer: ((outcome: ApprovalOutcome) => void) | undefined
    const { agent, r } = await askedRun(
      () =>
        new Promise<ApprovalOutcome>((resolve) => {
          answer = resolve
        }),
    )
    await eventually(() => answer !== undefined, 'the approver was consulted')
    agent.abort()
    await agent.whenIdle()
    answer?.('allowed-once')
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines(r.session).slice(4)).toEqual(CANCELLED_C1)
    expect(approvalEvents(r)[1]?.data).toMatchObject({ outcome: 'cancelled', argumentsDigest: digestOf('1') })
    expect(r.trace).toEqual([])
    expect(answeredOnce(r.session)).toBe(true)
  })

  it('L8.1, P4.1: without an approver on the agent nothing is recorded and the ask fails closed', async () => {
    const { agent, r } = await askedRun(undefined)
    await agent.whenIdle()
    expect(approvalEvents(r)).toEqual([])
    expect(firstResult(r.session)).toMatchObject({
      content: [
        { type: 'text', text: 'Error: tool "write" requires approval, but there is no approval channel' },
      ],
    })
  })

  it('L8.1: approvals in a parallel group are recorded per call, each asked before its decision', async ({
    r,
  }) => {
    r.runtime.onPreExecute((exec, next) => (exec.name === 'echo' ? { kind: 'ask' } : next()))
    const pending = new Map<string, (o: ApprovalOutcome) => void>()
    const { agent } = go(r, [{ toolCalls: [call('echo', '1'), call('echo', '2')] }, { text: 'ok' }], {
      approver: (request) => new Promise((resolve) => pending.set(request.callId, resolve)),
    })
    // Approvals are asked one at a time, in model order (L5.7): c2 waits for c1's answer.
    await eventually(() => pending.size === 1, 'the first approval pending')
    expect([...pending.keys()]).toEqual(['c1'])
    pending.get('c1')?.('allowed-once')
    await eventually(() => pending.size === 2, 'the second approval pending')
    pending.get('c2')?.('rejected')
    await agent.whenIdle()
    const log = lines(r.session)
    for (const [id, outcome, result] of [
      ['c1', 'allowed-once', 'ok'],
      ['c2', 'rejected', 'DENIED'],
    ]) {
      const order = [
        `tool/call ${id}`,
        `approval/asked ${id}`,
        `approval/decided ${id} ${outcome}`,
        `tool/result ${id} ${result}`,
      ]
      const at = order.map((l) => log.indexOf(l))
      expect(at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!))).toBe(true)
    }
    expect(log.filter((l) => l.startsWith('tool/result'))).toEqual([
      'tool/result c1 ok',
      'tool/result c2 DENIED',
    ])
    expect(log.filter((l) => l.startsWith('approval/'))).toHaveLength(4)
  })

  it('L8.1: an abort that lands while approval/asked is being appended cancels without consulting the approver', async () => {
    let consulted = 0
    const { agent, r } = await askedRun(() => {
      consulted++
      return 'allowed-once'
    })
    r.session.on((event) => {
      if (event.type === 'approval/asked') agent.abort()
    })
    await agent.whenIdle()
    expect(consulted).toBe(0)
    expect(lines(r.session).slice(4)).toEqual(CANCELLED_C1)
  })

  it('L8.1, L5.5: a failed approval/asked append consults nobody, records no decision and ends the turn with error', async () => {
    const r = await rig({ store: (path) => failingOnce(path, (e) => e.type === 'approval/asked') })
    r.runtime.onPreExecute((exec, next) => (exec.name === 'write' ? { kind: 'ask' } : next()))
    let consulted = 0
    const { agent } = go(
      r,
      [{ toolCalls: [call('write', '1'), call('echo', '2')] }, { text: 'after repair' }],
      {
        approver: () => {
          consulted++
          return 'allowed-once'
        },
      },
    )
    await agent.whenIdle()
    expect(consulted).toBe(0)
    expect(lines(r.session).slice(4)).toEqual([
      'tool/call c1',
      'tool/result c1 DENIED',
      'step/end',
      'turn/end error',
    ])
    expect(r.session.events().at(-1)?.data).toMatchObject({ reason: 'error', message: 'disk full' })
    agent.send('next')
    await agent.whenIdle()
    expect(lines(r.session).slice(8, 11)).toEqual([
      'tool/call c2',
      'tool/result c2 TOOL_NOT_STARTED',
      'turn/start',
    ])
    expect(answeredOnce(r.session)).toBe(true)
  })
})
