import { createAgent, decideApproval, pendingApprovals, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { renderSession } from '../src/session-timeline.js'

describe('F2 the timeline of a durable approval', () => {
  it('F2.7: the timeline notes where a suspended turn resumed, between the decision and the result', async () => {
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(defineTool({ name: 'pay', description: 'Pays', parameters: {}, execute: () => 'paid' }))
    runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'moves money' }))
    const session = await openSession(memoryStore(), { id: 's' })
    const model = scripted([{ toolCalls: [{ id: 'p1', name: 'pay', arguments: '{}' }] }, { text: 'done' }])
    const agent = createAgent({ runtime, scope, session, model, approvals: 'durable' })
    await agent.send('pay')
    await decideApproval(session, 'p1', {
      decision: 'allowed-once',
      by: 'ops',
      digest: pendingApprovals(session)[0]!.argumentsDigest,
    })
    await agent.resume()
    expect(renderSession(session.events())).toEqual([
      '── turn 1 ──',
      '  step 1',
      '    user: pay',
      '    ▶ pay',
      '        {}',
      expect.stringMatching(
        /^ {4}\? approval asked for pay: moves money \(durable: waiting for approval until \d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
      ),
      '    ? approval for pay: allowed-once by ops',
      '    ▶ the turn resumes after the decision',
      '    ✓ pay',
      '        "paid"',
      '  step 2',
      '    assistant: done',
      '── turn 1 completed ──',
    ])
  })
})
