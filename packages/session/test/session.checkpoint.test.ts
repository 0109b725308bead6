/**
 * L11.8, L11.9, Q4: checkpoints of the log state. The file and SQLite stores keep one per
 * session, an open reads it and the events after it, a checkpoint that fails any check is
 * ignored and rebuilt, and a session opened from one behaves exactly as one replayed whole.
 */
import { copyFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type JsonValue, stringifyJson, ToolError } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_CHECKPOINT_EVERY,
  deriveMessages,
  fileStore,
  type NewSessionEvent,
  openSession,
  planRepair,
  repairSession,
  type Session,
  type SessionStore,
  sqliteStore,
} from '../src/index.js'
import { LogState } from '../src/log/log-state.js'
import { defaultSqliteDriver, loadSqliteDriver } from '../src/stores/sqlite/sqlite-driver.js'
import { scriptTurns, seededRandom } from './log-script.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-checkpoint-')
let n = 0
const fresh = (): string => join(root, `c${n++}`)
const json = (value: unknown): string => stringifyJson(value as JsonValue)
const T = { turn: 1, step: 1 }
const user = (i: number, word: string): NewSessionEvent => ({
  type: 'user/message',
  data: { ...T, message: { role: 'user', content: [{ type: 'text', text: `${word} ${i}` }] } },
})

type Kind = 'file' | 'sqlite'
const KINDS: readonly Kind[] = ['file', 'sqlite']
const storeAt = (kind: Kind, place: string): SessionStore =>
  kind === 'file' ? fileStore(place) : sqliteStore(join(place, 's.db'))

/** A store that counts whole-log loads and records the tail a checkpointed open read. */
function watched(store: SessionStore) {
  const seen = { loads: 0, tail: -1, checkpoint: -1 }
  const wrapped: SessionStore = {
    ...store,
    load: (id) => {
      seen.loads++
      return store.load(id)
    },
    loadCheckpoint: async (id) => {
      const found = await store.loadCheckpoint!(id)
      seen.tail = found?.tail.length ?? -1
      seen.checkpoint = found?.seq ?? -1
      return found
    },
  }
  return { store: wrapped, seen }
}

/**
 * Writes an open turn of `count` events (turn/start, step/start, user messages saying
 * `<word> <i>`) in batches of 7, then closes the store. Checkpoints land on the first batch end
 * at least `every` events after the previous one.
 */
async function writeOpenTurn(
  store: SessionStore,
  id: string,
  count: number,
  every: number,
  word = 'line',
): Promise<void> {
  const s = await openSession(store, { id, checkpointEvery: every })
  const events: NewSessionEvent[] = [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: T },
  ]
  for (let i = 0; events.length < count; i++) events.push(user(i, word))
  for (let i = 0; i < events.length; i += 7) await s.appendBatch(events.slice(i, i + 7))
  await s.close()
  await store.close()
}

/** Runs `sql` on the SQLite store's database at `place`. */
function sql(place: string, statement: string, ...params: (string | number)[]): void {
  const db = loadSqliteDriver(defaultSqliteDriver()).open(join(place, 's.db'))
  try {
    db.prepare(statement).run(...params)
  } finally {
    db.close()
  }
}

