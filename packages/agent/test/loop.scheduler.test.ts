import { scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import {
  NOT_STARTED_TEXT,
  OUTCOME_UNKNOWN_TEXT,
  planRepair,
  type SessionEvent,
  sqliteStore,
} from '@tooltx/session'
import { describe, expect } from 'vitest'
import {
  agentOn,
  answeredOnce,
  call,
  closingText,
  eventually,
  failingOnce,
  go,
  idleLines,
  it,
  lines,
  OPENING,
  type Rig,
  rig,
} from './loop-harness.js'

const calls = (session: Rig['session']) => lines(session).filter((l) => l.startsWith('tool/'))

/** Picks the `tool/result` of `callId`. */
const resultOf = (callId: string) => (e: SessionEvent) => e.type === 'tool/result' && e.data.callId === callId

describe('L5 scheduler (SQLite session)', () => {
  it('L5.2, L5.3, L4.5, L4.6: an exclusive call in the middle of a batch is a barrier on both sides', async ({
    r,
  }) => {
    const { agent } = go(r, [
      {
        toolCalls: [
          call('wait', '1'),
          call('wait', '2'),
          call('write', '3'),
          call('wait', '4'),
          call('wait', '5'),
        ],
      },
      { text: 'ok' },
    ])
    await eventually(() => r.trace.length === 2, 'the parallel group started')
    r.gates.open('2')
    await eventually(() => r.trace.includes('end 2'), 'call 2 finished')
    // The barrier waits for call 1 as well.
    expect(calls(r.session)).toEqual(['tool/call c1', 'tool/call c2'])
    r.gates.open('1')
    await eventually(() => r.trace.includes('start 3'), 'the barrier started')
    const barrier = ['tool/call c1', 'tool/call c2', 'tool/result c1 ok', 'tool/result c2 ok', 'tool/call c3']
    expect(calls(r.session)).toEqual(barrier)
    // Nothing after the barrier starts while it runs.
    await new Promise((resolve) => setImmediate(resolve))
    expect(r.trace).toEqual(['start 1', 'start 2', 'end 2', 'end 1', 'start 3'])
    r.gates.open('3')
    await eventually(() => r.trace.length === 8, 'the second parallel group started')
    r.gates.open('5')
    r.gates.open('4')
    await agent.whenIdle()
    expect(calls(r.session)).toEqual([
      ...barrier,
      'tool/result c3 ok',
      'tool/call c4',
      'tool/call c5',
      'tool/result c4 ok',
      'tool/result c5 ok',
    ])
    expect(r.trace.slice(5, 8)).toEqual(['end 3', 'start 4', 'start 5'])
  })

  it('L5.1: each call is classified right before it starts, so a re-registration while it waits is seen', async ({
    r,
  }) => {
    const flex = (safe: boolean) =>
      defineTool({
        name: 'flex',
        description: 'Parallel or exclusive, depending on the registration.',
        parameters: { id: { type: 'string', required: true } },
        output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
        isConcurrencySafe: () => safe,
        execute: async (a) => {
          r.trace.push(`start ${a.id}`)
          await r.gates.get(a.id).promise
          r.trace.push(`end ${a.id}`)
          return a.id
        },
      })
    let off = r.scope.register(flex(false))
    // While the barrier c1 runs, flex becomes concurrency-safe; c2 and c3 then overlap.
    const switcher = r.runtime.onPreExecute((exec, next) => {
      if (exec.callId === 'c1') {
        off()
        off = r.scope.register(flex(true))
      }
      return next()
    })
    const { agent } = go(r, [
      { toolCalls: [call('write', '1'), call('flex', '2'), call('flex', '3')] },
      { text: 'ok' },
    ])
    r.gates.open('1')
    await eventually(() => r.trace.includes('start 3'), 'c2 and c3 overlap')
    expect(r.trace).toEqual(['start 1', 'end 1', 'start 2', 'start 3'])
    r.gates.open('2')
    r.gates.open('3')
    await agent.whenIdle()
    switcher()
  })

  it('L5.4: at most maxParallelToolCalls calls run at once; the pool rolls as calls finish', async ({
    r,
  }) => {
    const { agent } = go(
      r,
      [{ toolCalls: ['1', '2', '3', '4'].map((id) => call('wait', id)) }, { text: 'ok' }],
      { maxParallelToolCalls: 2 },
    )
    await eventually(() => r.trace.length === 2, 'two calls started')
    await new Promise((resolve) => setImmediate(resolve))
    expect(r.trace).toEqual(['start 1', 'start 2'])
    r.gates.open('2')
    await eventually(() => r.trace.includes('start 3'), 'a slot freed for call 3')
    expect(r.trace).toEqual(['start 1', 'start 2', 'end 2', 'start 3'])
    r.gates.open('1')
    r.gates.open('3')
    r.gates.open('4')
    await agent.whenIdle()
    expect(calls(r.session).filter((l) => l.startsWith('tool/result'))).toEqual([
      'tool/result c1 ok',
      'tool/result c2 ok',
      'tool/result c3 ok',
      'tool/result c4 ok',
    ])
  })

  it('L5.4: maxParallelToolCalls 1 makes the batch fully serial', async ({ r }) => {
    for (const id of ['1', '2', '3']) r.gates.open(id)
    const { agent } = go(r, [{ toolCalls: ['1', '2', '3'].map((id) => call('wait', id)) }, { text: 'ok' }], {
      maxParallelToolCalls: 1,
    })
    await agent.whenIdle()
    expect(r.trace).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('L5.4: a maxParallelToolCalls that is not a positive integer throws INVALID_DEFINITION', async ({
    r,
  }) => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2']) {
      expect(() =>
        agentOn(r, {
          model: scripted([]),
          maxParallelToolCalls: bad as number,
        }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }))
    }
  })

  it('L4.6, P7.3: a call that times out is committed as TOOL_TIMEOUT in its place; the batch goes on', async ({
    r,
  }) => {
    r.gates.open('3')
    const { agent } = go(r, [
      { toolCalls: [call('echo', '1'), call('slow', '2'), call('wait', '3')] },
      { text: 'ok' },
    ])
    await agent.whenIdle()
    expect(calls(r.session)).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/call c3',
      'tool/result c1 ok',
      'tool/result c2 TOOL_TIMEOUT',
      'tool/result c3 ok',
    ])
    const timedOut = r.session.events().find(resultOf('c2'))
    expect(timedOut?.data).toMatchObject({
      content: [{ type: 'text', text: 'Error: tool call timed out after 5ms' }],
    })
    expect(lines(r.session).at(-1)).toBe('turn/end completed')
  })

  it('P3.5, L4.6: a denied call is committed as DENIED in model order and its body never runs', async ({
    r,
  }) => {
    r.gates.open('2')
    r.runtime.onPreExecute((exec, next) =>
      exec.callId === 'c1' ? { kind: 'deny', reason: 'not today' } : next(),
    )
    const { agent } = go(r, [{ toolCalls: [call('wait', '1'), call('wait', '2')] }, { text: 'ok' }])
    expect(await idleLines(r, agent)).toEqual([
      ...OPENING,
      'assistant/message c1 c2',
      'tool/call c1',
      'tool/call c2',
      'tool/result c1 DENIED',
      'tool/result c2 ok',
      ...closingText('ok'),
    ])
    const denied = r.session.events().find(resultOf('c1'))
    expect(denied?.data).toMatchObject({
      content: [{ type: 'text', text: 'Error: tool "wait" denied by pre-execute policy: not today' }],
      error: { code: 'DENIED' },
    })
    expect(r.trace).toEqual(['start 2', 'end 2'])
  })
})

