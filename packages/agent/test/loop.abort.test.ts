import { describe, expect } from 'vitest'
import {
  answeredOnce,
  call,
  eventually,
  go,
  idleLines,
  it,
  lines,
  OPENING,
  preExecuted,
} from './loop-harness.js'

describe('L6 abort (SQLite session)', () => {
  it('L6.1, L6.2, L6.3, L6.5: abort mid-batch commits the started calls, synthesizes pairs for the rest, then ends aborted', async ({
    r,
  }) => {
    const entered = preExecuted(r)
    const { agent, model } = go(r, [
      { toolCalls: [call('echo', '1'), call('wait', '2'), call('write', '3'), call('wait', '4')] },
    ])
    await eventually(() => r.trace.includes('start 2'), 'call 2 started')
    agent.abort()
    expect(await idleLines(r, agent)).toEqual([
      ...OPENING,
      'assistant/message c1 c2 c3 c4',
      'tool/call c1',
      'tool/call c2',
      'tool/result c1 ok',
      'tool/result c2 ABORTED',
      'tool/call c3',
      'tool/result c3 ABORTED_BEFORE_DISPATCH',
      'tool/call c4',
      'tool/result c4 ABORTED_BEFORE_DISPATCH',
      'step/end',
      'turn/end aborted',
    ])
    // L6.3: no pipeline ran for the calls that never started.
    expect(entered).toEqual(['c1', 'c2'])
    const synthesized = r.session
      .events()
      .filter((e) => 'turn' in e.data && e.data.turn === 1 && 'callId' in e.data && e.data.callId === 'c3')
    expect(synthesized.map((e) => e.data)).toEqual([
      { turn: 1, step: 1, callId: 'c3', name: 'write', arguments: '{"id":"3"}' },
      {
        turn: 1,
        step: 1,
        callId: 'c3',
        name: 'write',
        content: [{ type: 'text', text: 'Error: tool call aborted before dispatch' }],
        isError: true,
        error: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
      },
    ])
    expect(answeredOnce(r.session)).toBe(true)
    model.assertDone()
  })

  it('L6.2: a started call that ignores the abort is awaited and keeps its own result', async ({ r }) => {
    r.scope.register({
      name: 'stubborn',
      description: 'Ignores its signal.',
      parameters: { type: 'object' },
      output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      isConcurrencySafe: () => true,
      execute: async () => {
        r.trace.push('start stubborn')
        await r.gates.get('stubborn').promise
        throw new Error('finished badly')
      },
    })
    const { agent } = go(r, [{ toolCalls: [{ id: 'c1', name: 'stubborn', arguments: '' }] }])
    await eventually(() => r.trace.length === 1, 'the call started')
    agent.abort()
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines(r.session).at(-1)).toBe('tool/call c1')
    r.gates.open('stubborn')
    await agent.whenIdle()
    expect(lines(r.session).slice(-3)).toEqual(['tool/result c1 TOOL_FAILED', 'step/end', 'turn/end aborted'])
  })

  it('L6.4: an abort during an exclusive call starts nothing of the parallel group after it', async ({
    r,
  }) => {
    const { agent } = go(r, [{ toolCalls: [call('write', '1'), call('echo', '2'), call('echo', '3')] }])
    await eventually(() => r.trace.includes('start 1'), 'the barrier started')
    agent.abort()
    expect((await idleLines(r, agent)).slice(4)).toEqual([
      'tool/call c1',
      'tool/result c1 ABORTED',
      'tool/call c2',
      'tool/result c2 ABORTED_BEFORE_DISPATCH',
      'tool/call c3',
      'tool/result c3 ABORTED_BEFORE_DISPATCH',
      'step/end',
      'turn/end aborted',
    ])
    expect(r.trace).toEqual(['start 1', 'end 1'])
  })

  it('L6.6: abort mid-stream keeps the partial text and appends no tool/call for incomplete blocks', async ({
    r,
  }) => {
    const { agent } = go(
      r,
      [{ text: 'Let me look at that.', toolCalls: [call('echo', '1'), call('echo', '2')] }],
      {
        // Abort once the second call begins streaming: the first looks complete but is not final.
        onModelEvent: (event) => {
          if (event.type === 'tool-call-delta' && event.index === 1) agent.abort()
        },
      },
    )
    expect(await idleLines(r, agent)).toEqual([
      ...OPENING,
      'assistant/message "Let me look at that."',
      'step/end',
      'turn/end aborted',
    ])
    expect(r.trace).toEqual([])
    expect(answeredOnce(r.session)).toBe(true)
  })

  it('L6.6: abort before any text streamed appends no assistant/message at all', async ({ r }) => {
    const { agent } = go(r, [{ toolCalls: [call('echo', '1')] }], { onModelEvent: () => agent.abort() })
    expect(await idleLines(r, agent)).toEqual([...OPENING, 'step/end', 'turn/end aborted'])
  })

  it('L6.7: contexts of results committed during an abort wait in the FIFO for the first step of the next turn', async ({
    r,
  }) => {
    const { agent } = go(r, [
      { toolCalls: [call('note', '1', { text: 'remember this' }), call('wait', '2')] },
      { text: 'next turn' },
    ])
    await eventually(() => r.trace.includes('start 2'), 'call 2 started')
    agent.abort()
    await agent.whenIdle()
    expect(lines(r.session).slice(-4)).toEqual([
      'tool/result c1 ok',
      'tool/result c2 ABORTED',
      'step/end',
      'turn/end aborted',
    ])
    // A context alone does not start a turn.
    expect(lines(r.session).filter((l) => l.startsWith('user/message'))).toEqual(['user/message "go"'])
    agent.send('continue')
    await agent.whenIdle()
    const turn2 = lines(r.session).slice(lines(r.session).lastIndexOf('turn/start'))
    expect(turn2).toEqual([
      'turn/start',
      'step/start',
      'user/message "remember this"',
      'user/message "continue"',
      'assistant/message "next turn"',
      'step/end',
      'turn/end completed',
    ])
  })
})

