/**
 * F2: durable approvals in one process — options, suspension, decide and its refusals, expiry,
 * resume, Code Mode, crash safety, and a property over random ask positions in a batch.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CodeRuntime, createToolRuntime, defineTool, type JsonValue } from '@tooltx/core'
import {
  fileStore,
  memoryStore,
  type NewSessionEvent,
  openSession,
  type Session,
  type SessionEvent,
  sqliteStore,
  suspendedTurn,
} from '@tooltx/session'
import fc from 'fast-check'
import { afterEach, describe, expect } from 'vitest'
import { type AgentOptions, createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'
import { CLOSING_TYPES, calledTurn, itWithRig } from './loop-harness.js'

interface Tools {
  readonly runtime: ReturnType<typeof createToolRuntime>
  readonly scope: ReturnType<ReturnType<typeof createToolRuntime>['scope']>
  readonly runs: string[]
}

/** `look` (read) runs freely; `pay` (write) asks. Bodies note their runs. */
function tools(options: { mode?: 'both'; guard?: (name: string) => string | undefined } = {}): Tools {
  const runs: string[] = []
  const runtime = createToolRuntime(options.mode === undefined ? {} : { mode: options.mode })
  const scope = runtime.scope()
  for (const [name, effect] of [
    ['look', 'read'],
    ['pay', 'write'],
  ] as const) {
    scope.register(
      defineTool({
        name,
        description: name,
        effect,
        parameters: { n: { type: 'number', required: true } },
        isConcurrencySafe: () => true,
        execute: async ({ n }) => {
          runs.push(`${name} ${n}`)
          await new Promise((resolve) => setTimeout(resolve, name === 'look' ? 5 : 0))
          return { n }
        },
      }),
    )
  }
  runtime.onPreExecute(async (exec, next) =>
    exec.name === 'pay' ? { kind: 'ask', reason: 'moves money' } : next(),
  )
  if (options.guard !== undefined) {
    const guard = options.guard
    runtime.guard((exec) => guard(exec.name))
  }
  return { runtime, scope, runs }
}

const call = (id: string, name: string, n: number) => ({ id, name, arguments: JSON.stringify({ n }) })

/** The log as `type callId` lines (tool and approval events) and bare types (the rest). */
const lines = (events: readonly SessionEvent[]) =>
  events.map((e) => ('callId' in e.data ? `${e.type} ${e.data.callId}` : e.type))

/** The `lines` of a durable ask on call `id` that was decided, resumed and run. */
const decidedAndRun = (id: string) => [
  `approval/asked ${id}`,
  `approval/decided ${id}`,
  'turn/resumed',
  `tool/result ${id}`,
]

const results = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'tool/result'
      ? [`${e.data.callId} ${e.data.isError ? e.data.error?.code : 'ok'} ${JSON.stringify(e.data.content)}`]
      : [],
  )

type Rig = Tools & {
  session: Session
  agent: (
    steps: Parameters<typeof scripted>[0],
    extra?: Partial<AgentOptions>,
  ) => ReturnType<typeof createAgent>
}

async function rig(options: Parameters<typeof tools>[0] = {}): Promise<Rig> {
  const t = tools(options)
  const session = await openSession(memoryStore(), { id: 's', verify: true })
  return {
    ...t,
    session,
    agent: (steps, extra = {}) =>
      createAgent({
        runtime: t.runtime,
        scope: t.scope,
        session,
        model: scripted(steps),
        approvals: 'durable',
        ...extra,
      }),
  }
}

/** `it` with a fresh default `rig()` as `r`. */
const it = itWithRig(() => rig())

const digestOf = (session: Session) => pendingApprovals(session)[0]!.argumentsDigest

