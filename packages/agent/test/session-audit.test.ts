import { type AuditDecision, auditSession, createAgent, type ScriptedStep, scripted } from '@tooltx/agent'
import { type Approver, createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countedTool } from './counted-tool.js'

/** A runtime with one `note` tool whose body counts its runs, and the count. */
function notes(): { runtime: ToolRuntime; runs: () => number } {
  return countedTool({ name: 'note', description: 'Write a note.', body: async (text) => ({ saved: text }) })
}

/** The policy of the property test: `ask` asks, `no` is denied by a guard, a number throws. */
function policy(runtime: ToolRuntime): void {
  runtime.onPreExecute(async (exec, next) => {
    const text = (exec.arguments as { text?: unknown }).text
    if (typeof text === 'number') throw new Error('numbers are not notes')
    return text === 'ask' ? { kind: 'ask', reason: 'check first' } : next()
  })
  runtime.guard((exec) => ((exec.arguments as { text?: unknown }).text === 'no' ? 'not that' : undefined))
}

/** Records one turn of `steps` with `runtime` (and `approver`) and returns the log. */
async function record(runtime: ToolRuntime, steps: ScriptedStep[], approver?: Approver) {
  const session = await openSession(memoryStore(), { id: 'recorded' })
  const options = { runtime, scope: runtime.scope(), session, model: scripted(steps) }
  await createAgent(approver === undefined ? options : { ...options, approver }).send('go')
  return session.events()
}

const calls = (...args: string[]): ScriptedStep[] => [
  { toolCalls: args.map((a, i) => ({ id: `c${i + 1}`, name: 'note', arguments: a })) },
  { text: 'done' },
]

