import { type Agent, createAgent, scripted } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { describe, expect } from 'vitest'
import {
  agentOn,
  args,
  call,
  closingText,
  eventually,
  failedTurn,
  failingOnce,
  go,
  idleLines,
  it,
  lines,
  type Rig,
  rig,
} from './loop-harness.js'

describe('L3 turns and steps (SQLite session)', () => {
  it('L3.1, L3.2, L3.3, L3.4, L3.6, L3.5, L3.7: one turn with a tool step and a text step, in this exact order', async ({
    r,
  }) => {
    const model = scripted([
      { text: 'Looking.', toolCalls: [{ id: 'c1', name: 'echo', arguments: args('a') }] },
      { text: 'All done.' },
    ])
    const agent = agentOn(r, { model })
    agent.send('hello')
    expect(await idleLines(r, agent)).toEqual([
      'turn/start',
      'step/start',
      'user/message "hello"',
      'assistant/message "Looking." c1',
      'tool/call c1',
      'tool/result c1 ok',
      ...closingText('All done.'),
    ])
    // L3.4: the raw argument string is kept in the block.
    const assistant = r.session.events().find((e) => e.type === 'assistant/message')
    expect(assistant?.data).toEqual({
      turn: 1,
      step: 1,
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', id: 'c1', name: 'echo', arguments: '{"id":"a"}' },
      ],
    })
    // L3.3: the model sees the surface and the derived messages.
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual([
      'echo',
      'finish',
      'note',
      'slow',
      'wait',
      'write',
    ])
    expect(model.requests[0]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    ])
    expect(model.requests[1]?.messages).toEqual(r.session.messages().slice(0, 3))
    model.assertDone()
  })

  it('L3.3: the surface is read at request time, so a tool registered during step 1 is offered in step 2', async ({
    r,
  }) => {
    const scope = r.scope
    scope.register(
      defineTool({
        name: 'install',
        description: 'Registers another tool.',
        parameters: {},
        output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'installed' }] },
        execute: () => {
          scope.register(
            defineTool({
              name: 'late',
              description: 'Registered mid-turn.',
              parameters: {},
              output: { schema: { type: 'null' }, render: () => [] },
              execute: () => null,
            }),
          )
          return null
        },
      }),
    )
    const model = scripted([{ toolCalls: [{ name: 'install', arguments: '' }] }, { text: 'ok' }])
    const agent = createAgent({ runtime: r.runtime, scope, session: r.session, model })
    agent.send('go')
    await agent.whenIdle()
    expect(model.requests[0]?.tools.some((t) => t.name === 'late')).toBe(false)
    expect(model.requests[1]?.tools.some((t) => t.name === 'late')).toBe(true)
  })

  it('L3.5: a message queued while a text-only reply streams makes another step instead of ending the turn', async ({
    r,
  }) => {
    const model = scripted([{ text: 'first answer' }, { text: 'second answer' }])
    let injected = false
    const agent = agentOn(r, {
      model,
      onModelEvent: () => {
        if (injected) return
        injected = true
        agent.send('one more thing')
      },
    })
    agent.send('question')
    expect(await idleLines(r, agent)).toEqual([
      'turn/start',
      'step/start',
      'user/message "question"',
      'assistant/message "first answer"',
      'step/end',
      'step/start',
      'user/message "one more thing"',
      'assistant/message "second answer"',
      'step/end',
      'turn/end completed',
    ])
  })

  it('L3.2, L3.3, L3.7: messages sent back to back drain in FIFO order at the first step; a later send starts the next turn', async ({
    r,
  }) => {
    const model = scripted([{ text: 'one' }, { text: 'two' }])
    const agent = agentOn(r, { model })
    await agent.whenIdle()
    expect(r.session.events()).toEqual([])
    agent.send('a')
    agent.send('b')
    await agent.whenIdle()
    agent.send('c')
    expect(await idleLines(r, agent)).toEqual([
      'turn/start',
      'step/start',
      'user/message "a"',
      'user/message "b"',
      'assistant/message "one"',
      'step/end',
      'turn/end completed',
      'turn/start',
      'step/start',
      'user/message "c"',
      'assistant/message "two"',
      'step/end',
      'turn/end completed',
    ])
    expect(
      r.session
        .events()
        .filter((e) => e.type === 'turn/start')
        .map((e) => e.data),
    ).toEqual([{ turn: 1 }, { turn: 2 }])
  })

  it('L3.1, L1.8: inject queues any user message, and turn numbers continue after reopening the session', async ({
    r,
  }) => {
    const first = agentOn(r, {
      model: scripted([{ text: 'x' }]),
    })
    first.inject({ role: 'user', content: [{ type: 'text', text: 'injected' }], source: { kind: 'test' } })
    await first.whenIdle()
    await r.session.close()
    const again = await r.reopen()
    const second = agentOn(r, {
      session: again,
      model: scripted([{ text: 'y' }]),
    })
    second.send('after restart')
    await second.whenIdle()
    expect(
      again
        .events()
        .filter((e) => e.type === 'turn/start')
        .map((e) => e.data.turn),
    ).toEqual([1, 2])
    expect(again.messages()[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'injected' }],
      source: { kind: 'test' },
    })
    await again.close()
  })

  it('L3.5, L5.5: a model failure ends the turn with turn/end error and its message; the next send starts a new turn', async ({
    r,
  }) => {
    const model = scripted([])
    const agent = agentOn(r, { model })
    agent.send('hello')
    expect(await idleLines(r, agent)).toEqual(failedTurn('hello'))
    expect(r.session.events().at(-1)?.data).toMatchObject({
      reason: 'error',
      message: expect.stringContaining('no scripted step left for request 1'),
    })
  })
})

