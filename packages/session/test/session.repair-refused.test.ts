/**
 * F2.20, F2.21: a call whose approval decisions refused it (and never allowed it) never ran, so
 * plain repair (L9.2) and a fork (A2.6) answer it with the `DENIED` the pipeline gives for that
 * decision, not `TOOL_OUTCOME_UNKNOWN` — also after `turn/resumed`, and from a checkpoint.
 */
import { join } from 'node:path'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import { approvalFailure } from '@tooltx/core/internal'
import { describe, expect, it } from 'vitest'
import {
  fileStore,
  forkSession,
  memoryStore,
  type NewSessionEvent,
  openSession,
  type SessionEvent,
  type SessionStore,
  sqliteStore,
  suspendedTurn,
} from '../src/index.js'
import { tempRoot } from './temp-root.js'

const where = { turn: 1, step: 1 }
const expiresAt = '2030-01-01T00:00:00.000Z'
const call = (callId: string, name: string): NewSessionEvent => ({
  type: 'tool/call',
  data: { ...where, callId, name, arguments: '{}' },
})
const asked = (callId: string, name: string, durable: boolean): NewSessionEvent => ({
  type: 'approval/asked',
  data: { ...where, callId, name, argumentsDigest: 'd', ...(durable ? { durable: true, expiresAt } : {}) },
})
/** A decision of `callId`: durable ones lawful by the decision rule (F2.13). */
function decided(callId: string, name: string, outcome: string, durable = true): NewSessionEvent {
  const data = { ...where, callId, name, outcome, argumentsDigest: 'd' }
  if (!durable) return { type: 'approval/decided', data } as NewSessionEvent
  const by = outcome === 'expired' ? {} : { by: 'ann' }
  const decidedAt = outcome === 'expired' ? expiresAt : '2029-06-01T00:00:00.000Z'
  return { type: 'approval/decided', data: { ...data, ...by, decidedAt } } as NewSessionEvent
}
const opening = (...names: string[]): NewSessionEvent[] => [
  { type: 'turn/start', data: { turn: 1 } },
  {
    type: 'user/message',
    data: { ...where, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } },
  },
  { type: 'step/start', data: where },
  {
    type: 'assistant/message',
    data: {
      ...where,
      content: names.map((name, i) => ({ type: 'tool-call', id: `c${i + 1}`, name, arguments: '{}' })),
    },
  },
]

/** A durable ask of `pay` decided `outcome`, resumed, and a crash before the call's result. */
const resumedThenCrash = (outcome: 'rejected' | 'expired'): NewSessionEvent[] => [
  ...opening('pay', 'log'),
  call('c1', 'pay'),
  asked('c1', 'pay', true),
  decided('c1', 'pay', outcome),
  { type: 'turn/resumed', data: where },
]

/** `[callId, code, content]` of every `tool/result`. */
const results = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'tool/result' ? [[e.data.callId, e.data.error?.code, e.data.content]] : [],
  )
const denied = (callId: string, name: string, outcome: string) => [
  callId,
  'DENIED',
  approvalFailure(name, outcome)!.content,
]

/** Writes `events` as session `id` without repair, as a process that died after them left it. */
async function crashed(store: SessionStore, events: readonly NewSessionEvent[], id = 's', every?: number) {
  const session = await openSession(store, { id, repair: false, checkpointEvery: every })
  for (const event of events) await session.appendBatch([event])
  await session.close()
}

describe('F2.20 plain repair answers a call its decisions refused with that DENIED', () => {
  it.each(['rejected', 'expired'] as const)(
    'F2.20, L9.2: a durable ask %s, turn/resumed, then a crash: reopening answers the call DENIED, never unknown, and appends no decision',
    async (outcome) => {
      const store = memoryStore()
      await crashed(store, resumedThenCrash(outcome))
      const session = await openSession(store, { id: 's' })
      const events = session.events()
      await session.close()
      expect(results(events)).toEqual([
        denied('c1', 'pay', outcome),
        [
          'c2',
          'TOOL_NOT_STARTED',
          [{ type: 'text', text: 'Error: tool call was not started before the session ended' }],
        ],
      ])
      expect(events.filter((e) => e.type === 'approval/decided')).toHaveLength(1)
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    },
  )

  it('F2.20: in-process decisions (rejected, expired, cancelled, unavailable) each give their DENIED; allowed-once, even refused later (a re-run), stays TOOL_OUTCOME_UNKNOWN', async () => {
    const names = ['a', 'b', 'c', 'd', 'e']
    const outcomes = ['rejected', 'expired', 'cancelled', 'unavailable'] as const
    const events = [...opening(...names)]
    for (const [i, name] of names.entries()) events.push(call(`c${i + 1}`, name))
    for (const [i, outcome] of outcomes.entries())
      events.push(asked(`c${i + 1}`, names[i]!, false), decided(`c${i + 1}`, names[i]!, outcome, false))
    // c5 was allowed (its body may have run), then a re-run was asked again and rejected.
    events.push(asked('c5', 'e', false), decided('c5', 'e', 'allowed-once', false))
    events.push(asked('c5', 'e', false), decided('c5', 'e', 'rejected', false))
    const store = memoryStore()
    await crashed(store, events)
    const session = await openSession(store, { id: 's' })
    const got = results(session.events())
    await session.close()
    expect(got.slice(0, 4)).toEqual(outcomes.map((outcome, i) => denied(`c${i + 1}`, names[i]!, outcome)))
    expect(got[4]?.slice(0, 2)).toEqual(['c5', 'TOOL_OUTCOME_UNKNOWN'])
  })

  it('F2.20: a refusal with a receipt recorded (a body ran, F1.4) keeps TOOL_EFFECT_RECORDED', async () => {
    const effect: NewSessionEvent = {
      type: 'tool/effect',
      data: { ...where, callId: 'c1', name: 'pay', receipt: { id: 'r1' } },
    }
    const store = memoryStore()
    await crashed(store, [
      ...opening('pay'),
      call('c1', 'pay'),
      asked('c1', 'pay', false),
      decided('c1', 'pay', 'allowed-once', false),
      effect,
      asked('c1', 'pay', false),
      decided('c1', 'pay', 'rejected', false),
    ])
    const session = await openSession(store, { id: 's' })
    expect(results(session.events())).toEqual([['c1', 'TOOL_EFFECT_RECORDED', expect.any(Array)]])
    await session.close()
  })
})

