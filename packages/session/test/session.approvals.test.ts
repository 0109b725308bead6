import { memoryStore, type NewSessionEvent, openSession, planRepair, suspendedTurn } from '@tooltx/session'
import { describe, expect, it } from 'vitest'

const where = { turn: 1, step: 1 }
const blocks = [
  { type: 'tool-call', id: 'c1', name: 'look', arguments: '{}' },
  { type: 'tool-call', id: 'c2', name: 'pay', arguments: '{}' },
  { type: 'tool-call', id: 'c3', name: 'look', arguments: '{}' },
] as const
const expiresAt = '2030-01-01T00:00:00.000Z'
const opening: NewSessionEvent[] = [
  { type: 'turn/start', data: { turn: 1 } },
  { type: 'step/start', data: where },
  { type: 'assistant/message', data: { ...where, content: [...blocks] } },
  { type: 'tool/call', data: { ...where, callId: 'c1', name: 'look', arguments: '{}' } },
  { type: 'tool/call', data: { ...where, callId: 'c2', name: 'pay', arguments: '{}' } },
]
const ask: NewSessionEvent = {
  type: 'approval/asked',
  data: {
    ...where,
    callId: 'c2',
    name: 'pay',
    argumentsDigest: 'd',
    durable: true,
    expiresAt,
    deciders: ['ann'],
  },
}
const decided: NewSessionEvent = {
  type: 'approval/decided',
  data: {
    ...where,
    callId: 'c2',
    name: 'pay',
    outcome: 'allowed-once',
    argumentsDigest: 'd',
    by: 'ann',
    decidedAt: '2029-06-01T00:00:00.000Z',
  },
}

async function fresh(events: readonly NewSessionEvent[]) {
  const session = await openSession(memoryStore(), { id: 's' })
  await session.appendBatch(events)
  return session
}

describe('F2 durable approvals in the session log', () => {
  it('F2.2: the session refuses a durable ask for a call that is not running, without expiresAt, or with bad deciders', async () => {
    const session = await fresh(opening)
    const bad: [Record<string, unknown>, string][] = [
      [{ callId: 'c3' }, 'durable approval/asked "c3" is not a running tool call of the turn'],
      [{ expiresAt: 'soon' }, 'a durable approval/asked needs an ISO "expiresAt"'],
      [{ deciders: [] }, 'approval/asked "deciders" must be a non-empty list of non-empty strings'],
      [{ durable: false }, 'approval/asked "durable" must be true when present'],
    ]
    for (const [change, message] of bad) {
      await expect(
        session.append('approval/asked', { ...(ask.data as object), ...change } as never),
      ).rejects.toThrow(`invariant violated: ${message}`)
    }
    await expect(session.append('approval/decided', { ...decided.data, by: '' } as never)).rejects.toThrow(
      'approval/decided for call "c2" does not follow an undecided approval/asked',
    )
    await session.append('approval/asked', ask.data as never)
    await expect(session.append('approval/decided', { ...decided.data, by: '' } as never)).rejects.toThrow(
      'approval/decided "by" must be a non-empty string',
    )
  })

  it('F2.3, L9.1: a suspended turn is described by suspendedTurn and needs no repair, decided or not', async () => {
    const session = await fresh([...opening, ask])
    expect(planRepair(session.events())).toEqual([])
    expect(suspendedTurn(session.events())).toEqual({
      turn: 1,
      step: 1,
      blocks,
      index: 1,
      asked: ask.data,
      decided: undefined,
      interrupted: [{ step: 1, block: blocks[0], receipts: [], decision: undefined }],
      parked: [
        { block: blocks[1], called: true },
        { block: blocks[2], called: false },
      ],
    })
    await session.append('approval/decided', decided.data as never)
    expect(planRepair(session.events())).toEqual([])
    expect(suspendedTurn(session.events())?.decided).toEqual(decided.data)
  })

  it('F2.7: turn/resumed only in the open step of a suspended turn whose waiting call is decided; after it, repair applies again', async () => {
    const session = await fresh([...opening, ask])
    await expect(session.append('turn/resumed', where)).rejects.toThrow(
      'invariant violated: turn/resumed while the approval of call "c2" is undecided',
    )
    await session.append('approval/decided', decided.data as never)
    await expect(session.append('turn/resumed', { turn: 1, step: 2 })).rejects.toThrow(
      'invariant violated: turn/resumed outside the open step',
    )
    await session.append('turn/resumed', where)
    expect(suspendedTurn(session.events())).toBeUndefined()
    await expect(session.append('turn/resumed', where)).rejects.toThrow(
      'invariant violated: turn/resumed while the turn is not suspended',
    )
    expect(planRepair(session.events()).map((e) => e.type)).toEqual([
      'tool/result',
      'tool/result',
      'tool/call',
      'tool/result',
      'step/end',
      'turn/end',
    ])
  })
})
