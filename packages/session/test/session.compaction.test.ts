import type { ModelMessage } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type ContextCompactedData,
  deriveMessages,
  memoryStore,
  type NewSessionEvent,
  openSession,
  type Seq,
  type Session,
} from '../src/index.js'

const text = (t: string) => [{ type: 'text' as const, text: t }]

/** Appends one step of turn 1: user text (first step only), a reply with `calls` tool calls, their results. */
async function step(session: Session, step: number, calls: number): Promise<void> {
  const T = { turn: 1, step }
  const events: NewSessionEvent[] = [{ type: 'step/start', data: T }]
  if (step === 1)
    events.push({ type: 'user/message', data: { ...T, message: { role: 'user', content: text('go') } } })
  const content = [
    { type: 'text' as const, text: `step ${step}` },
    ...Array.from({ length: calls }, (_, i) => ({
      type: 'tool-call' as const,
      id: `c${step}.${i}`,
      name: 'read',
      arguments: '{}',
    })),
  ]
  events.push({ type: 'assistant/message', data: { ...T, content } })
  for (const block of content.slice(1)) {
    const id = (block as { id: string }).id
    events.push({ type: 'tool/call', data: { ...T, callId: id, name: 'read', arguments: '{}' } })
    events.push({
      type: 'tool/result',
      data: { ...T, callId: id, name: 'read', content: text(`result of ${id}`), isError: false },
    })
  }
  await session.appendBatch(events)
}

/** The seqs of the tool/result events so far. */
const resultSeqs = (session: Session) =>
  session.events().flatMap((e) => (e.type === 'tool/result' ? [e.seq] : []))

describe('T3.5 context/compacted in the log', () => {
  it('T3.5: clear-tool-results gives the listed results their stub; summarise replaces every message up to `through`; replay derives the same', async () => {
    const store = memoryStore()
    const session = await openSession(store, { id: 'c', verify: true })
    await session.append('turn/start', { turn: 1 })
    await step(session, 1, 2)
    await session.append('step/end', { turn: 1, step: 1 })
    await step(session, 2, 1)
    const [first, second] = resultSeqs(session)
    const stub = text('[tool result cleared to fit the context budget: read; …]')
    await session.append('context/compacted', {
      turn: 1,
      step: 2,
      tokensBefore: 100,
      tokensAfter: 60,
      strategy: 'clear-tool-results',
      cleared: [{ seq: first!, callId: 'c1.0', isError: false, content: stub }],
    })
    let messages = session.messages()
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool'])
    expect(messages[2]).toEqual({ role: 'tool', callId: 'c1.0', isError: false, content: stub })
    expect(messages[3]?.content).toEqual(text('result of c1.1'))

    const summary: ModelMessage = { role: 'user', content: text('[Summary] read twice') }
    await session.append('context/compacted', {
      turn: 1,
      step: 2,
      tokensBefore: 60,
      tokensAfter: 20,
      strategy: 'summarise',
      through: second! as Seq,
      summary,
    } as ContextCompactedData)
    messages = session.messages()
    expect(messages).toEqual([summary, messages[1], messages[2]])
    expect(messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'tool'])
    expect(deriveMessages(session.events())).toEqual(messages)
    await session.close()
    const reopened = await openSession(store, { id: 'c' })
    expect(JSON.stringify(reopened.messages())).toBe(JSON.stringify(messages))
  })

  it('T3.5: the session refuses a compaction outside the open step, while calls wait for results, or with a malformed body', async () => {
    const session = await openSession(memoryStore(), { id: 'r' })
    await session.append('turn/start', { turn: 1 })
    await step(session, 1, 1)
    await session.append('step/end', { turn: 1, step: 1 })
    const base = {
      turn: 1,
      step: 1,
      tokensBefore: 1,
      tokensAfter: 1,
      strategy: 'clear-tool-results' as const,
      cleared: [],
    }
    await expect(session.append('context/compacted', base)).rejects.toThrow(
      'invariant violated: context/compacted outside the open step',
    )
    await session.append('step/start', { turn: 1, step: 2 })
    await session.append('assistant/message', {
      turn: 1,
      step: 2,
      content: [{ type: 'tool-call', id: 'x', name: 'read', arguments: '{}' }],
    })
    await expect(session.append('context/compacted', { ...base, step: 2 })).rejects.toThrow(
      'invariant violated: context/compacted while tool call "x" of the latest assistant/message has no tool/result',
    )
    await expect(
      session.append('context/compacted', { ...base, step: 2, strategy: 'shrink' } as never),
    ).rejects.toThrow('invariant violated: context/compacted strategy "shrink" is unknown')
    await expect(
      session.append('context/compacted', { ...base, step: 2, cleared: [{ seq: 1 }] } as never),
    ).rejects.toThrow(
      'invariant violated: context/compacted cleared entries need { seq, callId, isError, content: [...] }',
    )
  })

  it('T3.5: for any interleaving of steps and compactions, the live messages equal a from-scratch replay and a reopened session', async () => {
    const plan = fc.array(
      fc.record({
        calls: fc.integer({ min: 0, max: 3 }),
        clear: fc.array(fc.nat(), { maxLength: 3 }),
        summarise: fc.option(fc.nat(), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 12 },
    )
    await fc.assert(
      fc.asyncProperty(plan, async (steps) => {
        const store = memoryStore()
        const session = await openSession(store, { id: 'p', verify: true })
        await session.append('turn/start', { turn: 1 })
        for (const [i, s] of steps.entries()) {
          const n = i + 1
          await step(session, n, s.calls)
          const results = session.events().filter((e) => e.type === 'tool/result')
          const T = { turn: 1, step: n, tokensBefore: 9, tokensAfter: 3 }
          if (s.clear.length > 0 && results.length > 0) {
            const cleared = [...new Set(s.clear.map((k) => results[k % results.length]!))].map((e) => ({
              seq: e.seq,
              callId: e.type === 'tool/result' ? e.data.callId : '',
              isError: false,
              content: text(`stub ${e.seq}`),
            }))
            await session.append('context/compacted', { ...T, strategy: 'clear-tool-results', cleared })
          }
          if (s.summarise !== undefined) {
            const through = (1 + (s.summarise % session.events().length)) as Seq
            const summary = { role: 'user' as const, content: text(`summary through ${through}`) }
            await session.append('context/compacted', { ...T, strategy: 'summarise', through, summary })
          }
          await session.append('step/end', { turn: 1, step: n })
        }
        const live = JSON.stringify(session.messages())
        expect(JSON.stringify(deriveMessages(session.events()))).toBe(live)
        await session.close()
        expect(JSON.stringify((await openSession(store, { id: 'p' })).messages())).toBe(live)
      }),
      { numRuns: 60 },
    )
  })
})
