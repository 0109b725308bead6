import type { ToolCallBlock } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  memoryStore,
  NOT_STARTED_TEXT,
  OUTCOME_UNKNOWN_TEXT,
  openSession,
  planRepair,
  repairSession,
  type SessionStore,
} from '../src/index.js'
import { scriptTurns, seededRandom, toolPairingProblem } from './log-script.js'

const T = { turn: 1, step: 1 }
const block = (id: string, args = `{"n":"${id}"}`): ToolCallBlock => ({
  type: 'tool-call',
  id,
  name: `t_${id}`,
  arguments: args,
})

/** The tool/result repair writes for block `id`: a failure with `text` as its one text block and `error`. */
const repairedResult = (id: string, text: string, error: { name: string; code: string }) => ({
  ...T,
  callId: id,
  name: `t_${id}`,
  content: [{ type: 'text', text }],
  isError: true,
  error,
})

/** A store holding a crashed turn: calls a (answered), b (called, unanswered), c (never called), an open approval. */
async function crashedStore(): Promise<SessionStore> {
  const store = memoryStore()
  const s = await openSession(store, { id: 'r' })
  await s.append('turn/start', { turn: 1 })
  await s.append('step/start', T)
  await s.append('user/message', { ...T, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } })
  await s.append('assistant/message', { ...T, content: [block('a'), block('b'), block('c', '{oops')] })
  await s.append('tool/call', { ...T, callId: 'a', name: 't_a', arguments: '{}' })
  await s.append('tool/call', { ...T, callId: 'b', name: 't_b', arguments: '{}' })
  await s.append('approval/asked', { ...T, callId: 'b', name: 't_b', reason: 'w', argumentsDigest: 'd1' })
  await s.append('tool/result', { ...T, callId: 'a', name: 't_a', content: [], isError: false })
  // The writer dies: its handle gives the lease back without ending the turn (L14.6).
  await s.close()
  return store
}

const typesOf = (events: readonly { type: string }[]) => events.map((e) => e.type)

