import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { deriveMessages, MessageLog, memoryStore, openSession } from '../src/index.js'
import { scriptTurns, seededRandom } from './log-script.js'

describe('L2 message derivation', () => {
  it('L2.1: user, assistant and tool events derive messages; every other event derives nothing', async () => {
    const session = await openSession(memoryStore(), { id: 'd' })
    const T = { turn: 1, step: 1 }
    const user = { role: 'user' as const, content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', T)
    await session.append('user/message', { ...T, message: user })
    const content = [
      { type: 'text' as const, text: 'ok' },
      { type: 'tool-call' as const, id: 'a', name: 'r', arguments: '{"x":' },
    ]
    await session.append('assistant/message', { ...T, content })
    await session.append('tool/call', { ...T, callId: 'a', name: 'r', arguments: '{"x":' })
    await session.append('tool/code-dispatch-start', {
      ...T,
      rootCallId: 'a',
      parentCallId: 'a',
      subCallId: 's',
      name: 'r',
      arguments: null,
    })
    await session.append('tool/code-dispatch', {
      ...T,
      rootCallId: 'a',
      parentCallId: 'a',
      subCallId: 's',
      name: 'r',
      isError: false,
      content: [],
    })
    await session.append('tool/result', {
      ...T,
      callId: 'a',
      name: 'r',
      content: [{ type: 'text', text: 'r' }],
      isError: false,
      meta: { m: 1 },
    })
    await session.append('step/end', T)
    await session.append('turn/end', { turn: 1, reason: 'completed' })
    expect(session.messages()).toEqual([
      user,
      { role: 'assistant', content },
      { role: 'tool', callId: 'a', content: [{ type: 'text', text: 'r' }], isError: false },
    ])
  })

  it('L2.2: messages() is a frozen list in seq order and stays stable between appends', async () => {
    const session = await openSession(memoryStore(), { id: 'd' })
    for (const e of scriptTurns(3, seededRandom(5))) await session.append(e.type, e.data as never)
    const list = session.messages()
    expect(Object.isFrozen(list)).toBe(true)
    expect(list.every((m) => Object.isFrozen(m))).toBe(true)
    expect(session.messages()).toBe(list)
    expect(list).toEqual(deriveMessages(session.events()))
  })

  it('L2.3: incremental messages equal a from-scratch replay after every append (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 4 }),
        async (seed, turns) => {
          const rand = seededRandom(seed)
          const session = await openSession(memoryStore(), { id: 'p' })
          const script = scriptTurns(turns, rand)
          for (let i = 0; i < script.length; ) {
            const chunk = script.slice(i, i + 1 + Math.floor(rand() * 3))
            i += chunk.length
            if (rand() < 0.3) await session.appendBatch(chunk)
            else await Promise.all(chunk.map((e) => session.append(e.type, e.data as never)))
            expect(JSON.stringify(session.messages())).toBe(JSON.stringify(deriveMessages(session.events())))
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('L2.3: verify: true passes for a correct log and rejects with INVARIANT on a difference', async () => {
    const store = memoryStore()
    const session = await openSession(store, { id: 'v', verify: true })
    const script = scriptTurns(2, seededRandom(9))
    for (const e of script) await session.append(e.type, e.data as never)
    expect(session.events().map((e) => e.type)).toEqual(script.map((e) => e.type))
    // Inject a derivation fault: the incremental log drops the next message.
    const add = vi.spyOn(MessageLog.prototype, 'add')
    const broken = await openSession(memoryStore(), { id: 'w', verify: true })
    await broken.append('turn/start', { turn: 1 })
    await broken.append('step/start', { turn: 1, step: 1 })
    add.mockImplementationOnce(() => {})
    const error = await broken
      .append('user/message', { turn: 1, step: 1, message: { role: 'user', content: [] } })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'INVARIANT',
      message:
        'invariant violated: incrementally derived messages differ from deriveMessages(events) after seq 3',
    })
    add.mockRestore()
  })
})