describe('L11.8 checkpoints in the file and SQLite stores', () => {
  for (const kind of KINDS) {
    it(`L11.8, Q4.1: ${kind}: a checkpoint is saved every checkpointEvery events, and an open reads only the events after it`, async () => {
      const place = fresh()
      // Batch ends 7, 14, …, 91, 95: checkpoints at 35 and 70, so 25 events follow the last.
      await writeOpenTurn(storeAt(kind, place), 'big', 95, 30)
      const { store, seen } = watched(storeAt(kind, place))
      const s = await openSession(store, { id: 'big', checkpointEvery: 30, repair: false })
      expect(seen).toEqual({ loads: 0, checkpoint: 70, tail: 25 })
      expect(s.events().map((e) => e.seq)).toEqual(Array.from({ length: 95 }, (_, i) => i + 1))
      expect(s.messages().length).toBe(93)
      await store.close()
      if (kind === 'file') {
        const line = JSON.parse(readFileSync(join(place, 'big.jsonl.checkpoint'), 'utf8'))
        expect(Object.keys(line)).toEqual(['crc', 'session', 'seq', 'offset', 'from', 'anchor', 'state'])
        expect([line.session, line.seq, line.state.turn, line.state.stepOpen]).toEqual(['big', 70, 1, true])
      }
    })

    it(`L11.8: ${kind}: a checkpoint after events larger than the anchor window is used`, async () => {
      const place = fresh()
      const store = storeAt(kind, place)
      const s = await openSession(store, { id: 'wide', checkpointEvery: 3 })
      await s.appendBatch([
        { type: 'turn/start', data: { turn: 1 } },
        { type: 'step/start', data: T },
      ])
      for (let i = 0; i < 5; i++) await s.appendBatch([user(i, 'x'.repeat(10_000))])
      await s.close()
      await store.close()
      const { store: again, seen } = watched(storeAt(kind, place))
      const reopened = await openSession(again, { id: 'wide', checkpointEvery: 3, repair: false })
      expect(seen).toEqual({ loads: 0, checkpoint: 6, tail: 1 })
      expect(reopened.messages().length).toBe(5)
      await again.close()
    })

    it(`L11.8: ${kind}: with checkpointEvery Infinity no checkpoint is read or saved; a bad checkpointEvery throws INVALID_DEFINITION`, async () => {
      const place = fresh()
      await writeOpenTurn(storeAt(kind, place), 'none', 40, Number.POSITIVE_INFINITY)
      const { store, seen } = watched(storeAt(kind, place))
      await openSession(store, { id: 'none', checkpointEvery: Number.POSITIVE_INFINITY, repair: false })
      expect(seen).toEqual({ loads: 1, checkpoint: -1, tail: -1 })
      for (const bad of [0, 1.5, -3, Number.NaN, '10']) {
        await expect(
          openSession(store, { id: 'none', checkpointEvery: bad as number }),
        ).rejects.toMatchObject({
          code: 'INVALID_DEFINITION',
          message: `openSession checkpointEvery must be a positive integer or Infinity, got ${String(bad)}`,
        })
      }
      await store.close()
      // The whole log was read by the first open and nothing saved: the next open finds no checkpoint.
      const again = watched(storeAt(kind, place))
      await openSession(again.store, { id: 'none', checkpointEvery: 10, repair: false })
      expect(again.seen).toEqual({ loads: 1, checkpoint: -1, tail: -1 })
      await again.store.close()
      expect(DEFAULT_CHECKPOINT_EVERY).toBe(4096)
    })

    it(`L11.8: ${kind}: a store object without the session's lease saves no checkpoint`, async () => {
      const place = fresh()
      await writeOpenTurn(storeAt(kind, place), 'held', 20, 8)
      const holder = storeAt(kind, place)
      const s = await openSession(holder, { id: 'held', checkpointEvery: 8, repair: false })
      const other = storeAt(kind, place)
      await other.load('held')
      await other.saveCheckpoint!('held', 20, '{"v":1}')
      const found = await other.loadCheckpoint!('held')
      expect(found?.seq).toBe(14)
      expect(found?.state).toMatchObject({ v: 3, turn: 1 })
      await s.close()
      await holder.close()
      await other.close()
    })
  }
})

