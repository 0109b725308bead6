import { readFileSync } from 'node:fs'
import { ToolError } from '@tooltx/core'
import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import {
  memoryStore,
  openSession,
  SESSION_EVENT_TYPES,
  type SessionEvent,
  type SessionEventMap,
  type SessionStore,
} from '../src/index.js'

/** The event types docs/SPEC.md's L1.7 names, in its order: each a backticked `<scope>/<name>`. */
function specEventTypes(): string[] {
  const spec = readFileSync(new URL('../../../docs/SPEC.md', import.meta.url), 'utf8')
  const item = spec.split('\n').find((line) => line.startsWith('- **L1.7**')) ?? ''
  return [...item.matchAll(/`([a-z]+\/[a-z-]+)[ `]/g)].map((m) => m[1]!)
}

const open = (store: SessionStore = memoryStore(), id = 's') => openSession(store, { id })

describe('L1 the session log', () => {
  it('L1.3: append snapshots and deep-freezes data; later mutation of the input changes nothing', async () => {
    const session = await open()
    const data = { turn: 1 }
    const pending = session.append('turn/start', data)
    data.turn = 99
    const event = await pending
    expect(event).toEqual({ seq: 1, type: 'turn/start', data: { turn: 1 } })
    expect(event.data).not.toBe(data)
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen(event.data)).toBe(true)
    await session.append('step/start', { turn: 1, step: 1 })
    const message = { role: 'user' as const, content: [{ type: 'text', text: 'hi' }] }
    const e = await session.append('user/message', { turn: 1, step: 1, message })
    expect(Object.isFrozen(e.data.message.content[0])).toBe(true)
  })

  it('L1.3: non-lossless data rejects with the session message and leaves the log unchanged', async () => {
    const session = await open()
    const bad = [
      { turn: 1, extra: () => 1 },
      { turn: 1, extra: Number.NaN },
      { turn: 1, extra: undefined },
      {
        turn: 1,
        get extra(): never {
          throw new Error('boom')
        },
      },
    ]
    for (const data of bad) {
      const error = await session.append('turn/start', data as never).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ToolError)
      expect((error as ToolError).code).toBe('INVARIANT')
      expect((error as ToolError).message).toContain(
        'session event "turn/start" carries non-JSON-serializable data',
      )
    }
    expect(session.events()).toEqual([])
  })

  it('L1.3: the rejection names the path of the offending value inside data', async () => {
    const session = await open()
    const cases: [unknown, string][] = [
      [{ turn: 1, extra: () => 1 }, 'data.extra is a function'],
      [{ turn: 1, list: [1, Number.NaN] }, 'data.list[1] is not a finite number'],
      [{ turn: 1, deep: { a: [{ b: undefined }] } }, 'data.deep.a[0].b is undefined'],
    ]
    for (const [data, where] of cases) {
      await expect(session.append('turn/start', data as never)).rejects.toThrow(
        `invariant violated: session event "turn/start" carries non-JSON-serializable data (${where})`,
      )
    }
    expect(session.events()).toEqual([])
  })

  it('L1.4: appends apply in call order even when an earlier one is rejected', async () => {
    const session = await open()
    const a = session.append('turn/start', { turn: 1 })
    const b = session.append('step/start', { turn: 1, step: 2 })
    const c = session.append('step/start', { turn: 1, step: 1 })
    await expect(a).resolves.toMatchObject({ seq: 1 })
    await expect(b).rejects.toThrow('invariant violated: step/start 2 does not follow step 0')
    await expect(c).resolves.toMatchObject({ seq: 2 })
  })

  it('L1.4: append resolves only after the store made the event durable', async () => {
    const inner = memoryStore()
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => {
      release = r
    })
    const store: SessionStore = {
      ...inner,
      load: (id) => inner.load(id),
      append: async (id, events) => {
        await gate
        await inner.append(id, events)
      },
    }
    const session = await open(store)
    let resolved = false
    const pending = session.append('turn/start', { turn: 1 }).then(() => {
      resolved = true
    })
    await new Promise((r) => setTimeout(r, 5))
    expect(resolved).toBe(false)
    expect(session.events()).toEqual([])
    release()
    await pending
    expect((await inner.load('s')).length).toBe(1)
  })

  it('L1.4: a store failure rejects the append and leaves the log and its derivation unchanged', async () => {
    const inner = memoryStore()
    const store: SessionStore = {
      ...inner,
      append: async () => {
        throw new Error('disk full')
      },
    }
    const session = await open(store)
    await expect(session.append('turn/start', { turn: 1 })).rejects.toThrow('disk full')
    expect(session.events()).toEqual([])
  })

  it('L1.5: listeners run synchronously after each durable append; a throwing one is contained', async () => {
    const reportError = vi.fn()
    const session = await openSession(memoryStore(), { id: 's', reportError })
    const seen: number[] = []
    session.on(() => {
      throw new Error('listener bug')
    })
    const off = session.on((e) => seen.push(e.seq))
    const event = await session.append('turn/start', { turn: 1 })
    expect(seen).toEqual([1])
    expect(session.events()).toContain(event)
    expect(reportError).toHaveBeenCalledWith(expect.objectContaining({ message: 'listener bug' }))
    off()
    await session.append('turn/end', { turn: 1, reason: 'completed' })
    expect(seen).toEqual([1])
  })

  it('L1.5: a listener sees the event already in events() and messages()', async () => {
    const session = await open()
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', { turn: 1, step: 1 })
    const seen: number[] = []
    session.on((e) => seen.push(e.seq, session.events().length, session.messages().length))
    await session.append('user/message', { turn: 1, step: 1, message: { role: 'user', content: [] } })
    expect(seen).toEqual([3, 3, 1])
  })

  it('L1.7: the event map has exactly the nineteen event types and typed data', () => {
    const specTypes = specEventTypes()
    expect(specTypes).toHaveLength(19)
    expect([...SESSION_EVENT_TYPES].sort()).toEqual([...specTypes].sort())
    expectTypeOf<keyof SessionEventMap>().toEqualTypeOf<(typeof SESSION_EVENT_TYPES)[number]>()
    expectTypeOf<SessionEventMap['tool/call']['arguments']>().toEqualTypeOf<string>()
    expectTypeOf<SessionEventMap['turn/end']['reason']>().toEqualTypeOf<
      'completed' | 'aborted' | 'error' | 'interrupted' | 'limit'
    >()
    expectTypeOf<Extract<SessionEvent, { type: 'tool/result' }>['data']>().toEqualTypeOf<
      SessionEventMap['tool/result']
    >()
  })

  it('L1.7: unknown event types, malformed data and unknown turn/end reasons are rejected', async () => {
    const session = await open()
    await expect(session.append('turn/begin' as never, { turn: 1 } as never)).rejects.toThrow(
      'invariant violated: unknown session event type "turn/begin"',
    )
    await expect(session.append('turn/start', [] as never)).rejects.toThrow(
      'turn/start data must be an object',
    )
    await session.append('turn/start', { turn: 1 })
    await expect(session.append('turn/end', { turn: 1, reason: 'bored' as never })).rejects.toThrow(
      'turn/end reason "bored" is unknown',
    )
    await expect(session.append('step/start', { turn: 1 } as never)).rejects.toThrow(
      'step/start needs a positive integer "step"',
    )
    expect(session.events().length).toBe(1)
  })

  it('L1.8: turns count up from 1 across reopenings; steps count up from 1 within a turn', async () => {
    const store = memoryStore()
    const first = await open(store)
    await expect(first.append('turn/start', { turn: 2 })).rejects.toThrow(
      'turn/start 2 does not follow turn 0',
    )
    await first.append('turn/start', { turn: 1 })
    await expect(first.append('turn/start', { turn: 2 })).rejects.toThrow(
      'turn/start while turn 1 has no turn/end',
    )
    await first.append('step/start', { turn: 1, step: 1 })
    await expect(first.append('step/start', { turn: 1, step: 2 })).rejects.toThrow(
      'step/start while step 1 has no step/end',
    )
    await first.append('step/end', { turn: 1, step: 1 })
    await expect(first.append('step/start', { turn: 1, step: 3 })).rejects.toThrow(
      'step/start 3 does not follow step 1',
    )
    await first.append('turn/end', { turn: 1, reason: 'completed' })
    await first.close()
    const again = await open(store)
    await expect(again.append('turn/start', { turn: 1 })).rejects.toThrow(
      'turn/start 1 does not follow turn 1',
    )
    await again.append('turn/start', { turn: 2 })
    await again.append('step/start', { turn: 2, step: 1 })
    await expect(again.append('step/end', { turn: 1, step: 1 })).rejects.toThrow(
      'step/end names turn 1 but the latest turn is 2',
    )
  })

  it('L1.1: openSession rejects a session id that is not a safe name', async () => {
    for (const id of ['', '../x', 'a/b', '.hidden', 'x'.repeat(129), 7]) {
      await expect(openSession(memoryStore(), { id: id as never })).rejects.toMatchObject({
        code: 'INVALID_DEFINITION',
      })
    }
  })

  it('F1.9: a store whose acquire resolves with no epoch is refused with INVALID_DEFINITION, and its lease is given back', async () => {
    const store = memoryStore()
    const released: string[] = []
    const noEpoch: SessionStore = {
      ...store,
      acquire: async (id) => {
        await store.acquire(id)
        return undefined as never
      },
      release: async (id) => {
        released.push(id)
        await store.release?.(id)
      },
    }
    await expect(openSession(noEpoch, { id: 'e' })).rejects.toMatchObject({
      code: 'INVALID_DEFINITION',
      message:
        'store.acquire("e") resolved with undefined; a SessionStore\'s acquire must resolve with the lease\'s epoch, a whole number >= 1',
    })
    expect(released).toEqual(['e'])
    expect((await openSession(store, { id: 'e' })).epoch).toBe(2)
  })

  it('L1.4: a closed session refuses appends after the pending ones landed', async () => {
    const session = await open()
    const pending = session.append('turn/start', { turn: 1 })
    await session.close()
    await expect(pending).resolves.toMatchObject({ seq: 1 })
    await expect(session.append('turn/end', { turn: 1, reason: 'completed' })).rejects.toThrow(
      'invariant violated: session "s" is closed',
    )
  })

  it('L1.2: appendBatch numbers its events after earlier appends, without gaps', async () => {
    const session = await open()
    void session.append('turn/start', { turn: 1 })
    const batch = await session.appendBatch([
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'step/end', data: { turn: 1, step: 1 } },
    ])
    expect(batch.map((e) => e.seq)).toEqual([2, 3])
    expect(session.events().map((e) => e.seq)).toEqual([1, 2, 3])
    await expect(session.appendBatch('nope' as never)).rejects.toThrow('appendBatch takes an array')
  })
})
