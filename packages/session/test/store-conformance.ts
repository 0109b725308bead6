/**
 * The one conformance suite every store passes (L1.1). `backing()` returns a fresh place to
 * store logs; `connect()` on it opens a store on that place — a new store object each time for
 * the durable stores (a second process, in effect), the same object for the memory store.
 */
import { ToolError } from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import { isLeaseHeld, openSession, type SessionEvent, type SessionStore } from '../src/index.js'
import { scriptTurns, seededRandom } from './log-script.js'

export interface Backing {
  connect(): SessionStore
}

const asJson = (x: unknown): string => JSON.stringify(x)

export function storeConformance(name: string, backing: () => Backing): void {
  describe(`store conformance: ${name}`, () => {
    const opened: SessionStore[] = []
    const connect = (b: Backing): SessionStore => {
      const store = b.connect()
      opened.push(store)
      return store
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close()
    })

    it('L1.1: openSession creates an empty session, listed by listSessions', async () => {
      const store = connect(backing())
      const session = await openSession(store, { id: 'fresh' })
      expect(session.id).toBe('fresh')
      expect(session.events()).toEqual([])
      expect(session.messages()).toEqual([])
      const rows = await store.listSessions()
      expect(rows.map((r) => [r.id, r.events])).toEqual([['fresh', 0]])
      expect(Number.isNaN(Date.parse(rows[0]!.created))).toBe(false)
    })

    it('L1.2 L1.6: seqs count from 1 without gaps and a reopened log is byte-identical', async () => {
      const b = backing()
      const store = connect(b)
      const session = await openSession(store, { id: 's1' })
      const script = scriptTurns(4, seededRandom(7))
      // Odd corners of lossless JSON must survive storage: unicode, escapes, a "__proto__" key.
      const meta = JSON.parse('{"__proto__":{"x":1},"s":"é\\u2028\\"\\n","n":-1.5e-7,"big":12345678901234}')
      script.push(
        { type: 'turn/start', data: { turn: 5 } },
        { type: 'step/start', data: { turn: 5, step: 1 } },
      )
      script.push({
        type: 'user/message',
        data: { turn: 5, step: 1, message: { role: 'user', content: [{ type: 'x', meta }] } },
      })
      for (const e of script) await session.append(e.type, e.data as never)
      const events = session.events()
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
      // The writer goes away (a file store holds its lock until closed), then a new one opens.
      await session.close()
      await store.close()
      const reopened = await openSession(connect(b), { id: 's1' })
      // The log ends mid-step, so reopening appended the repair's step/end and turn/end after it.
      expect(asJson(reopened.events().slice(0, events.length))).toBe(asJson(events))
      expect(
        reopened
          .events()
          .slice(events.length)
          .map((e) => e.type),
      ).toEqual(['step/end', 'turn/end'])
      expect(Object.isFrozen(reopened.events()[3]!.data)).toBe(true)
      const rows = await connect(b).listSessions()
      expect(rows.find((r) => r.id === 's1')?.events).toBe(events.length + 2)
    })

    it('L1.4: appends are applied in call order and durable when they resolve', async () => {
      const b = backing()
      const session = await openSession(connect(b), { id: 'order' })
      const script = scriptTurns(2, seededRandom(3))
      const resolved: number[] = []
      await Promise.all(
        script.map((e) => session.append(e.type, e.data as never).then((ev) => resolved.push(ev.seq))),
      )
      expect(resolved).toEqual(script.map((_, i) => i + 1))
      expect(session.events().map((e) => e.type)).toEqual(script.map((e) => e.type))
      const other = await connect(b).load('order')
      expect(asJson(other)).toBe(asJson(session.events()))
    })

    it('L1.4: appendBatch lands all events at once, or none when one breaks an invariant', async () => {
      const b = backing()
      const session = await openSession(connect(b), { id: 'batch' })
      const [start, step] = scriptTurns(1, seededRandom(1))
      await session.appendBatch([start!, step!])
      const bad = session.appendBatch([
        { type: 'step/end', data: { turn: 1, step: 1 } },
        {
          type: 'tool/result',
          data: { turn: 1, step: 1, callId: 'nope', name: 'x', content: [], isError: false },
        },
      ])
      await expect(bad).rejects.toThrow(/invariant violated: tool\/result "nope" has no earlier tool\/call/)
      expect(session.events().length).toBe(2)
      expect((await connect(b).load('batch')).length).toBe(2)
    })

    it('L1.1: a second writer gets a conflict error and nothing already written changes', async () => {
      const b = backing()
      const firstStore = connect(b)
      const first = await openSession(firstStore, { id: 'shared' })
      await first.append('turn/start', { turn: 1 })
      await first.append('step/start', { turn: 1, step: 1 })
      const before = asJson(first.events())
      // A stale writer: a store object whose view of the log is older than the log.
      const secondStore = connect(b)
      if (secondStore !== firstStore) {
        await expect(openSession(secondStore, { id: 'shared' })).rejects.toThrow(
          /is held by another live writer/,
        )
      }
      const stale = [{ seq: 1, type: 'turn/start', data: { turn: 1 } }] as SessionEvent[]
      const error = await secondStore.append('shared', stale).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ToolError)
      expect((error as ToolError).code).toBe('INVARIANT')
      expect((error as ToolError).message).toMatch(/another writer.*(seq|holds)|another writer/)
      expect((error as ToolError).message).toMatch(/reopen/)
      expect(asJson(await connect(b).load('shared'))).toBe(before)
      // The first writer is unaffected.
      await first.append('step/end', { turn: 1, step: 1 })
      expect(first.events().length).toBe(3)
    })

    it('L14.1, L14.4: a session another store object holds is refused and not repaired; session.close() gives the lease back so a new store object opens it', async () => {
      const b = backing()
      const firstStore = connect(b)
      const first = await openSession(firstStore, { id: 'lease' })
      await first.append('turn/start', { turn: 1 })
      const secondStore = connect(b)
      if (secondStore !== firstStore) {
        await expect(openSession(secondStore, { id: 'lease' })).rejects.toThrow(
          /^invariant violated: session "lease" is held by another live writer \(.+\) whose lease runs until \S+Z unless it renews it; it was not opened and nothing in it was repaired/,
        )
      }
      expect((await secondStore.load('lease')).map((e) => e.type)).toEqual(['turn/start'])
      await first.close()
      const second = await openSession(secondStore, { id: 'lease' })
      // The turn the closed writer left open is repaired by the new holder.
      expect(second.events().map((e) => e.type)).toEqual(['turn/start', 'turn/end'])
      await second.append('turn/start', { turn: 2 })
      expect((await connect(b).load('lease')).length).toBe(3)
    })

    it('L1.1: sessions are independent and all listed', async () => {
      const store = connect(backing())
      const a = await openSession(store, { id: 'a' })
      const c = await openSession(store, { id: 'c' })
      await a.append('turn/start', { turn: 1 })
      await a.append('turn/end', { turn: 1, reason: 'completed' })
      await c.append('turn/start', { turn: 1 })
      const rows = await store.listSessions()
      expect(Object.fromEntries(rows.map((r) => [r.id, r.events]))).toEqual({ a: 2, c: 1 })
    })

    it('L14.6: a second openSession on the same store object while a handle has the session open is refused, repairs nothing, and the live handle keeps writing', async () => {
      const store = connect(backing())
      const live = await openSession(store, { id: 'owned' })
      await live.append('turn/start', { turn: 1 })
      await live.append('step/start', { turn: 1, step: 1 })
      const refused = openSession(store, { id: 'owned' })
      await expect(refused).rejects.toThrow(
        'invariant violated: session "owned" is open in another handle of this store object, which holds its lease until that handle is closed; it was not opened again and nothing in it was repaired — use the open handle, or close it (session.close()) and then open the session again',
      )
      await expect(refused).rejects.toSatisfy(isLeaseHeld)
      // The running turn was not cut short: no turn/end, and the owner goes on appending.
      await live.append('step/end', { turn: 1, step: 1 })
      await live.append('turn/end', { turn: 1, reason: 'completed' })
      expect((await store.load('owned')).map((e) => e.type)).toEqual([
        'turn/start',
        'step/start',
        'step/end',
        'turn/end',
      ])
      await live.close()
      const next = await openSession(store, { id: 'owned' })
      expect(next.events()).toHaveLength(4)
      await next.close()
    })

    it('F1.9: every openSession takes a larger lease epoch, through the same store object or another', async () => {
      const b = backing()
      const epochs: number[] = []
      for (let i = 0; i < 3; i++) {
        const store = connect(b)
        const session = await openSession(store, { id: 'epochs' })
        epochs.push(session.epoch)
        await session.close()
      }
      const other = await openSession(connect(b), { id: 'other' })
      expect(other.epoch).toBe(1)
      await other.close()
      expect(epochs[0]).toBe(1)
      expect(epochs).toEqual([...epochs].sort((x, y) => x - y))
      expect(new Set(epochs).size).toBe(3)
    })
  })
}