describe('L5.5, L5.6 scheduler failure and repair', () => {
  async function failedTurn() {
    const r = await rig({ store: (path) => failingOnce(path, resultOf('c2')) })
    const { agent, model } = go(r, [
      { toolCalls: [call('wait', '1'), call('wait', '2'), call('wait', '3'), call('write', '4')] },
      { text: 'after repair' },
    ])
    await eventually(() => r.trace.length === 3, 'the parallel group started')
    r.gates.open('1')
    r.gates.open('2')
    await eventually(() => r.trace.includes('end 2'), 'call 2 finished')
    // c3 is still running when c2's commit fails: the scheduler waits for it.
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines(r.session).at(-1)).not.toMatch(/^turn\/end/)
    r.gates.open('3')
    await agent.whenIdle()
    return { agent, model, r }
  }

  it('L5.5: a failed append starts nothing more, waits for started calls, fabricates nothing and ends the turn with error', async () => {
    const { r } = await failedTurn()
    expect(lines(r.session)).toEqual([
      ...OPENING,
      'assistant/message c1 c2 c3 c4',
      'tool/call c1',
      'tool/call c2',
      'tool/call c3',
      'tool/result c1 ok',
      'step/end',
      'turn/end error',
    ])
    expect(r.session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'error', message: 'disk full' })
    expect(r.trace).toEqual(['start 1', 'start 2', 'start 3', 'end 1', 'end 2', 'end 3'])
  })

  it('L5.6, L9.2, L9.3, L9.6: before the next turn the loop answers the closed turn exactly as resume repair would', async () => {
    const { agent, model, r } = await failedTurn()
    const expected = planRepair(r.session.events())
    agent.send('next')
    await agent.whenIdle()
    const all = r.session.events()
    const at = all.findIndex((e) => e.type === 'turn/end')
    const repaired = all.slice(at + 1, at + 1 + expected.length).map(({ type, data }) => ({ type, data }))
    expect(repaired).toEqual(expected)
    expect(lines(r.session).slice(at + 1)).toEqual([
      'tool/result c2 TOOL_OUTCOME_UNKNOWN',
      'tool/result c3 TOOL_OUTCOME_UNKNOWN',
      'tool/call c4',
      'tool/result c4 TOOL_NOT_STARTED',
      'turn/start',
      'step/start',
      'user/message "next"',
      'assistant/message "after repair"',
      'step/end',
      'turn/end completed',
    ])
    const texts = all.flatMap((e) => (e.type === 'tool/result' && e.data.isError ? [e.data.content] : []))
    expect(texts).toEqual([
      [{ type: 'text', text: OUTCOME_UNKNOWN_TEXT }],
      [{ type: 'text', text: OUTCOME_UNKNOWN_TEXT }],
      [{ type: 'text', text: NOT_STARTED_TEXT }],
    ])
    expect(answeredOnce(r.session)).toBe(true)
    // The model's second request was valid: every call answered once.
    expect(
      model.requests[1]?.messages.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && m.callId),
    ).toEqual(['c1', 'c2', 'c3', 'c4'])
  })

  it('L5.6, L6.1: an abort while the repair before the next turn runs aborts that turn, and is not lost', async () => {
    const { agent, r } = await failedTurn()
    // Abort the moment the repair lands (listeners run synchronously after each durable append).
    const off = r.session.on((event) => {
      if (event.type === 'tool/result' && event.data.error?.code === 'TOOL_OUTCOME_UNKNOWN') agent.abort()
    })
    agent.send('next')
    await agent.whenIdle()
    off()
    const all = lines(r.session)
    const repaired = all.indexOf('tool/result c4 TOOL_NOT_STARTED')
    expect(repaired).toBeGreaterThan(0)
    expect(all.slice(repaired + 1)).toEqual([
      'turn/start',
      'step/start',
      'user/message "next"',
      'step/end',
      'turn/end aborted',
    ])
    expect(answeredOnce(r.session)).toBe(true)
  })

  it('L5.6, L9.5: a restart after the failed turn repairs the same way on open, and the loop then adds nothing', async () => {
    const { r } = await failedTurn()
    const expected = planRepair(r.session.events())
    const before = r.session.events().length
    await r.session.close()
    const again = await r.reopen()
    expect(
      again
        .events()
        .slice(before)
        .map(({ type, data }) => ({ type, data })),
    ).toEqual(expected)
    expect(answeredOnce(again)).toBe(true)
    const agent = agentOn(r, {
      session: again,
      model: scripted([{ text: 'fine' }]),
    })
    agent.send('next')
    await agent.whenIdle()
    expect(lines(again).slice(before + expected.length)).toEqual([
      'turn/start',
      'step/start',
      'user/message "next"',
      'assistant/message "fine"',
      'step/end',
      'turn/end completed',
    ])
    await again.close()
  })

  it('L5.5, L5.6: when even the repair cannot be appended, whenIdle rejects with the cause and the next send retries', async () => {
    let broken = false
    let refused = 0
    const r = await rig({
      store: (path) => {
        const store = failingOnce(path, resultOf('c1'))
        return {
          ...store,
          append: (id, events) => {
            if (broken) {
              refused++
              return Promise.reject(new Error('disk gone'))
            }
            return store.append(id, events).catch((error: unknown) => {
              broken = true
              throw error
            })
          },
        }
      },
    })
    r.gates.open('1')
    const { agent } = go(r, [{ toolCalls: [call('wait', '1')] }, { text: 'back' }])
    await agent.whenIdle()
    // Even turn/end could not be appended: the turn is still open in the log.
    expect(lines(r.session).at(-1)).toBe('tool/call c1')
    const before = refused
    agent.send('next')
    // Nobody awaits the loop while the repair fails: that must not be an unhandled rejection.
    await eventually(() => refused > before, 'the repair was attempted')
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    await expect(agent.whenIdle()).rejects.toThrow('disk gone')
    await expect(agent.whenIdle()).rejects.toThrow('disk gone')
    broken = false
    agent.send('again')
    expect((await idleLines(r, agent)).slice(5)).toEqual([
      'tool/result c1 TOOL_OUTCOME_UNKNOWN',
      'step/end',
      'turn/end interrupted',
      'turn/start',
      'step/start',
      'user/message "next"',
      'user/message "again"',
      'assistant/message "back"',
      'step/end',
      'turn/end completed',
    ])
  })
})

