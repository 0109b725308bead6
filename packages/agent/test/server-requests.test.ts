/**
 * The record of a server's sampling request (Y2.30, L1.10) for any text a server may send: a
 * tool body of the agent's own turn hands the request to `agent.sampler`, as `mcpTools` would.
 */
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession, type SamplingRequestData } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type SamplingRequest, scripted } from '../src/index.js'

type Sent = { role: 'user' | 'assistant'; text: string }

/** Runs one turn whose one call hands `sent` to the agent's sampler; resolves with its record and the model. */
async function sample(sent: readonly Sent[], reply: string) {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  const session = await openSession(memoryStore(), { id: 'p' })
  const model = scripted([
    { toolCalls: [{ id: 'c1', name: 'relay', arguments: '{}' }] },
    { text: reply },
    { text: 'done' },
  ])
  const agent = createAgent({ runtime, scope, session, model })
  const sampler = agent.sampler({ policy: 'allow', maxTokens: 7 })
  scope.register(
    defineTool({
      name: 'relay',
      description: 'Hands a sampling request to the agent.',
      parameters: {},
      execute: async (_args, run) => {
        const request: SamplingRequest = {
          server: 'srv',
          messages: sent.map(({ role, text }) => ({ role, content: { type: 'text', text } })),
          maxTokens: 100,
          calls: [run.callId],
          signal: run.signal,
        }
        return (await sampler(request)).text
      },
    }),
  )
  const outcome = await agent.send('go')
  const records = session.events().flatMap((e) => (e.type === 'server/request' ? [e.data] : []))
  return { outcome, records: records as SamplingRequestData[], model }
}

describe('Y2.30 L1.10 the record of any sampling request', () => {
  it('Y2.30 L1.10 counts characters as code points, keeps the first 200 of the last message whole, and the reply as answered', async () => {
    const text = fc.string({ unit: 'binary', maxLength: 300 })
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text }), {
          minLength: 1,
          maxLength: 3,
        }),
        text,
        async (sent, reply) => {
          const { outcome, records, model } = await sample(sent, reply)
          expect(outcome.reason).toBe('completed')
          const last = sent.at(-1)!
          expect(records).toEqual([
            {
              turn: 1,
              step: 1,
              kind: 'sampling',
              server: 'srv',
              calls: ['c1'],
              messages: sent.length,
              characters: sent.reduce((n, m) => n + [...m.text].length, 0),
              last: [...`${last.role}: ${last.text}`].slice(0, 200).join(''),
              model: 'scripted',
              maxTokens: 7,
              outcome: 'answered',
              by: 'policy',
              reply,
            },
          ])
          // The model got the messages as text, bounded, without tools.
          expect(model.requests[1]).toMatchObject({ tools: [], maxTokens: 7 })
          expect(model.requests[1]!.messages).toHaveLength(sent.length)
        },
      ),
      { numRuns: 40 },
    )
  })
})

describe('Y2.35 Y2.36 the elicitor without a way to answer', () => {
  const question = (signal: AbortSignal, calls: string[] = []) => ({
    server: 'srv',
    message: 'Go on?',
    requestedSchema: { properties: {} },
    calls,
    signal,
  })

  it('Y2.35 outside a turn a question is cancelled and nothing is appended', async () => {
    const runtime = createToolRuntime()
    const session = await openSession(memoryStore(), { id: 'idle' })
    const agent = createAgent({ runtime, scope: runtime.scope(), session, model: scripted([]) })
    expect(await agent.elicitor()(question(new AbortController().signal))).toEqual({ action: 'cancel' })
    expect(session.events()).toEqual([])
  })

  it('Y2.36 an agent without an approver cancels a yes/no question, and the record says why', async () => {
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    const session = await openSession(memoryStore(), { id: 'q' })
    const model = scripted([{ toolCalls: [{ id: 'c1', name: 'ask', arguments: '{}' }] }, { text: 'done' }])
    const agent = createAgent({ runtime, scope, session, model })
    const elicitor = agent.elicitor()
    scope.register(
      defineTool({
        name: 'ask',
        description: 'Hands a question to the agent.',
        parameters: {},
        execute: async (_args, run) => (await elicitor(question(run.signal, [run.callId]))).action,
      }),
    )
    await agent.send('go')
    const result = session.events().find((e) => e.type === 'tool/result')
    expect(result?.type === 'tool/result' && result.data.content).toEqual([
      { type: 'text', text: '"cancel"' },
    ])
    expect(session.events().flatMap((e) => (e.type === 'server/request' ? [e.data] : []))).toEqual([
      {
        turn: 1,
        step: 1,
        kind: 'elicitation',
        server: 'srv',
        calls: ['c1'],
        message: 'Go on?',
        fields: [],
        outcome: 'cancel',
        by: 'approver',
        reason: 'the agent has no approver to ask',
      },
    ])
  })
})
