import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decide, pendingApprovals, scripted } from '../src/index.js'

/** A runtime whose `pay` asks and whose `look` does not; bodies note their runs. */
function tools(runs: string[]) {
  const runtime = createToolRuntime()
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
        execute: ({ n }) => {
          runs.push(`${name} ${n}`)
          return { n }
        },
      }),
    )
  }
  runtime.onPreExecute(async (exec, next) =>
    exec.name === 'pay' ? { kind: 'ask', reason: 'moves money' } : next(),
  )
  return { runtime, scope }
}

const call = (id: string, name: string, n: number) => ({ id, name, arguments: JSON.stringify({ n }) })

/** The log as `type callId` lines (tool and approval events) and bare types (the rest). */
const lines = (events: readonly SessionEvent[]) =>
  events.map((e) => ('callId' in e.data ? `${e.type} ${e.data.callId}` : e.type))

describe('F2 durable approvals', () => {
  it('F2.2, F2.3, F2.5, F2.7: a durable ask suspends the turn; decide, then resume finishes it', async () => {
    const runs: string[] = []
    const { runtime, scope } = tools(runs)
    const session = await openSession(memoryStore(), { id: 's' })
    const model = scripted([
      { toolCalls: [call('c1', 'look', 1), call('c2', 'pay', 2), call('c3', 'look', 3)] },
      { text: 'paid' },
    ])
    const agent = createAgent({ runtime, scope, session, model, approvals: 'durable' })
    const outcome = await agent.send('pay 2')
    expect(outcome.reason).toBe('suspended')
    expect(outcome.pending?.map((p) => [p.callId, p.name, p.reason])).toEqual([['c2', 'pay', 'moves money']])
    const [pending] = pendingApprovals(session)
    expect(pending).toMatchObject({ callId: 'c2', name: 'pay', expired: false })
    expect(runs).toEqual(['look 1'])
    expect(lines(session.events())).toEqual([
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
    await decide(session, 'c2', { decision: 'allowed-once', by: 'alice', digest: pending!.argumentsDigest })
    expect(pendingApprovals(session)).toEqual([])
    const done = await agent.resume()
    expect(done).toMatchObject({ turn: 1, reason: 'completed', text: 'paid' })
    expect(runs).toEqual(['look 1', 'pay 2', 'look 3'])
    expect(lines(session.events()).slice(9)).toEqual([
      'approval/decided c2',
      'turn/resumed',
      'tool/result c2',
      'tool/result c3',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
  })
})