describe('L5.7 policy phases in model order (SQLite session)', () => {
  it('L5.7: post-execute handlers of a parallel batch run in model order, not in completion order', async () => {
    const writes: string[][] = []
    const r = await rig({
      store: (path) => {
        const store = sqliteStore(path)
        return {
          acquire: (id) => store.acquire(id),
          load: (id) => store.load(id),
          listSessions: () => store.listSessions(),
          close: () => store.close(),
          append: (id, events) => {
            writes.push(events.map((e) => e.type))
            return store.append(id, events)
          },
        }
      },
    })
    const order: string[] = []
    r.runtime.onPostExecute((exec, _result, next) => {
      order.push(exec.callId)
      return next()
    })
    const { agent } = go(r, [
      { toolCalls: [call('wait', '1'), call('wait', '2'), call('wait', '3')] },
      { text: 'ok' },
    ])
    await eventually(() => r.trace.length === 3, 'all three started')
    r.gates.open('3')
    r.gates.open('2')
    await eventually(() => r.trace.includes('end 2'), 'calls 3 and 2 finished')
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual([])
    r.gates.open('1')
    await agent.whenIdle()
    expect(order).toEqual(['c1', 'c2', 'c3'])
    // The bodies still ran side by side, and the pool still wrote its tool/calls together.
    expect(r.trace.slice(0, 3)).toEqual(['start 1', 'start 2', 'start 3'])
    expect(writes.filter((w) => w.includes('tool/call'))).toEqual([
      ['assistant/message', 'tool/call', 'tool/call', 'tool/call'],
    ])
  })

  it('L5.7: a slow pre-execute on one call delays the decision of the next call of the batch', async ({
    r,
  }) => {
    const decided: string[] = []
    let letGo!: () => void
    const person = new Promise<void>((resolve) => {
      letGo = resolve
    })
    r.runtime.onPreExecute(async (exec, next) => {
      decided.push(exec.callId)
      if (exec.callId === 'c1') await person
      return next()
    })
    r.gates.open('1')
    r.gates.open('2')
    const { agent } = go(r, [{ toolCalls: [call('wait', '1'), call('wait', '2')] }, { text: 'ok' }])
    await eventually(() => decided.length === 1, 'c1 is being decided')
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(decided).toEqual(['c1'])
    expect(r.trace).toEqual([])
    letGo()
    await agent.whenIdle()
    expect(decided).toEqual(['c1', 'c2'])
    expect(calls(r.session)).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/result c1 ok',
      'tool/result c2 ok',
    ])
  })
})