describe('F2.21 a fork answers a call its decisions refused with that DENIED', () => {
  it.each(['rejected', 'expired'] as const)(
    'F2.21, A2.6: a fork at every cut of a session whose %s ask was resumed before a crash answers a refused call DENIED, any other by A2.6, and leaves nothing pending',
    async (outcome) => {
      const store = memoryStore()
      const source = resumedThenCrash(outcome)
      await crashed(store, source)
      for (let at = 0; at <= source.length; at++) {
        const fork = await forkSession(store, 's', { at, id: `f${at}` })
        const events = fork.events()
        expect(suspendedTurn(events)).toBeUndefined()
        await fork.close()
        const refused = source.slice(0, at).some((e) => e.type === 'approval/decided')
        const called = source.slice(0, at).some((e) => e.type === 'tool/call')
        const [pay] = results(events)
        if (refused) expect(pay).toEqual(denied('c1', 'pay', outcome))
        else if (called) expect(pay?.slice(0, 2)).toEqual(['c1', 'TOOL_OUTCOME_UNKNOWN'])
        else if (pay !== undefined) expect(pay.slice(0, 2)).toEqual(['c1', 'TOOL_NOT_STARTED'])
        // Reopening the fork appends nothing (A2.2).
        const again = await openSession(store, { id: `f${at}` })
        expect(again.events()).toHaveLength(events.length)
        await again.close()
      }
    },
  )
})

describe('F2.20, L11.8 the checkpoint keeps the decisions past turn/resumed', () => {
  const root = tempRoot('tooltx-refused-')
  const json = (value: unknown): string => stringifyJson(value as JsonValue)
  const kinds = [
    ['file', (place: string) => fileStore(place)],
    ['sqlite', (place: string) => sqliteStore(join(place, 's.db'))],
  ] as const

  it.each(kinds)(
    'F2.20, L11.8: %s: a session checkpointed after turn/resumed reopens from the checkpoint and repairs the refused call DENIED',
    async (kind, make) => {
      const place = join(root, `new-${kind}`)
      await crashed(make(place), resumedThenCrash('rejected'), 's', 2)
      const store = make(place)
      const checkpoint = await store.loadCheckpoint!('s')
      expect(checkpoint?.seq).toBe(resumedThenCrash('rejected').length)
      const session = await openSession(store, { id: 's' })
      expect(results(session.events())[0]).toEqual(denied('c1', 'pay', 'rejected'))
      await session.close()
      await store.close()
    },
  )

  it.each(kinds)(
    'F2.20, L11.8: %s: a checkpoint in the old format (version 2, no decisions) still opens: the whole log is read and the refused call is repaired DENIED',
    async (kind, make) => {
      const place = join(root, `old-${kind}`)
      const events = resumedThenCrash('expired')
      await crashed(make(place), events, 's', 2)
      const writer = make(place)
      await writer.acquire('s')
      await writer.load('s')
      const { state } = (await writer.loadCheckpoint!('s'))!
      const current = JSON.parse(typeof state === 'string' ? state : json(state))
      expect(current.v).toBe(3)
      const { decisions, ...assistant } = current.assistant
      expect(decisions).toEqual([['c1', 'expired']])
      // Version 2 had no decisions, and its durable asks were cleared at turn/resumed.
      await writer.saveCheckpoint!('s', events.length, json({ ...current, v: 2, assistant }))
      await writer.close()
      let loads = 0
      const store = make(place)
      const counted: SessionStore = {
        ...store,
        load: (id) => {
          loads++
          return store.load(id)
        },
      }
      const session = await openSession(counted, { id: 's' })
      expect(loads).toBe(1)
      expect(results(session.events())[0]).toEqual(denied('c1', 'pay', 'expired'))
      await session.close()
      await store.close()
    },
  )
})
