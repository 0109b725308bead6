import { createAgent, type ModelAdapter } from '@tooltx/agent'
import { createToolRuntime } from '@tooltx/core'
import { type History, memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'

describe('Q1 the loop hands the model the persistent history', () => {
  it('Q1.2: each step’s request.messages is session.history() of that moment, not a copy', async () => {
    const session = await openSession(memoryStore(), { id: 'q12' })
    const runtime = createToolRuntime()
    const seen: { messages: History<unknown>; current: History<unknown>; length: number }[] = []
    const model: ModelAdapter = {
      name: 'probe',
      async *stream(request) {
        seen.push({ messages: request.messages, current: session.history(), length: request.messages.length })
        yield {
          type: 'message',
          content: [{ type: 'text', text: 'ok' }],
          usage: { inputTokens: 0, outputTokens: 0 },
        }
      },
    }
    const agent = createAgent({ runtime, scope: runtime.scope(), session, model })
    agent.send('one')
    await agent.whenIdle()
    agent.send('two')
    await agent.whenIdle()
    expect(seen.map((s) => s.length)).toEqual([1, 3])
    for (const s of seen) {
      expect(s.messages).toBe(s.current)
      expect(Array.isArray(s.messages)).toBe(false)
    }
    // The first request's snapshot still shows exactly what the model was shown.
    expect(seen[0]!.messages.length).toBe(1)
    expect(session.history().length).toBe(4)
  })
})
