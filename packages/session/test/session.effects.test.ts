import { describe, expect, it } from 'vitest'
import { interruptedCalls, memoryStore, type NewSessionEvent, openSession } from '../src/index.js'

const where = { turn: 1, step: 1 }
const opening: NewSessionEvent[] = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'step/start', data: where },
  {
    type: 'assistant/message',
    data: { ...where, content: [{ type: 'tool-call', id: 'a', name: 'pay', arguments: '{}' }] },
  },
]
const call: NewSessionEvent = {
  type: 'tool/call',
  data: { ...where, callId: 'a', name: 'pay', arguments: '{}' },
}
const effect = (receipt: string) =>
  ({
    type: 'tool/effect',
    data: { ...where, callId: 'a', name: 'pay', receipt: { id: receipt } },
  }) as const satisfies NewSessionEvent

describe('F1 receipts in the session log', () => {
  it('F1.3: a tool/effect needs its tool/call before it and no tool/result yet', async () => {
    const session = await openSession(memoryStore(), { id: 'e1' })
    await session.appendBatch(opening)
    await expect(session.append('tool/effect', effect('r0').data)).rejects.toThrow(
      'tool/effect "a" has no earlier tool/call in the turn',
    )
    await session.appendBatch([call, effect('r1'), effect('r2')])
    expect(interruptedCalls(session.events())).toEqual([
      {
        step: 1,
        block: { type: 'tool-call', id: 'a', name: 'pay', arguments: '{}' },
        receipts: [{ id: 'r1' }, { id: 'r2' }],
      },
    ])
    await session.append('tool/result', { ...where, callId: 'a', name: 'pay', content: [], isError: false })
    await expect(session.append('tool/effect', effect('r3').data)).rejects.toThrow(
      'tool/effect "a" follows its tool/result',
    )
    expect(interruptedCalls(session.events())).toEqual([])
  })

  it('F1.4: plain openSession answers a call with receipts TOOL_EFFECT_RECORDED, quoting all of them', async () => {
    const store = memoryStore()
    const first = await openSession(store, { id: 'e2' })
    await first.appendBatch([...opening, call, effect('r1'), effect('r2')])
    await first.close()
    const session = await openSession(store, { id: 'e2' })
    const result = session.events().find((e) => e.type === 'tool/result')
    expect(result?.data).toEqual({
      ...where,
      callId: 'a',
      name: 'pay',
      isError: true,
      error: { name: 'ToolEffectRecordedError', code: 'TOOL_EFFECT_RECORDED' },
      meta: { receipts: [{ id: 'r1' }, { id: 'r2' }] },
      content: [
        {
          type: 'text',
          text: 'Error: the session ended before this tool call\'s result was recorded, but the call had already taken effect and recorded these receipts: [{"id":"r1"},{"id":"r2"}]. Do not run it again for the same purpose; treat the effect as done and verify the external state if you need more than the receipt.',
        },
      ],
    })
    expect(
      session
        .events()
        .map((e) => e.type)
        .slice(-3),
    ).toEqual(['tool/result', 'step/end', 'turn/end'])
  })
})