describe('L11.8 a checkpoint that fails a check is ignored and rebuilt, never trusted', () => {
  /** Opens `id` at `place`, expecting the whole log to be read and a fresh checkpoint at its end. */
  async function expectIgnored(kind: Kind, place: string, id: string, events: number): Promise<void> {
    const { store, seen } = watched(storeAt(kind, place))
    const s = await openSession(store, { id, checkpointEvery: 8, repair: false })
    expect(seen.loads).toBe(1)
    expect(s.events().length).toBe(events)
    expect(json(s.messages())).toBe(json(deriveMessages(s.events())))
    await store.close()
    const next = watched(storeAt(kind, place))
    await openSession(next.store, { id, checkpointEvery: 8, repair: false })
    expect(next.seen).toEqual({ loads: 0, checkpoint: events, tail: 0 })
    await next.store.close()
  }

  it('L11.8: file: a checkpoint with a flipped byte (corrupt) is ignored', async () => {
    const place = fresh()
    await writeOpenTurn(fileStore(place), 'a', 40, 8)
    const file = join(place, 'a.jsonl.checkpoint')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"turn":1', '"turn":2'))
    await expectIgnored('file', place, 'a', 40)
  })

  it("L11.8: file: another session's checkpoint, and a checkpoint over a log replaced by another log, are ignored", async () => {
    const place = fresh()
    await writeOpenTurn(fileStore(place), 'a', 40, 8)
    await writeOpenTurn(fileStore(place), 'b', 40, 8)
    copyFileSync(join(place, 'b.jsonl.checkpoint'), join(place, 'a.jsonl.checkpoint'))
    await expectIgnored('file', place, 'a', 40)
    // Same id and length, other events: the anchor bytes before the offset differ.
    const other = fresh()
    await writeOpenTurn(fileStore(other), 'a', 41, 8, 'other')
    copyFileSync(join(other, 'a.jsonl'), join(place, 'a.jsonl'))
    await expectIgnored('file', place, 'a', 41)
  })

  it('L11.8: file: a checkpoint past the end of a log restored from an older copy (stale) is ignored', async () => {
    const place = fresh()
    await writeOpenTurn(fileStore(place), 'a', 40, 8)
    const log = join(place, 'a.jsonl')
    const lines = readFileSync(log, 'utf8').split('\n')
    truncateSync(log, lines.slice(0, 28).join('\n').length + 1)
    await expectIgnored('file', place, 'a', 28)
  })

  it('L11.8: file: a checkpoint that verifies but holds a log state of another version is ignored', async () => {
    const place = fresh()
    await writeOpenTurn(fileStore(place), 'a', 40, 8)
    const store = fileStore(place)
    await store.acquire('a')
    await store.load('a')
    await store.saveCheckpoint!('a', 40, '{"v":99,"turn":1}')
    await store.close()
    expect(readFileSync(join(place, 'a.jsonl.checkpoint'), 'utf8')).toContain('"state":{"v":99,"turn":1}')
    await expectIgnored('file', place, 'a', 40)
  })

  it('L11.8: sqlite: a corrupt checkpoint row, one copied from another session, and one past the end of the log are ignored', async () => {
    const place = fresh()
    await writeOpenTurn(sqliteStore(join(place, 's.db')), 'a', 40, 8)
    await writeOpenTurn(sqliteStore(join(place, 's.db')), 'b', 40, 8)
    sql(place, `UPDATE checkpoints SET state = replace(state, '"turn":1', '"turn":2') WHERE session = 'a'`)
    await expectIgnored('sqlite', place, 'a', 40)
    sql(place, `DELETE FROM checkpoints WHERE session = 'a'`)
    sql(
      place,
      `INSERT INTO checkpoints SELECT 'a', seq, anchor, state, crc FROM checkpoints WHERE session = 'b'`,
    )
    await expectIgnored('sqlite', place, 'a', 40)
    // A log cut back (restored from an older copy): the anchored rows are gone.
    sql(place, `DELETE FROM events WHERE session = 'a' AND seq > 30`)
    sql(place, `UPDATE sessions SET events = 30 WHERE id = 'a'`)
    await expectIgnored('sqlite', place, 'a', 30)
  })
  it('L11.8: sqlite: a checkpoint whose state verifies but contradicts the events after it is ignored', async () => {
    const place = fresh()
    await writeOpenTurn(sqliteStore(join(place, 's.db')), 'a', 40, 8)
    const store = sqliteStore(join(place, 's.db'))
    await store.acquire('a')
    // The state of an empty log, at seq 20 of a log inside turn 1: its tail cannot follow it.
    await store.saveCheckpoint!('a', 20, json(new LogState().toJSON()))
    expect((await store.loadCheckpoint!('a'))?.seq).toBe(20)
    await store.close()
    await expectIgnored('sqlite', place, 'a', 40)
  })
})

