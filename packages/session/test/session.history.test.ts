import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppendOnlyList, deriveMessages, memoryStore, openSession } from '../src/index.js'
import { scriptTurns, seededRandom } from './log-script.js'

describe('Q1 derived messages as a persistent list', () => {
  it('Q1.1: a list snapshot behaves like the frozen array of its prefix, across chunk boundaries (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.tuple(fc.integer({ min: -3500, max: 3500 }), fc.integer({ min: -3500, max: 3500 })), {
          maxLength: 6,
        }),
        (size, bounds) => {
          const list = new AppendOnlyList<number>()
          const taken: [ReturnType<typeof list.snapshot>, number][] = []
          for (let i = 0; i < size; i++) {
            list.push(i)
            if (i % 997 === 0) taken.push([list.snapshot(), i + 1])
          }
          const array = Array.from({ length: size }, (_, i) => i)
          const snap = list.snapshot()
          expect(snap.length).toBe(size)
          expect([...snap]).toEqual(array)
          expect(snap.slice()).toEqual(array)
          expect(Object.isFrozen(snap.slice())).toBe(true)
          expect(JSON.stringify(snap)).toBe(JSON.stringify(array))
          for (const [start, end] of bounds) {
            expect(snap.slice(start, end)).toEqual(array.slice(start, end))
            expect(snap.slice(start)).toEqual(array.slice(start))
            expect(snap.at(start)).toBe(array.at(start))
          }
          // Earlier snapshots still show exactly their prefix.
          for (const [old, length] of taken) expect([...old]).toEqual(array.slice(0, length))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('Q1.1: history() holds the messages of messages(), is stable between appends, and an append never changes it', async () => {
    const session = await openSession(memoryStore(), { id: 'h' })
    const script = scriptTurns(3, seededRandom(11))
    const half = Math.floor(script.length / 2)
    for (const e of script.slice(0, half)) await session.append(e.type, e.data as never)
    const before = session.history()
    const snapshot = before.slice()
    expect(Object.isFrozen(before)).toBe(true)
    expect(session.history()).toBe(before)
    expect(before.length).toBe(session.messages().length)
    for (let i = 0; i < before.length; i++) expect(before.at(i)).toBe(session.messages()[i])
    for (const e of script.slice(half)) await session.append(e.type, e.data as never)
    expect(before.slice()).toEqual(snapshot)
    const after = session.history()
    expect(after).not.toBe(before)
    expect(JSON.stringify(after)).toBe(JSON.stringify(deriveMessages(session.events())))
    for (let i = 0; i < before.length; i++) expect(after.at(i)).toBe(before.at(i))
  })

  it('Q1.1: history() equals a from-scratch replay after every append past several chunks (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const rand = seededRandom(seed)
        const session = await openSession(memoryStore(), { id: 'p' })
        const script = scriptTurns(60, rand)
        for (let i = 0; i < script.length; ) {
          const chunk = script.slice(i, i + 1 + Math.floor(rand() * 40))
          i += chunk.length
          await session.appendBatch(chunk)
          const history = session.history()
          expect(history.length).toBe(session.messages().length)
          expect(JSON.stringify(history)).toBe(JSON.stringify(deriveMessages(session.events())))
        }
      }),
      { numRuns: 5 },
    )
  })
})