/** True iff, in every turn of the log, each step/start has its step/end before the turn/end. */
function stepsClosed(session: Rig['session']): boolean {
  let open = false
  for (const event of session.events()) {
    if (event.type === 'step/start') open = true
    else if (event.type === 'step/end') open = false
    else if (event.type === 'turn/end' && open) return false
  }
  return !open
}

describe('L3.8, L3.9 step closure and injected messages (SQLite session)', () => {
  it('L3.8: an abort mid-stream, an abort mid-batch and a model failure each close the step before turn/end', async ({
    r,
  }) => {
    let agent!: Agent
    let streamAbort = true
    const model = scripted([
      { text: 'streaming', toolCalls: [call('echo', '1')] },
      { toolCalls: [call('wait', '2')] },
    ])
    agent = agentOn(r, {
      model,
      onModelEvent: () => {
        if (streamAbort) agent.abort()
        streamAbort = false
      },
    })
    // 1: aborted while the reply streams.
    await agent.send('one')
    // 2: aborted while a call runs.
    const second = agent.send('two')
    await eventually(() => r.trace.includes('start 2'), 'call 2 started')
    agent.abort()
    await second
    // 3: the script is exhausted, so the model fails.
    await agent.send('three')
    expect(lines(r.session).filter((l) => l.startsWith('turn/end'))).toEqual([
      'turn/end aborted',
      'turn/end aborted',
      'turn/end error',
    ])
    expect(stepsClosed(r.session)).toBe(true)
    expect(lines(r.session).slice(-3)).toEqual(['user/message "three"', 'step/end', 'turn/end error'])
  })

  it('L3.8: when the write between two steps fails, the step still open is the one closed', async () => {
    const r = await rig({
      store: (path) => failingOnce(path, (e) => e.type === 'step/start' && e.data.step === 2),
    })
    const { agent } = go(r, [{ toolCalls: [call('echo', '1')] }, { text: 'never asked' }])
    expect((await agent.whenIdle())?.error).toBe('disk full')
    expect(lines(r.session).slice(-4)).toEqual([
      'tool/call c1',
      'tool/result c1 ok',
      'step/end',
      'turn/end error',
    ])
    expect(r.session.events().at(-2)?.data).toEqual({ turn: 1, step: 1 })
    expect(stepsClosed(r.session)).toBe(true)
  })

  it('L3.9: inject snapshots the message at the call, so changing it afterwards changes nothing logged', async ({
    r,
  }) => {
    const agent = agentOn(r, {
      model: scripted([{ text: 'ok' }]),
    })
    const message = { role: 'user' as const, content: [{ type: 'text', text: 'original' }] }
    const done = agent.inject(message)
    message.content[0]!.text = 'changed'
    message.content.push({ type: 'text', text: 'added' })
    await done
    const logged = r.session.events().find((e) => e.type === 'user/message')
    expect(logged?.data).toEqual({
      turn: 1,
      step: 1,
      message: { role: 'user', content: [{ type: 'text', text: 'original' }] },
    })
  })

  it('L3.9: a message that is not lossless JSON throws INVALID_DEFINITION at inject, and the running turn carries on', async ({
    r,
  }) => {
    const { agent } = go(r, [{ toolCalls: [call('wait', '1')] }, { text: 'finished' }])
    await eventually(() => r.trace.includes('start 1'), 'the call started')
    const bad = [
      [{ role: 'user', content: [{ type: 'text', text: 'x', when: new Date(0) }] }, 'is not lossless JSON'],
      [{ role: 'user', content: [{ type: 'text', text: Number.NaN }] }, 'is not lossless JSON'],
      [{ role: 'assistant', content: [] }, 'takes a user message'],
      [
        {
          role: 'user',
          get content() {
            throw new Error('boom')
          },
        },
        'reading the message failed: boom',
      ],
    ] as const
    for (const [message, text] of bad) {
      expect(() => agent.inject(message as never)).toThrow(
        expect.objectContaining({ code: 'INVALID_DEFINITION', message: expect.stringContaining(text) }),
      )
    }
    expect(() => agent.send(42 as never)).toThrow(
      expect.objectContaining({
        code: 'INVALID_DEFINITION',
        message: 'agent.send takes a string, got number',
      }),
    )
    r.gates.open('1')
    expect(await agent.whenIdle()).toEqual({ turn: 1, reason: 'completed', text: 'finished' })
    expect(lines(r.session).filter((l) => l.startsWith('user/message'))).toEqual(['user/message "go"'])
  })
})