describe('L11.9 what an open from a checkpoint verifies, and when', () => {
  for (const kind of KINDS) {
    it(`L11.9, L11.1: ${kind}: damage before the checkpoint is refused by the first events(), messages() or history(); damage after it by the open`, async () => {
      const place = fresh()
      // Checkpoints every 14 events up to 70 (past the file's 4 KiB anchor); seqs 71…80 follow.
      await writeOpenTurn(storeAt(kind, place), 'd', 80, 13)
      const edit = (seq: number) => {
        if (kind === 'sqlite') {
          sql(
            place,
            `UPDATE events SET data = replace(data, 'line', 'LINE') WHERE session = 'd' AND seq = ?`,
            seq,
          )
          return
        }
        const file = join(place, 'd.jsonl')
        const lines = readFileSync(file, 'utf8').split('\n')
        lines[seq - 1] = lines[seq - 1]!.replace('line', 'LINE')
        writeFileSync(file, lines.join('\n'))
      }
      edit(5)
      const store = storeAt(kind, place)
      const s = await openSession(store, { id: 'd', checkpointEvery: 13, repair: false })
      const where =
        kind === 'file'
          ? `file ${join(place, 'd.jsonl')} is damaged at line 5, seq 5 (its checksum does not match its content: it was changed after it was written); it was left unchanged — restore it from a backup or move it aside`
          : `in ${join(place, 's.db')} is damaged at seq 5 (user/message): its checksum does not match its content: the row was changed after it was written; it was left unchanged — restore it from a backup`
      const message = `invariant violated: session "d"${kind === 'file' ? ':' : ''} ${where}`
      for (const read of [() => s.events(), () => s.messages(), () => s.history()]) {
        expect(read).toThrow(ToolError)
        expect(read).toThrow(message)
      }
      await store.close()
      edit(78)
      const after = storeAt(kind, place)
      await expect(openSession(after, { id: 'd', checkpointEvery: 13 })).rejects.toMatchObject({
        code: 'INVARIANT',
        message: expect.stringContaining('damaged at') as string,
      })
      await after.close()
    })
  }

  it('L11.9, L11.4: file: a torn write after the checkpoint is cut on open, and the log continues from there', async () => {
    const place = fresh()
    await writeOpenTurn(fileStore(place), 't', 40, 13)
    const log = join(place, 't.jsonl')
    const whole = readFileSync(log, 'utf8')
    writeFileSync(log, `${whole}{"crc":"00000000","seq":41,"type":"user/mes`)
    const { store, seen } = watched(fileStore(place))
    const s = await openSession(store, { id: 't', checkpointEvery: 13, repair: false })
    expect(seen).toEqual({ loads: 0, checkpoint: 28, tail: 12 })
    expect(readFileSync(log, 'utf8')).toBe(whole)
    await s.append('user/message', user(99, 'after').data as never)
    expect(
      s
        .events()
        .map((e) => e.seq)
        .slice(-2),
    ).toEqual([40, 41])
    await store.close()
  })

  it('L11.9: sqlite: the events before the checkpoint, first asked for after the store closed, reject with what to do', async () => {
    const place = fresh()
    await writeOpenTurn(sqliteStore(join(place, 's.db')), 'late', 40, 13)
    const store = sqliteStore(join(place, 's.db'))
    const s = await openSession(store, { id: 'late', checkpointEvery: 13, repair: false })
    await s.close()
    await store.close()
    expect(() => s.events()).toThrow(
      /^invariant violated: session "late": the events before seq 29 could not be read from the store \(.+\); read them before closing the store$/,
    )
  })
})

