import {
  type AgentOptions,
  createAgent,
  type ModelAdapter,
  type ModelRequest,
  scripted,
  type TurnOutcome,
} from '@tooltx/agent'
import type { TurnEndData } from '@tooltx/session'
import { describe, expect } from 'vitest'
import {
  agentOn,
  answeredOnce,
  call,
  eventually,
  failingOnce,
  go,
  itWithRig,
  lines,
  preExecuted,
  type Rig,
  rig,
} from './loop-harness.js'

/** A model that answers every request with `perStep` calls of `echo`: it never stops on its own. */
function runaway(perStep = 1): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return {
    name: 'runaway',
    requests,
    async *stream(request) {
      requests.push(request)
      const n = requests.length
      const content = Array.from({ length: perStep }, (_, i) => ({
        type: 'tool-call' as const,
        id: `c${n}_${i}`,
        name: 'echo',
        arguments: JSON.stringify({ id: `${n}_${i}` }),
      }))
      yield { type: 'message', content, usage: { inputTokens: 1, outputTokens: 1 } }
    },
  }
}

/** Sends `go` to an agent on `r` with `options` and a `runaway(perStep)` model; resolves with both. */
async function runawayTurn(r: Rig, perStep: number, options: Partial<AgentOptions>) {
  const model = runaway(perStep)
  const outcome = await agentOn(r, { model, ...options }).send('go')
  return { model, outcome }
}

/** The data of the log's last event, read as a `turn/end`. */
const turnEnd = (rig: Rig) => rig.session.events().at(-1)?.data as TurnEndData | undefined

/** The `turn/end` data of turn 1 when the bound `limit` ended it, saying so in `message`. */
const limitEnd = (limit: string, message: string) => ({ turn: 1, reason: 'limit', limit, message })

/** Turn 1 ended at the bound `limit`: its `turn/end` says `message`, and its outcome has the reply `text`. */
function expectLimited(
  r: Rig,
  outcome: TurnOutcome | undefined,
  end: { limit: string; message: string; text: string },
) {
  expect(turnEnd(r)).toEqual(limitEnd(end.limit, end.message))
  expect(outcome).toEqual({ turn: 1, reason: 'limit', limit: end.limit, text: end.text })
}

/** `it` with a fresh memory-store rig as `r`. */
const it = itWithRig(() => rig({ store: 'memory' }))