describe('A1 auditSession', () => {
  it('A1.1: no body runs during an audit, and the audit removes what it registered', async () => {
    const { runtime, runs } = notes()
    const events = await record(runtime, calls('{"text":"a"}', '{"text":"b"}'))
    expect(runs()).toBe(2)
    const audit = await auditSession(events, runtime)
    expect(runs()).toBe(2)
    expect(audit.calls.map((c) => [c.callId, c.before.kind, c.after.kind, c.changed])).toEqual([
      ['c1', 'execute', 'execute', false],
      ['c2', 'execute', 'execute', false],
    ])
    const after = await runtime.execute({
      callId: 'x',
      name: 'note',
      arguments: { text: 'c' },
      signal: new AbortController().signal,
    })
    expect(after.isError).toBe(false)
    expect(runs()).toBe(3)
  })

  it('A1.2: asks are "would ask" whatever the person answered; denials and invalid arguments keep their reasons', async () => {
    const { runtime } = notes()
    runtime.onPreExecute(async (exec, next) =>
      (exec.arguments as { text?: unknown }).text === 'ask' ? { kind: 'ask', reason: 'check first' } : next(),
    )
    runtime.guard((exec) => ((exec.arguments as { text?: unknown }).text === 'no' ? 'not that' : undefined))
    const events = await record(
      runtime,
      calls('{"text":"ask"}', '{"text":"no"}', '{"text":1}', '{}'),
      () => 'rejected',
    )
    const audit = await auditSession(events, runtime)
    expect(audit.calls.map((c) => [c.callId, c.before, c.after])).toEqual([
      ['c1', { kind: 'ask', reason: 'check first' }, { kind: 'ask', reason: 'check first' }],
      [
        'c2',
        { kind: 'deny', reason: 'tool "note" denied by guard: not that' },
        { kind: 'deny', reason: 'tool "note" denied by guard: not that' },
      ],
      [
        'c3',
        { kind: 'invalid', reason: 'invalid arguments: "text" must be a string' },
        { kind: 'invalid', reason: 'invalid arguments: "text" must be a string' },
      ],
      [
        'c4',
        { kind: 'invalid', reason: 'invalid arguments: missing required property "text"' },
        { kind: 'invalid', reason: 'invalid arguments: missing required property "text"' },
      ],
    ])
    expect(audit.changed).toBe(0)
  })

  it('A1.3: handlers that throw or answer wrongly are per-call policy failures; the audit resolves', async () => {
    const { runtime } = notes()
    const events = await record(runtime, calls('{"text":"a"}', '{"text":"b"}', '{"text":"c"}'))
    const candidate = notes().runtime
    candidate.onPreExecute(async (exec, next) => {
      const text = (exec.arguments as { text?: unknown }).text
      if (text === 'a') throw new Error('boom')
      if (text === 'b') return { kind: 'maybe' } as never
      return next()
    })
    candidate.guard((exec) =>
      (exec.arguments as { text?: unknown }).text === 'c' ? (7 as never) : undefined,
    )
    const audit = await auditSession(events, candidate)
    expect(audit.calls.map((c) => [c.callId, c.after])).toEqual([
      ['c1', { kind: 'policy-failed', reason: 'onPreExecute handler failed: boom' }],
      [
        'c2',
        {
          kind: 'policy-failed',
          reason:
            'onPreExecute handler returned an invalid value: kind must be "allow", "deny" or "ask", got "maybe"',
        },
      ],
      [
        'c3',
        {
          kind: 'policy-failed',
          reason:
            'guard handler returned an invalid value: expected a non-empty string or undefined, got a value of type number',
        },
      ],
    ])
    expect(audit.changed).toBe(3)
  })

  it('A1.9: a pre-execute handler that never settles fails its call after hookTimeoutMs; the next call is audited', async () => {
    const { runtime } = notes()
    const events = await record(runtime, calls('{"text":"stuck"}', '{"text":"fine"}'))
    const off = runtime.onPreExecute((exec, next) =>
      (exec.arguments as { text?: unknown }).text === 'stuck' ? new Promise(() => {}) : next(),
    )
    const audit = await auditSession(events, runtime, { hookTimeoutMs: 50 })
    off()
    expect(audit.calls.map((c) => [c.callId, c.after])).toEqual([
      [
        'c1',
        {
          kind: 'policy-failed',
          reason:
            'the policy did not settle within 50 ms (a pre-execute handler, the approval step or a guard never returned), so its decision is unknown',
        },
      ],
      ['c2', { kind: 'execute' }],
    ])
    expect(audit.changed).toBe(1)
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(auditSession(events, runtime, { hookTimeoutMs: bad })).rejects.toThrow(
        /^auditSession: hookTimeoutMs must be a whole number of milliseconds, at least 1, got /,
      )
    }
  })

  it("A1.9: a call's bound excludes the time of its nested calls, each bounded on its own", async () => {
    const runtime = createToolRuntime({ mode: 'both' })
    runtime.register(
      defineTool({
        name: 'note',
        description: 'Write a note.',
        parameters: { text: { type: 'string', required: true } },
        execute: async ({ text }) => text,
      }),
    )
    const at = { turn: 1, step: 1 }
    const nested = (n: number) => [
      {
        type: 'tool/code-dispatch-start',
        data: {
          ...at,
          rootCallId: 'code',
          parentCallId: 'code',
          subCallId: `s${n}`,
          name: 'note',
          arguments: { text: 'a' },
        },
      },
      {
        type: 'tool/code-dispatch',
        data: {
          ...at,
          rootCallId: 'code',
          parentCallId: 'code',
          subCallId: `s${n}`,
          name: 'note',
          isError: false,
          content: [],
        },
      },
    ]
    const events = [
      { type: 'turn/start', data: { turn: 1 } },
      {
        type: 'tool/call',
        data: { ...at, callId: 'code', name: 'run_code', arguments: '{"code":"return 1"}' },
      },
      ...nested(1),
      ...nested(2),
      ...nested(3),
      { type: 'tool/result', data: { ...at, callId: 'code', name: 'run_code', isError: false, content: [] } },
    ].map((event, i) => ({ ...event, seq: i + 1 })) as unknown as SessionEvent[]
    const baseline = await auditSession(events, runtime, { hookTimeoutMs: 1_000 })
    expect(baseline.calls.map((c) => c.name)).toEqual(['run_code', 'note', 'note', 'note'])
    // Each nested call takes 400 ms of a 1,000 ms bound: 1,200 ms in all inside run_code's call.
    runtime.onPreExecute(async (exec, next) => {
      if (exec.name === 'note') await new Promise((resolve) => setTimeout(resolve, 400))
      return next()
    })
    const slow = await auditSession(events, runtime, { hookTimeoutMs: 1_000 })
    expect(slow.calls.map((c) => c.after)).toEqual(baseline.calls.map((c) => c.after))
    expect(slow.calls.some((c) => c.after.kind === 'policy-failed')).toBe(false)
  })

  it('A1.2: auditing with the policy a session was recorded with changes nothing (property)', async () => {
    const argument = fc.constantFrom(
      '{"text":"a"}',
      '{"text":"ask"}',
      '{"text":"no"}',
      '{"text":7}',
      '{}',
      'not json',
    )
    const answer = fc.constantFrom<'allowed-once' | 'rejected' | undefined>(
      'allowed-once',
      'rejected',
      undefined,
    )
    await fc.assert(
      fc.asyncProperty(fc.array(argument, { minLength: 1, maxLength: 6 }), answer, async (args, outcome) => {
        const { runtime } = notes()
        policy(runtime)
        const events = await record(
          runtime,
          calls(...args),
          outcome === undefined ? undefined : () => outcome,
        )
        const audit = await auditSession(events, runtime)
        // Without an approver the log holds no ask reason (P4.1), so asks compare by kind.
        const decided = (d: AuditDecision) => (d.kind === 'ask' ? d.kind : d)
        expect(audit.calls.map((c) => decided(c.after))).toEqual(audit.calls.map((c) => decided(c.before)))
        expect(audit.changed).toBe(0)
      }),
      { numRuns: 40 },
    )
  })

  it('A1.2: a call the log holds no decision for is unknown and never counts as changed', async () => {
    const session = await openSession(memoryStore(), { id: 'cut' })
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', { turn: 1, step: 1 })
    const block = { type: 'tool-call' as const, id: 'c1', name: 'note', arguments: '{"text":"a"}' }
    await session.append('assistant/message', { turn: 1, step: 1, content: [block] })
    await session.append('tool/call', {
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'note',
      arguments: block.arguments,
    })
    const deny = notes().runtime
    deny.guard(() => 'closed')
    const audit = await auditSession(session.events(), deny)
    expect(audit.calls.map((c) => [c.before.kind, c.after.kind, c.changed])).toEqual([
      ['unknown', 'deny', false],
    ])
    expect(audit.changed).toBe(0)
  })
})