describe('L9 crash repair on resume', () => {
  it('L9.1 L9.4: opening a log whose last turn has no turn/end repairs it in model order before returning', async () => {
    const store = await crashedStore()
    const before = (await store.load('r')).length
    const session = await openSession(store, { id: 'r' })
    const repaired = session.events().slice(before)
    expect(typesOf(repaired)).toEqual([
      'tool/result',
      'tool/call',
      'tool/result',
      'approval/decided',
      'step/end',
      'turn/end',
    ])
    expect(repaired.map((e) => ('callId' in e.data ? e.data.callId : undefined))).toEqual([
      'b',
      'c',
      'c',
      'b',
      undefined,
      undefined,
    ])
    expect(repaired.at(-1)!.data).toEqual({ turn: 1, reason: 'interrupted' })
    expect(repaired[3]!.data).toEqual({
      ...T,
      callId: 'b',
      name: 't_b',
      outcome: 'cancelled',
      argumentsDigest: 'd1',
    })
  })

  it('L9.2: a logged call without a result gets TOOL_OUTCOME_UNKNOWN', async () => {
    const session = await openSession(await crashedStore(), { id: 'r' })
    const result = session.events().find((e) => e.type === 'tool/result' && e.data.callId === 'b')!
    expect(result.data).toEqual(
      repairedResult('b', OUTCOME_UNKNOWN_TEXT, {
        name: 'ToolOutcomeUnknownError',
        code: 'TOOL_OUTCOME_UNKNOWN',
      }),
    )
    expect(OUTCOME_UNKNOWN_TEXT).toBe(
      'Error: tool call outcome is unknown: the session ended before its result was recorded, so the call may or may not have taken effect. Verify the external state before relying on it; retry only a read-only or idempotent tool.',
    )
  })

  it('L9.3: a block that never reached tool/call gets a tool/call with its raw arguments and TOOL_NOT_STARTED', async () => {
    const session = await openSession(await crashedStore(), { id: 'r' })
    const forC = session.events().filter((e) => 'callId' in e.data && e.data.callId === 'c')
    expect(forC.map((e) => e.data)).toEqual([
      { ...T, callId: 'c', name: 't_c', arguments: '{oops' },
      repairedResult('c', NOT_STARTED_TEXT, { name: 'ToolNotStartedError', code: 'TOOL_NOT_STARTED' }),
    ])
    expect(NOT_STARTED_TEXT).toBe('Error: tool call was not started before the session ended')
  })

  it('L9.5: repair is idempotent: reopening a repaired session appends nothing', async () => {
    const store = await crashedStore()
    const first = await openSession(store, { id: 'r' })
    const count = first.events().length
    await first.close()
    const again = await openSession(store, { id: 'r' })
    expect(again.events().length).toBe(count)
    expect(await repairSession(again)).toEqual([])
    expect(planRepair(again.events())).toEqual([])
  })

  it('L9.6: after repair every tool-call block has exactly one tool message', async () => {
    const crashed = await openSession(await crashedStore(), { id: 'r' })
    expect(toolPairingProblem(crashed.messages())).toBeUndefined()
  })

  it('L9.6: any crash point of any valid log is repaired into a valid conversation (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (seed, cut) => {
          const script = scriptTurns(3, seededRandom(seed))
          const store = memoryStore()
          const writer = await openSession(store, { id: 'x' })
          await writer.appendBatch(script.slice(0, Math.floor(cut * script.length)))
          await writer.close()
          const session = await openSession(store, { id: 'x' })
          expect(toolPairingProblem(session.messages())).toBeUndefined()
          expect(planRepair(session.events())).toEqual([])
          const last = session.events().at(-1)
          if (last !== undefined) expect(last.type).toBe('turn/end')
        },
      ),
      { numRuns: 80 },
    )
  })

  it('L9.8: a log ending inside a step gets step/end before turn/end, so the step is closed too', async () => {
    const store = memoryStore()
    const writer = await openSession(store, { id: 'st' })
    await writer.append('turn/start', { turn: 1 })
    await writer.append('step/start', T)
    await writer.close()
    const session = await openSession(store, { id: 'st' })
    expect(session.events().map((e) => [e.type, e.data])).toEqual([
      ['turn/start', { turn: 1 }],
      ['step/start', T],
      ['step/end', T],
      ['turn/end', { turn: 1, reason: 'interrupted' }],
    ])
    expect(planRepair(session.events())).toEqual([])
    // A closed step is not closed again: only turn/end is added.
    const other = memoryStore()
    const w2 = await openSession(other, { id: 'st' })
    await w2.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: T },
      { type: 'step/end', data: T },
    ])
    await w2.close()
    expect(typesOf((await openSession(other, { id: 'st' })).events().slice(3))).toEqual(['turn/end'])
  })

  it('L9.7: deferred contexts that never reached the log are not recreated', async () => {
    const session = await openSession(await crashedStore(), { id: 'r' })
    const users = session.events().filter((e) => e.type === 'user/message')
    expect(users).toHaveLength(1)
  })

  it('L9.1: repairSession answers the calls of a turn that ended with an error, without a second turn/end (L5.6)', async () => {
    const session = await openSession(memoryStore(), { id: 'e' })
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', T)
    await session.append('assistant/message', { ...T, content: [block('a'), block('b')] })
    await session.append('tool/call', { ...T, callId: 'a', name: 't_a', arguments: '{}' })
    await session.append('turn/end', { turn: 1, reason: 'error', message: 'store failed' })
    const appended = await repairSession(session)
    expect(appended.map((e) => [e.type, 'callId' in e.data ? e.data.callId : '-'])).toEqual([
      ['tool/result', 'a'],
      ['tool/call', 'b'],
      ['tool/result', 'b'],
    ])
    expect(toolPairingProblem(session.messages())).toBeUndefined()
    await session.append('turn/start', { turn: 2 })
  })

  it('L9.1: a log that ends cleanly is not touched, and a damaged stored log is refused', async () => {
    const store = memoryStore()
    const s = await openSession(store, { id: 'ok' })
    await s.append('turn/start', { turn: 1 })
    await s.append('turn/end', { turn: 1, reason: 'completed' })
    await s.close()
    const reopened = await openSession(store, { id: 'ok' })
    expect(reopened.events()).toHaveLength(2)
    await reopened.close()
    const damaged: SessionStore = {
      ...store,
      load: async () =>
        [
          Object.freeze({ seq: 1, type: 'tool/call', data: { ...T, callId: 'z', name: 'n', arguments: '' } }),
        ] as never,
    }
    await expect(openSession(damaged, { id: 'ok' })).rejects.toThrow(
      `invariant violated: session "ok" is damaged at seq 1: tool/call names turn 1 but the latest turn is 0`,
    )
  })
})