describe('Q4.2 checkpoint + tail == full replay', () => {
  /** Appends `events` in chunks of 1–4 (batches or single appends), as a loop would. */
  async function write(s: Session, events: readonly NewSessionEvent[], rand: () => number): Promise<void> {
    for (let i = 0; i < events.length; ) {
      const chunk = events.slice(i, i + 1 + Math.floor(rand() * 4))
      i += chunk.length
      if (rand() < 0.5) await s.appendBatch(chunk)
      else for (const e of chunk) await s.append(e.type, e.data as never)
    }
  }

  for (const kind of KINDS) {
    it(`Q4.2, L9.1: ${kind}: for any log cut anywhere (a crash) and any checkpoint interval, the checkpointed open equals a whole replay: events, messages, repair and later appends (property)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 2 ** 31 - 1 }),
          fc.integer({ min: 1, max: 12 }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          async (seed, every, cutAt) => {
            const rand = seededRandom(seed)
            const place = fresh()
            const script = scriptTurns(3, rand)
            const cut = script.slice(0, Math.max(1, Math.floor(script.length * cutAt)))
            const writer = storeAt(kind, place)
            const w = await openSession(writer, { id: 'p', checkpointEvery: every })
            await write(w, cut, rand)
            await w.close()
            await writer.close()
            const stored = json(w.events())

            const { store, seen } = watched(storeAt(kind, place))
            const cp = await openSession(store, { id: 'p', checkpointEvery: every, repair: false })
            expect(seen.loads).toBe(cut.length >= every ? 0 : 1)
            expect(seen.tail).toBeLessThan(every + 4)
            // Crash repair from the restored state appends exactly what a whole replay plans.
            const plan = planRepair(w.events())
            const repaired = await repairSession(cp)
            expect(json(repaired.map(({ type, data }) => ({ type, data })))).toBe(json(plan))
            // The next turn is accepted (or refused) exactly as after a whole replay.
            const turn = [...w.events(), ...repaired].filter((e) => e.type === 'turn/start').length + 1
            const more = scriptTurns(turn, seededRandom(seed)).filter(
              (e) => (e.data as { turn?: number }).turn === turn,
            )
            await write(cp, more, rand)
            const all = json(cp.events())
            expect(all.startsWith(stored.slice(0, -1))).toBe(true)
            expect(json(cp.messages())).toBe(json(deriveMessages(cp.events())))
            await cp.close()
            await store.close()

            const whole = storeAt(kind, place)
            const full = await openSession(whole, { id: 'p', checkpointEvery: Number.POSITIVE_INFINITY })
            expect(json(full.events())).toBe(all)
            expect(json(full.messages())).toBe(json(cp.messages()))
            expect(json([...full.history()])).toBe(json([...cp.history()]))
            await whole.close()
            rmSync(place, { recursive: true, force: true })
          },
        ),
        { numRuns: 50 },
      )
    })
  }

  it('Q4.2: LogState.toJSON and LogState.restore carry every field (a new field must join the checkpoint)', () => {
    const state = new LogState()
    expect(Object.keys(state).sort()).toEqual([
      'assistant',
      'dispatches',
      'durable',
      'pendingApprovals',
      'started',
      'step',
      'stepOpen',
      'turn',
      'turnOpen',
    ])
    const restored = LogState.restore(JSON.parse(json(state.toJSON())))
    expect(json(restored?.toJSON())).toBe(json(state.toJSON()))
    for (const bad of [
      null,
      7,
      { v: 2 },
      { ...(state.toJSON() as object), turn: -1 },
      { ...(state.toJSON() as object), dispatches: [[1]] },
    ]) {
      expect(LogState.restore(bad)).toBeUndefined()
    }
  })

  it('F2.15, L11.8: a checkpoint whose durable ask holds a decision the decision rule refuses is not restored', () => {
    const where = { turn: 1, step: 1 }
    const asked = {
      ...where,
      callId: 'c1',
      name: 'pay',
      argumentsDigest: 'd',
      durable: true,
      expiresAt: '2030-01-01T00:00:00.000Z',
      deciders: ['ann'],
    }
    const decided = { ...where, callId: 'c1', name: 'pay', outcome: 'allowed-once', argumentsDigest: 'd' }
    const lawful = { ...decided, by: 'ann', decidedAt: '2029-01-01T00:00:00.000Z' }
    const checkpoint = (decision: object) => ({
      ...(new LogState().toJSON() as object),
      durable: [{ asked, decided: decision }],
    })
    expect(LogState.restore(checkpoint(lawful))).toBeDefined()
    for (const forged of [
      { ...lawful, by: 'mallory' },
      { ...lawful, argumentsDigest: 'e' },
      { ...lawful, decidedAt: '2031-01-01T00:00:00.000Z' },
      decided,
    ]) {
      expect(LogState.restore(checkpoint(forged))).toBeUndefined()
    }
  })
})