describe('L13 bounds and turn outcomes', () => {
  it('L13.1, L3.8: maxSteps ends a turn whose model always calls a tool, after closing the last step', async ({
    r,
  }) => {
    const { model, outcome } = await runawayTurn(r, 1, { maxSteps: 3 })
    expect(model.requests).toHaveLength(3)
    expect(lines(r.session).slice(-4)).toEqual([
      'tool/call c3_0',
      'tool/result c3_0 ok',
      'step/end',
      'turn/end limit',
    ])
    expectLimited(r, outcome, { limit: 'maxSteps', message: 'the turn reached maxSteps (3 steps)', text: '' })
  })

  it('L13.2: by default a turn makes at most 100 model requests', async ({ r }) => {
    const { model, outcome } = await runawayTurn(r, 1, {})
    expect(model.requests).toHaveLength(100)
    expect(outcome.limit).toBe('maxSteps')
  })

  it('L13.1, L13.4: calls beyond maxToolCalls get not-started pairs without running, and the turn ends with limit', async ({
    r,
  }) => {
    const decided = preExecuted(r)
    const { model, outcome } = await runawayTurn(r, 3, { maxToolCalls: 5 })
    expect(model.requests).toHaveLength(2)
    expect(r.trace.filter((t) => t.startsWith('start'))).toEqual([
      'start 1_0',
      'start 1_1',
      'start 1_2',
      'start 2_0',
      'start 2_1',
    ])
    expect(lines(r.session).slice(-8)).toEqual([
      'tool/call c2_0',
      'tool/call c2_1',
      'tool/result c2_0 ok',
      'tool/result c2_1 ok',
      'tool/call c2_2',
      'tool/result c2_2 ABORTED_BEFORE_DISPATCH',
      'step/end',
      'turn/end limit',
    ])
    const refused = r.session.events().find((e) => e.type === 'tool/result' && e.data.callId === 'c2_2')
    expect(refused?.data).toMatchObject({
      content: [
        { type: 'text', text: 'Error: tool call not started: the turn reached its maxToolCalls limit' },
      ],
      error: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
    })
    expect(turnEnd(r)).toEqual(limitEnd('maxToolCalls', 'the turn reached maxToolCalls (5 tool calls)'))
    expect(outcome.reason).toBe('limit')
    // L13.4: the refused call ran no hook, and every block still has one answer.
    expect(decided).toEqual(['c1_0', 'c1_1', 'c1_2', 'c2_0', 'c2_1'])
    expect(answeredOnce(r.session)).toBe(true)
  })

  it('L13.1: a turn that used up maxToolCalls exactly ends without asking the model again', async ({ r }) => {
    const { model, outcome } = await runawayTurn(r, 2, { maxToolCalls: 2 })
    expect(model.requests).toHaveLength(1)
    expect(lines(r.session).slice(-3)).toEqual(['tool/result c1_1 ok', 'step/end', 'turn/end limit'])
    expect(outcome.limit).toBe('maxToolCalls')
  })

  it('L13.1, L3.8: maxTurnMs aborts the running call, closes the step and ends the turn with limit', async ({
    r,
  }) => {
    const { agent } = go(r, [{ text: 'Waiting.', toolCalls: [call('wait', '1'), call('write', '2')] }], {
      maxTurnMs: 20,
    })
    const outcome = await agent.whenIdle()
    expect(lines(r.session).slice(4)).toEqual([
      'tool/call c1',
      'tool/result c1 ABORTED',
      'tool/call c2',
      'tool/result c2 ABORTED_BEFORE_DISPATCH',
      'step/end',
      'turn/end limit',
    ])
    expectLimited(r, outcome, {
      limit: 'maxTurnMs',
      message: 'the turn reached maxTurnMs (20 ms)',
      text: 'Waiting.',
    })
  })

  it('L13.2: a bound that is neither a positive integer nor Infinity throws INVALID_DEFINITION at createAgent', async ({
    r,
  }) => {
    const base = { runtime: r.runtime, scope: r.scope, session: r.session, model: scripted([]) }
    for (const key of ['maxSteps', 'maxToolCalls', 'maxTurnMs'] as const) {
      for (const bad of [0, -1, 1.5, Number.NaN, '3', null]) {
        expect(() => createAgent({ ...base, [key]: bad as number })).toThrow(
          expect.objectContaining({
            code: 'INVALID_DEFINITION',
            message: `${key} must be a positive integer or Infinity, got ${String(bad)}`,
          }),
        )
      }
      expect(() => createAgent({ ...base, [key]: Number.POSITIVE_INFINITY })).not.toThrow()
    }
    // A longer delay than a timer can wait would fire at once.
    expect(() => createAgent({ ...base, maxTurnMs: 2 ** 31 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_DEFINITION',
        message: 'maxTurnMs must be at most 2147483647 (about 24.8 days) or Infinity, got 2147483648',
      }),
    )
  })

  it('L13.3: send resolves with the outcome of the turn its message went into: reason and final text', async ({
    r,
  }) => {
    const model = scripted([
      { text: 'Looking.', toolCalls: [call('echo', '1')] },
      { text: 'All done.' },
      { text: 'Second.' },
    ])
    const agent = agentOn(r, { model })
    const first = agent.send('a')
    const second = agent.send('b')
    expect(await first).toEqual({ turn: 1, reason: 'completed', text: 'All done.' })
    expect(await second).toBe(await first)
    expect(await agent.whenIdle()).toBe(await first)
    expect(await agent.send('c')).toEqual({ turn: 2, reason: 'completed', text: 'Second.' })
  })

  it('L13.3: a model failure resolves send and whenIdle with reason error and its message', async ({ r }) => {
    const agent = agentOn(r, { model: scripted([]) })
    expect(await agent.whenIdle()).toBeUndefined()
    const outcome = await agent.send('hello')
    expect(outcome).toEqual({
      turn: 1,
      reason: 'error',
      text: '',
      error: expect.stringContaining('no scripted step left for request 1'),
    })
    expect(outcome.error).toBe(turnEnd(r)?.message)
    expect(await agent.whenIdle()).toBe(outcome)
  })

  it('L13.3: an aborted turn resolves with reason aborted and the text streamed so far', async ({ r }) => {
    const { agent } = go(r, [{ text: 'Let me check.', toolCalls: [call('wait', '1')] }, { text: 'Next.' }])
    await eventually(() => r.trace.includes('start 1'), 'the call started')
    const later = agent.send('and this')
    agent.abort({ keepQueued: true })
    // The message sent during the batch never reached turn 1, so it answers for turn 2.
    expect(await later).toEqual({ turn: 2, reason: 'completed', text: 'Next.' })
    const aborted = r.session.events().find((e) => e.type === 'turn/end')
    expect(aborted?.data).toEqual({ turn: 1, reason: 'aborted' })
  })

  it('L13.3: when the session refuses the repair a turn needs, the queued sends resolve with reason error and no turn', async () => {
    let broken = false
    const r = await rig({
      store: (path) => {
        const store = failingOnce(path, (e) => e.type === 'tool/result')
        return {
          ...store,
          append: (id, events) =>
            broken
              ? Promise.reject(new Error('disk gone'))
              : store.append(id, events).catch((error: unknown) => {
                  broken = true
                  throw error
                }),
        }
      },
    })
    r.gates.open('1')
    const { agent } = go(r, [{ toolCalls: [call('wait', '1')] }, { text: 'back' }])
    expect((await agent.whenIdle())?.reason).toBe('error')
    const outcome = await agent.send('next')
    expect(outcome).toEqual({ reason: 'error', text: '', error: 'disk gone' })
    await expect(agent.whenIdle()).rejects.toThrow('disk gone')
    // The message stayed queued: the next send drains it once the session works again.
    broken = false
    expect(await agent.send('again')).toEqual({ turn: 2, reason: 'completed', text: 'back' })
    expect(
      lines(r.session)
        .filter((l) => l.startsWith('user/message'))
        .slice(-2),
    ).toEqual(['user/message "next"', 'user/message "again"'])
  })
})