describe('F2 durable approvals', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('F2.1: approvals takes durable settings; with an approver or malformed it throws INVALID_DEFINITION', async () => {
    const { runtime, scope } = tools()
    const session = await openSession(memoryStore(), { id: 's' })
    const base = { runtime, scope, session, model: scripted([]) }
    expect(() => createAgent({ ...base, approvals: 'durable' })).not.toThrow()
    expect(() =>
      createAgent({ ...base, approvals: { mode: 'durable', expiresAfterMs: 1000, deciders: ['alice'] } }),
    ).not.toThrow()
    expect(() => createAgent({ ...base, approvals: 'durable', approver: () => 'allowed-once' })).toThrow(
      /createAgent takes either an approver \(in-process approvals\) or approvals: 'durable', not both/,
    )
    const bad: [unknown, RegExp][] = [
      [
        'later',
        /approvals must be 'durable' or \{ mode: 'durable', expiresAfterMs\?, deciders\? \}, got "later"/,
      ],
      [{ mode: 'inline' }, /mode "inline" is not 'durable'/],
      [{ mode: 'durable', ttl: 5 }, /unknown key "ttl"/],
      [
        { mode: 'durable', expiresAfterMs: 0 },
        /expiresAfterMs must be a positive whole number of milliseconds, got 0/,
      ],
      [{ mode: 'durable', expiresAfterMs: 1.5 }, /got 1.5/],
      [{ mode: 'durable', deciders: [] }, /deciders must be a non-empty list of non-empty strings, got \[\]/],
      [{ mode: 'durable', deciders: ['a', ''] }, /deciders must be a non-empty list/],
    ]
    for (const [approvals, message] of bad) {
      let thrown: unknown
      try {
        createAgent({ ...base, approvals: approvals as never })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toMatchObject({ code: 'INVALID_DEFINITION' })
      expect((thrown as Error).message).toMatch(message)
    }
  })

  it('F2.2, F2.3, F2.4, F2.5, F2.7: a durable ask suspends the turn; decide, then resume finishes it', async ({
    r,
  }) => {
    const agent = r.agent(
      [{ toolCalls: [call('c1', 'look', 1), call('c2', 'pay', 2), call('c3', 'look', 3)] }, { text: 'paid' }],
      { approvals: { mode: 'durable', expiresAfterMs: 60_000, deciders: ['alice', 'bob'] } },
    )
    const before = Date.now()
    const outcome = await agent.send('pay 2')
    expect(outcome).toMatchObject({ turn: 1, reason: 'suspended', text: '' })
    expect(outcome.pending?.map((p) => [p.callId, p.name, p.reason])).toEqual([['c2', 'pay', 'moves money']])
    expect(await agent.whenIdle()).toBe(outcome)
    const asked = r.session.events().find((e) => e.type === 'approval/asked')!
    expect(asked.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'c2',
      name: 'pay',
      reason: 'moves money',
      argumentsDigest: outcome.pending![0]!.argumentsDigest,
      durable: true,
      expiresAt: outcome.pending![0]!.expiresAt,
      deciders: ['alice', 'bob'],
    })
    const expires = Date.parse(outcome.pending![0]!.expiresAt)
    expect(expires).toBeGreaterThanOrEqual(before + 60_000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000)
    expect(pendingApprovals(r.session)).toEqual([
      {
        turn: 1,
        step: 1,
        callId: 'c2',
        name: 'pay',
        argumentsDigest: outcome.pending![0]!.argumentsDigest,
        reason: 'moves money',
        expiresAt: outcome.pending![0]!.expiresAt,
        deciders: ['alice', 'bob'],
        expired: false,
      },
    ])
    // The calls before the ask ran; c3 was parked before its policy phase and never ran.
    expect(r.runs).toEqual(['look 1'])
    expect(lines(r.session.events())).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'assistant/message',
      'tool/call c1',
      'tool/call c2',
      'tool/call c3',
      'approval/asked c2',
      'tool/result c1',
    ])
    const decided = await decideApproval(r.session, 'c2', {
      decision: 'allowed-once',
      by: 'alice',
      reason: 'ok',
      digest: digestOf(r.session),
    })
    expect(decided).toEqual({
      turn: 1,
      step: 1,
      callId: 'c2',
      name: 'pay',
      outcome: 'allowed-once',
      argumentsDigest: asked.data.argumentsDigest,
      by: 'alice',
      reason: 'ok',
      decidedAt: expect.any(String),
    })
    expect(Date.parse(decided.decidedAt!)).toBeLessThanOrEqual(Date.now())
    expect(pendingApprovals(r.session)).toEqual([])
    const done = await agent.resume()
    expect(done).toMatchObject({ turn: 1, reason: 'completed', text: 'paid' })
    expect(r.runs).toEqual(['look 1', 'pay 2', 'look 3'])
    expect(lines(r.session.events()).slice(9)).toEqual([
      'approval/decided c2',
      'turn/resumed',
      'tool/result c2',
      'tool/result c3',
      ...CLOSING_TYPES,
    ])
    expect(r.session.events().find((e) => e.type === 'turn/resumed')?.data).toEqual({ turn: 1, step: 1 })
    expect(await agent.resume()).toBeUndefined()
  })

  it('F2.3, F2.7: calls that had not started get their tool/call on resume; started ones never get a second', async ({
    r,
  }) => {
    const agent = r.agent(
      [{ toolCalls: [call('c1', 'pay', 1), call('c2', 'look', 2), call('c3', 'look', 3)] }, { text: 'ok' }],
      { maxParallelToolCalls: 1 },
    )
    expect((await agent.send('go')).reason).toBe('suspended')
    expect(lines(r.session.events()).slice(4)).toEqual(['tool/call c1', 'approval/asked c1'])
    await decideApproval(r.session, 'c1', { decision: 'allowed-once', by: 'x', digest: digestOf(r.session) })
    expect((await agent.resume())?.reason).toBe('completed')
    expect(lines(r.session.events()).slice(4, 13)).toEqual([
      'tool/call c1',
      ...decidedAndRun('c1'),
      'tool/call c2',
      'tool/result c2',
      'tool/call c3',
      'tool/result c3',
    ])
  })

  it('F2.5: refusals append nothing: unknown call, tampered digest, not a decider, malformed; a second decision conflicts', async ({
    r,
  }) => {
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'ok' }], {
      approvals: { mode: 'durable', deciders: ['alice'] },
    })
    await agent.send('go')
    const digest = digestOf(r.session)
    const count = r.session.events().length
    const refusal = async (callId: string, decision: unknown) => {
      try {
        await decideApproval(r.session, callId, decision as never)
      } catch (error) {
        return { code: (error as { code: string }).code, message: (error as Error).message }
      }
      throw new Error('decide did not refuse')
    }
    expect(await refusal('c9', { decision: 'allowed-once', by: 'alice', digest })).toEqual({
      code: 'APPROVAL_REFUSED',
      message: 'session "s" has no pending durable approval for call "c9"; pending: "c1" (pay)',
    })
    const tampered = digest.replace(/^./, (c) => (c === '0' ? '1' : '0'))
    expect(await refusal('c1', { decision: 'allowed-once', by: 'alice', digest: tampered })).toEqual({
      code: 'APPROVAL_REFUSED',
      message: `the digest "${tampered}" does not match the recorded arguments of call "c1" (${digest}); nothing was recorded — decide on the arguments pendingApprovals shows`,
    })
    expect(await refusal('c1', { decision: 'allowed-once', by: 'mallory', digest })).toEqual({
      code: 'APPROVAL_REFUSED',
      message: '"mallory" may not decide call "c1"; its deciders are "alice"',
    })
    for (const bad of [
      { decision: 'yes', by: 'alice', digest },
      { decision: 'denied', by: '', digest },
      { decision: 'denied', by: 'alice' },
      null,
    ]) {
      expect((await refusal('c1', bad)).code).toBe('INVALID_DEFINITION')
    }
    expect(r.session.events()).toHaveLength(count)
    const first = await decideApproval(r.session, 'c1', { decision: 'denied', by: 'alice', digest })
    expect(first.outcome).toBe('rejected')
    const seq = r.session.events().length
    expect(await refusal('c1', { decision: 'allowed-once', by: 'alice', digest })).toEqual({
      code: 'APPROVAL_CONFLICT',
      message: `the approval of call "c1" was already decided: rejected by "alice" (seq ${seq}); the first decision wins, so yours was not recorded`,
    })
    expect(r.session.events()).toHaveLength(seq)
    // Two racing decisions in one process: the first wins, the second conflicts.
    const r2 = await rig()
    await r2.agent([{ toolCalls: [call('c1', 'pay', 1)] }]).send('go')
    const d2 = digestOf(r2.session)
    const raced = await Promise.allSettled([
      decideApproval(r2.session, 'c1', { decision: 'allowed-once', by: 'a', digest: d2 }),
      decideApproval(r2.session, 'c1', { decision: 'denied', by: 'b', digest: d2 }),
    ])
    expect(raced[0].status).toBe('fulfilled')
    expect(raced[1]).toMatchObject({ status: 'rejected', reason: { code: 'APPROVAL_CONFLICT' } })
    expect(r2.session.events().filter((e) => e.type === 'approval/decided')).toHaveLength(1)
  })

  it('F2.5, F2.7: a denied approval resumes to a DENIED result and the body never runs', async ({ r }) => {
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'not paid' }])
    await agent.send('go')
    await decideApproval(r.session, 'c1', { decision: 'denied', by: 'alice', digest: digestOf(r.session) })
    expect((await agent.resume())?.text).toBe('not paid')
    expect(r.runs).toEqual([])
    expect(results(r.session.events())).toEqual([
      'c1 DENIED [{"type":"text","text":"Error: the user rejected tool \\"pay\\""}]',
    ])
  })

  it('F2.6, P4.10, F2.18: an expired approval is recorded expired by decide, and by the live agent itself, and fails closed', async ({
    r,
  }) => {
    // A minute to expire, so the live agent's own continuation (F2.18) waits: decide is told the time.
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'late' }], {
      approvals: { mode: 'durable', expiresAfterMs: 60_000 },
    })
    await agent.send('go')
    const [pending] = pendingApprovals(r.session)
    const expiry = Date.parse(pending!.expiresAt)
    expect(pendingApprovals(r.session, { now: expiry })[0]?.expired).toBe(true)
    expect(pendingApprovals(r.session, { now: expiry - 1 })[0]?.expired).toBe(false)
    await expect(
      decideApproval(
        r.session,
        'c1',
        { decision: 'allowed-once', by: 'alice', digest: pending!.argumentsDigest },
        { now: expiry },
      ),
    ).rejects.toMatchObject({
      code: 'APPROVAL_REFUSED',
      message: `the approval of call "c1" expired at ${pending!.expiresAt}; it is recorded as expired, so the call is denied`,
    })
    const decided = r.session.events().at(-1)!
    expect(decided).toMatchObject({
      type: 'approval/decided',
      data: { callId: 'c1', outcome: 'expired', reason: `nobody decided before ${pending!.expiresAt}` },
    })
    expect('by' in decided.data).toBe(false)
    expect((await agent.resume())?.reason).toBe('completed')
    expect(r.runs).toEqual([])
    expect(results(r.session.events())).toEqual([
      'c1 DENIED [{"type":"text","text":"Error: approval for tool \\"pay\\" expired before anyone decided it"}]',
    ])
    // Nobody decides and nobody resumes: the live agent records the expiry itself and goes on.
    const r2 = await rig()
    const agent2 = r2.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'late' }], {
      approvals: { mode: 'durable', expiresAfterMs: 1 },
    })
    expect((await agent2.send('go')).reason).toBe('suspended')
    for (let i = 0; i < 200 && r2.session.events().at(-1)?.type !== 'turn/end'; i++)
      await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await agent2.whenIdle())?.reason).toBe('completed')
    expect(lines(r2.session.events()).slice(5, 9)).toEqual(decidedAndRun('c1'))
    expect(r2.runs).toEqual([])
  })

  it('F2.7: resume on an undecided approval stays suspended and appends nothing', async ({ r }) => {
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }])
    const first = await agent.send('go')
    const count = r.session.events().length
    const again = await agent.resume()
    expect(again).toMatchObject({ reason: 'suspended', turn: 1 })
    expect(again?.pending).toEqual(first.pending)
    expect(r.session.events()).toHaveLength(count)
    // A new agent on the same session sees the suspended turn too and starts none.
    const other = r.agent([])
    expect((await other.resume())?.reason).toBe('suspended')
    expect(r.session.events()).toHaveLength(count)
  })

  it('F2.7: the approved call still passes its guards, which can deny it', async () => {
    let block = false
    const r = await rig({ guard: (name) => (block && name === 'pay' ? 'account frozen' : undefined) })
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'blocked' }])
    await agent.send('go')
    await decideApproval(r.session, 'c1', {
      decision: 'allowed-once',
      by: 'alice',
      digest: digestOf(r.session),
    })
    block = true
    await agent.resume()
    expect(r.runs).toEqual([])
    expect(results(r.session.events())).toEqual([
      'c1 DENIED [{"type":"text","text":"Error: tool \\"pay\\" denied by guard: account frozen"}]',
    ])
    // The resumed ask appended no second asked or decided.
    expect(lines(r.session.events()).filter((l) => l.startsWith('approval/'))).toEqual([
      'approval/asked c1',
      'approval/decided c1',
    ])
  })

  it('F2.7: a later call that asks durably suspends the resumed turn again', async ({ r }) => {
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1), call('c2', 'pay', 2)] }, { text: 'both' }])
    await agent.send('go')
    await decideApproval(r.session, 'c1', { decision: 'allowed-once', by: 'a', digest: digestOf(r.session) })
    const second = await agent.resume()
    expect(second?.reason).toBe('suspended')
    expect(second?.pending?.map((p) => p.callId)).toEqual(['c2'])
    await decideApproval(r.session, 'c2', { decision: 'allowed-once', by: 'a', digest: digestOf(r.session) })
    expect((await agent.resume())?.reason).toBe('completed')
    expect(r.runs).toEqual(['pay 1', 'pay 2'])
    expect(lines(r.session.events()).slice(4)).toEqual([
      'tool/call c1',
      'tool/call c2',
      'approval/asked c1',
      'approval/decided c1',
      'turn/resumed',
      'approval/asked c2',
      'tool/result c1',
      'approval/decided c2',
      'turn/resumed',
      'tool/result c2',
      ...CLOSING_TYPES,
    ])
  })

  it('F2.8: send on a suspended session waits for the decision, then drains into the resumed turn', async ({
    r,
  }) => {
    const agent = r.agent([{ toolCalls: [call('c1', 'pay', 1)] }, { text: 'done' }])
    await agent.send('go')
    const waiting = await agent.send('and then?')
    expect(waiting.reason).toBe('suspended')
    expect(lines(r.session.events()).filter((l) => l === 'user/message')).toHaveLength(1)
    await decideApproval(r.session, 'c1', { decision: 'allowed-once', by: 'a', digest: digestOf(r.session) })
    expect((await agent.resume())?.reason).toBe('completed')
    const messages = r.session.events().filter((e) => e.type === 'user/message')
    expect(messages.map((e) => [e.data.step, e.data.message.content])).toEqual([
      [1, [{ type: 'text', text: 'go' }]],
      [2, [{ type: 'text', text: 'and then?' }]],
    ])
  })

  it('F2.9: a nested run_code call that asks fails DENIED (unavailable), recorded, and the program catches it', async () => {
    const r = await rig({ mode: 'both' })
    const codeRuntime: CodeRuntime = {
      language: 'typescript',
      isolation: 'none (test double)',
      async run(request) {
        try {
          await request.bindings.pay!({ n: 7 })
          return { logs: [], value: 'paid' }
        } catch (error) {
          const e = error as { code: string; message: string }
          return { logs: [], value: { caught: e.code, message: e.message } as JsonValue }
        }
      },
    }
    const agent = r.agent(
      [
        {
          toolCalls: [
            { id: 'r1', name: 'run_code', arguments: JSON.stringify({ code: 'x', description: 'pay' }) },
          ],
        },
        { text: 'done' },
      ],
      { codeRuntime },
    )
    expect((await agent.send('go')).reason).toBe('completed')
    expect(r.runs).toEqual([])
    const approvals = r.session.events().filter((e) => e.type.startsWith('approval/'))
    expect(approvals.map((e) => [e.type, (e.data as { callId: string }).callId])).toEqual([
      ['approval/asked', 'r1:code:1'],
      ['approval/decided', 'r1:code:1'],
    ])
    expect(approvals[1]!.data).toMatchObject({ outcome: 'unavailable' })
    expect('durable' in approvals[0]!.data).toBe(false)
    const result = r.session.events().find((e) => e.type === 'tool/result')!
    expect(JSON.stringify(result.data)).toContain(
      'tool \\\\\\"pay\\\\\\" requires approval, but the approval channel is unavailable',
    )
    expect(JSON.stringify(result.data)).toContain('\\"caught\\": \\"DENIED\\"')
  })

  it('L9.1, F2.3: plain openSession leaves a suspended turn untouched, decided or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-durable-'))
    dirs.push(dir)
    const t = tools()
    const store = fileStore(dir)
    const session = await openSession(store, { id: 's' })
    const agent = createAgent({
      runtime: t.runtime,
      scope: t.scope,
      session,
      model: scripted([{ toolCalls: [call('c1', 'look', 1), call('c2', 'pay', 2)] }]),
      approvals: 'durable',
    })
    await agent.send('go')
    await session.close()
    const count = session.events().length
    const b = await openSession(fileStore(dir), { id: 's' })
    expect(b.events()).toHaveLength(count)
    await decideApproval(b, 'c2', { decision: 'allowed-once', by: 'b', digest: digestOf(b) })
    await b.close()
    const c = await openSession(fileStore(dir), { id: 's' })
    expect(c.events()).toHaveLength(count + 1)
    expect(suspendedTurn(c.events())?.decided?.by).toBe('b')
    await c.close()
    await store.close()
  })

  it('L11.8, F2.3, F2.7: a suspended turn survives a checkpoint: reopened from it, the ask is still pending, decided and resumed', async () => {
    for (const open of [
      (dir: string) => fileStore(dir),
      (dir: string) => sqliteStore(join(dir, 'sessions.db')),
    ]) {
      const dir = mkdtempSync(join(tmpdir(), 'tooltx-durable-'))
      dirs.push(dir)
      const t = tools()
      const store = open(dir)
      // A checkpoint after every event: the reopened state comes from it, not from a replay.
      const session = await openSession(store, { id: 's', checkpointEvery: 1 })
      const steps = [{ toolCalls: [call('c1', 'look', 1), call('c2', 'pay', 2)] }, { text: 'done' }]
      const agent = createAgent({
        runtime: t.runtime,
        scope: t.scope,
        session,
        model: scripted(steps),
        approvals: 'durable',
      })
      expect((await agent.send('go')).reason).toBe('suspended')
      const count = session.events().length
      await session.close()
      await store.close()

      const b = open(dir)
      const decider = await openSession(b, { id: 's', checkpointEvery: 1 })
      expect(pendingApprovals(decider).map((p) => p.callId)).toEqual(['c2'])
      await decideApproval(decider, 'c2', { decision: 'allowed-once', by: 'b', digest: digestOf(decider) })
      expect(decider.events()).toHaveLength(count + 1)
      await decider.close()
      await b.close()

      const c = open(dir)
      const resumed = await openSession(c, { id: 's', checkpointEvery: 1 })
      const last = createAgent({
        runtime: t.runtime,
        scope: t.scope,
        session: resumed,
        model: scripted(steps.slice(1)),
        approvals: 'durable',
      })
      const outcome = await last.resume()
      expect(outcome?.reason).toBe('completed')
      expect(t.runs).toEqual(['look 1', 'pay 2'])
      expect(lines(resumed.events()).slice(count - 2, count)).toEqual(['approval/asked c2', 'tool/result c1'])
      expect(lines(resumed.events()).slice(count)).toEqual([
        'approval/decided c2',
        'turn/resumed',
        'tool/result c2',
        ...CLOSING_TYPES,
      ])
      await resumed.close()
      await c.close()
    }
  })

  it('F2.10: a crash after turn/resumed is an ordinary interrupted turn: the approved write is never run twice', async () => {
    const where = { turn: 1, step: 1 }
    const blocks = [
      { type: 'tool-call', ...call('c1', 'pay', 1) },
      { type: 'tool-call', ...call('c2', 'look', 2) },
    ] as const
    const log: NewSessionEvent[] = [
      ...calledTurn(blocks),
      {
        type: 'approval/asked',
        data: {
          ...where,
          callId: 'c1',
          name: 'pay',
          argumentsDigest: 'd',
          durable: true,
          expiresAt: new Date(Date.now() + 60_000).toISOString(),
        },
      },
      {
        type: 'approval/decided',
        data: {
          ...where,
          callId: 'c1',
          name: 'pay',
          outcome: 'allowed-once',
          argumentsDigest: 'd',
          by: 'a',
          decidedAt: new Date().toISOString(),
        },
      },
      { type: 'turn/resumed', data: where },
    ]
    for (const repair of [false, true]) {
      const store = memoryStore()
      const seed = await openSession(store, { id: 's' })
      await seed.appendBatch(log)
      // The process that wrote it dies, giving its lease back (L14.6).
      await seed.close()
      const t = tools()
      const session = await openSession(store, { id: 's', repair })
      expect(suspendedTurn(session.events())).toBeUndefined()
      const agent = createAgent({
        runtime: t.runtime,
        scope: t.scope,
        session,
        model: scripted([]),
        approvals: 'durable',
      })
      expect(await agent.resume()).toBeUndefined()
      expect(t.runs).toEqual(repair ? [] : ['look 2'])
      const codes = results(session.events()).map((line) => line.split(' ').slice(0, 2).join(' '))
      expect(codes).toEqual(
        repair
          ? ['c1 TOOL_OUTCOME_UNKNOWN', 'c2 TOOL_OUTCOME_UNKNOWN']
          : ['c1 TOOL_OUTCOME_UNKNOWN', 'c2 ok'],
      )
      expect(session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    }
  })

  it('F2.3, F2.7: for random ask positions, every call ends with exactly one tool/call and one tool/result, in model order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom('allowed-once', 'denied'), { minLength: 6, maxLength: 6 }),
        async (asks, parallel, decisions) => {
          const r = await rig()
          const calls = asks.map((ask, i) => call(`c${i}`, ask ? 'pay' : 'look', i))
          const agent = r.agent([{ toolCalls: calls }, { text: 'end' }], { maxParallelToolCalls: parallel })
          let outcome = await agent.send('go')
          let k = 0
          while (outcome.reason === 'suspended') {
            const [pending] = pendingApprovals(r.session)
            await decideApproval(r.session, pending!.callId, {
              decision: decisions[k++]! as 'allowed-once' | 'denied',
              by: 'p',
              digest: pending!.argumentsDigest,
            })
            outcome = (await agent.resume())!
          }
          expect(outcome.reason).toBe('completed')
          expect(k).toBe(asks.filter(Boolean).length)
          const events = r.session.events()
          const ids = calls.map((c) => c.id)
          expect(
            events
              .filter((e) => e.type === 'tool/call')
              .map((e) => (e.data as { callId: string }).callId)
              .sort(),
          ).toEqual([...ids].sort())
          expect(
            events.filter((e) => e.type === 'tool/result').map((e) => (e.data as { callId: string }).callId),
          ).toEqual(ids)
          const paid = asks.flatMap((ask, i) => (ask ? [i] : []))
          const allowed = paid.filter((_, j) => decisions[j] === 'allowed-once').map((i) => `pay ${i}`)
          expect(r.runs.filter((run) => run.startsWith('pay')).sort()).toEqual(allowed.sort())
          expect(r.runs.filter((run) => run.startsWith('look'))).toHaveLength(asks.length - paid.length)
        },
      ),
      { numRuns: 40 },
    )
  })
})