describe('L6.8 abort and queued input (SQLite session)', () => {
  it('L6.8: after an abort, queued user input waits for the next send instead of starting a turn', async ({
    r,
  }) => {
    const { agent, model } = go(r, [{ toolCalls: [call('wait', '1')] }, { text: 'both seen' }])
    await eventually(() => r.trace.includes('start 1'), 'the call started')
    const queued = agent.send('queued while running')
    agent.abort()
    expect(await agent.whenIdle()).toEqual({ turn: 1, reason: 'aborted', text: '' })
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(lines(r.session).filter((l) => l === 'turn/start')).toHaveLength(1)
    expect(model.requests).toHaveLength(1)
    // The next send starts the turn, with the held message first.
    expect(await agent.send('next')).toEqual({ turn: 2, reason: 'completed', text: 'both seen' })
    expect((await queued).turn).toBe(2)
    expect(lines(r.session).slice(lines(r.session).lastIndexOf('turn/start'))).toEqual([
      'turn/start',
      'step/start',
      'user/message "queued while running"',
      'user/message "next"',
      'assistant/message "both seen"',
      'step/end',
      'turn/end completed',
    ])
  })

  it('L6.8: abort({ keepQueued: true }) starts the next turn with the queued input at once', async ({
    r,
  }) => {
    const { agent } = go(r, [{ toolCalls: [call('wait', '1')] }, { text: 'went on' }])
    await eventually(() => r.trace.includes('start 1'), 'the call started')
    const queued = agent.send('queued while running')
    agent.abort({ keepQueued: true })
    expect(await queued).toEqual({ turn: 2, reason: 'completed', text: 'went on' })
    expect(lines(r.session).filter((l) => l.startsWith('turn/end'))).toEqual([
      'turn/end aborted',
      'turn/end completed',
    ])
  })

  it('L6.8: abort options other than { keepQueued?: boolean } throw INVALID_DEFINITION', async ({ r }) => {
    const { agent } = go(r, [{ text: 'ok' }])
    for (const bad of [null, 'yes', { keepQueued: 'yes' }]) {
      expect(() => agent.abort(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }))
    }
    await agent.whenIdle()
  })
})
