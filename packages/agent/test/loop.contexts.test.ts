import { describe, expect } from 'vitest'
import { call, eventually, go, idleLines, it, lines, OPENING, parallelBatch } from './loop-harness.js'

describe('L7 deferred contexts and conclusion (SQLite session)', () => {
  it('L7.1, L7.2, L7.3, L7.5: contexts and a message sent mid-batch land after every result, in commit/FIFO order', async ({
    r,
  }) => {
    const { agent } = go(r, [
      {
        toolCalls: [
          call('note', '1', { text: 'ctx one' }),
          call('wait', '2'),
          call('note', '3', { text: 'ctx three' }),
        ],
      },
      { text: 'ok' },
    ])
    await eventually(() => lines(r.session).includes('tool/result c1 ok'), 'c1 committed')
    agent.send('sent mid-batch')
    r.gates.open('2')
    expect(await idleLines(r, agent)).toEqual([
      ...OPENING,
      ...parallelBatch('1', '2', '3'),
      'step/end',
      'step/start',
      'user/message "ctx one"',
      'user/message "sent mid-batch"',
      'user/message "ctx three"',
      'assistant/message "ok"',
      'step/end',
      'turn/end completed',
    ])
    const contexts = r.session.events().flatMap((e) => (e.type === 'user/message' ? [e.data] : []))
    expect(contexts[1]).toEqual({
      turn: 1,
      step: 2,
      message: {
        role: 'user',
        content: [{ type: 'text', text: 'ctx one' }],
        source: { kind: 'tool', name: 'note', callId: 'c1' },
      },
    })
  })

  it('L7.4: a concluding result lets every call of the batch run and commit, then ends the turn without another request', async ({
    r,
  }) => {
    r.gates.open('2')
    r.gates.open('3')
    const { agent, model } = go(r, [
      { toolCalls: [call('finish', '1'), call('wait', '2'), call('write', '3')] },
    ])
    expect((await idleLines(r, agent)).slice(4)).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/result c1 ok',
      'tool/result c2 ok',
      'tool/call c3',
      'tool/result c3 ok',
      'step/end',
      'turn/end completed',
    ])
    expect(model.requests).toHaveLength(1)
    model.assertDone()
  })

  it('L7.4: when the FIFO holds contexts, a concluding batch runs another step first', async ({ r }) => {
    const { agent, model } = go(r, [
      { toolCalls: [call('finish', '1'), call('note', '2', { text: 'one more thing' })] },
      { text: 'noted' },
    ])
    expect((await idleLines(r, agent)).slice(6)).toEqual([
      'tool/result c1 ok',
      'tool/result c2 ok',
      'step/end',
      'step/start',
      'user/message "one more thing"',
      'assistant/message "noted"',
      'step/end',
      'turn/end completed',
    ])
    model.assertDone()
  })

  it('L7.4, O1.5: a failed call never concludes the turn', async ({ r }) => {
    r.runtime.onPostExecute((exec, _result, next) =>
      exec.name === 'finish' ? { kind: 'block', feedback: [{ type: 'text', text: 'blocked' }] } : next(),
    )
    const { agent, model } = go(r, [{ toolCalls: [call('finish', '1')] }, { text: 'went on' }])
    await agent.whenIdle()
    expect(model.requests).toHaveLength(2)
    expect(lines(r.session).at(-1)).toBe('turn/end completed')
  })
})
