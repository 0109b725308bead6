import { describe, expect, it } from 'vitest'
import {
  deriveMessages,
  forkOrigin,
  forkSession,
  memoryStore,
  type NewSessionEvent,
  openSession,
  type Seq,
} from '../src/index.js'

describe('A2 session/fork events', () => {
  it('A2.3: session/fork is valid only as the first event, derives no message, and names the lineage', async () => {
    const store = memoryStore()
    const fork = await openSession(store, { id: 'f' })
    await fork.append('session/fork', { source: 'src', at: 0 })
    await fork.append('turn/start', { turn: 1 })
    await expect(fork.append('session/fork', { source: 'src', at: 0 })).rejects.toThrow(
      'invariant violated: session/fork may only be the first event of a session',
    )
    expect(forkOrigin(fork.events())).toEqual({ source: 'src', at: 0 })
    expect(deriveMessages(fork.events())).toEqual([])
    await fork.close()
    const plain = await openSession(store, { id: 'p' })
    await expect(plain.append('session/fork', { source: '', at: 0 })).rejects.toThrow(
      'invariant violated: session/fork needs { source: <session id>, at: <seq, 0 or more> }',
    )
    await plain.append('turn/start', { turn: 1 })
    expect(forkOrigin(plain.events())).toBeUndefined()
    await expect(plain.append('session/fork', { source: 'src', at: 1 })).rejects.toThrow(
      'session/fork may only be the first event of a session',
    )
    expect(plain.events().map((e) => e.type)).toEqual(['turn/start'])
  })

  it('A2.2: a fork of a session closed mid-turn is repaired, and the source keeps its open turn', async () => {
    const store = memoryStore()
    const source = await openSession(store, { id: 'live' })
    await source.append('turn/start', { turn: 1 })
    await source.append('step/start', { turn: 1, step: 1 })
    const call = { type: 'tool-call' as const, id: 'c1', name: 'read', arguments: '{}' }
    await source.append('assistant/message', { turn: 1, step: 1, content: [call] })
    const fork = await forkSession(store, 'live', { at: 3 })
    expect(fork.events().map((e) => e.type)).toEqual([
      'session/fork',
      'turn/start',
      'step/start',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'turn/end',
    ])
    expect(source.events().map((e) => e.type)).toEqual(['turn/start', 'step/start', 'assistant/message'])
    expect((await store.load('live')).length).toBe(3)
  })

  it('A2.6: a fork cut inside a suspended turn closes it: the waiting call is answered without running and its ask cancelled', async () => {
    const store = memoryStore()
    const source = await openSession(store, { id: 'held' })
    const call = { type: 'tool-call' as const, id: 'c1', name: 'pay', arguments: '{}' }
    const where = { turn: 1, step: 1 }
    await source.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: where },
      { type: 'assistant/message', data: { ...where, content: [call] } },
      { type: 'tool/call', data: { ...where, callId: 'c1', name: 'pay', arguments: '{}' } },
    ])
    const ask = { ...where, callId: 'c1', name: 'pay', argumentsDigest: 'd' }
    await source.append('approval/asked', { ...ask, durable: true, expiresAt: '2999-01-01T00:00:00.000Z' })
    // Plain repair leaves a suspended turn alone (L9.1); a fork closes it.
    await source.close()
    const reopened = await openSession(store, { id: 'held' })
    expect(reopened.events().length).toBe(5)
    const fork = await forkSession(store, 'held', { at: 5 })
    expect(
      fork
        .events()
        .slice(6)
        .map((e) => [e.type, 'outcome' in e.data ? e.data.outcome : e.data]),
    ).toEqual([
      [
        'tool/result',
        expect.objectContaining({
          callId: 'c1',
          error: expect.objectContaining({ code: 'TOOL_OUTCOME_UNKNOWN' }),
        }),
      ],
      ['approval/decided', 'cancelled'],
      ['step/end', where],
      ['turn/end', { turn: 1, reason: 'interrupted' }],
    ])
    expect(reopened.events().length).toBe(5)
  })

  it("A2.1, A2.2: a fork moves the seqs a compaction names with the events, so it derives the source's messages", async () => {
    const where = { turn: 1, step: 1 }
    const text = (t: string) => [{ type: 'text' as const, text: t }]
    const call = (id: string) => ({ type: 'tool-call' as const, id, name: 'read', arguments: '{}' })
    const batch: NewSessionEvent[] = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: where },
      { type: 'user/message', data: { ...where, message: { role: 'user', content: text('go') } } },
      { type: 'assistant/message', data: { ...where, content: [call('c1'), call('c2')] } },
      { type: 'tool/call', data: { ...where, callId: 'c1', name: 'read', arguments: '{}' } },
      { type: 'tool/call', data: { ...where, callId: 'c2', name: 'read', arguments: '{}' } },
      {
        type: 'tool/result',
        data: { ...where, callId: 'c1', name: 'read', content: text('one'), isError: false },
      },
      {
        type: 'tool/result',
        data: { ...where, callId: 'c2', name: 'read', content: text('two'), isError: false },
      },
      { type: 'step/end', data: where },
      { type: 'step/start', data: { turn: 1, step: 2 } },
    ]
    const compactions: NewSessionEvent['data'][] = [
      {
        turn: 1,
        step: 2,
        strategy: 'clear-tool-results',
        tokensBefore: 10,
        tokensAfter: 5,
        cleared: [{ seq: 7 as Seq, callId: 'c1', isError: false, content: text('[cleared]') }],
      },
      {
        turn: 1,
        step: 2,
        strategy: 'summarise',
        tokensBefore: 10,
        tokensAfter: 5,
        through: 7 as Seq,
        summary: { role: 'user', content: text('summary') },
      },
    ]
    for (const data of compactions) {
      const store = memoryStore()
      const source = await openSession(store, { id: 'src' })
      await source.appendBatch([...batch, { type: 'context/compacted', data } as NewSessionEvent])
      const expected = deriveMessages(source.events())
      const fork = await forkSession(store, 'src', { at: source.events().length, id: 'f' })
      expect(deriveMessages(fork.events())).toEqual(expected)
      // A fork of the fork keeps the seqs, and still derives the same messages.
      const again = await forkSession(store, 'f', { at: fork.events().length - 2, id: 'g' })
      expect(deriveMessages(again.events())).toEqual(expected)
    }
  })
})
