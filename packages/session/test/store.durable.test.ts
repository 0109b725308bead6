import { spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DEFAULT_SQLITE_PATH, fileStore, openSession, type SessionEvent, sqliteStore } from '../src/index.js'
import { formatBatch } from '../src/stores/file/jsonl-log.js'
import { loadSqliteDriver } from '../src/stores/sqlite/sqlite-driver.js'
import { SQLITE_DRIVERS } from './sqlite-drivers.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-durable-')
let n = 0
const fresh = (): string => join(root, `d${n++}`)
const openDefault = (path: string) =>
  loadSqliteDriver(SQLITE_DRIVERS.find((d) => d.isDefault)!.driver).open(path)

async function twoEvents(dir: string): Promise<string> {
  const store = fileStore(dir)
  const s = await openSession(store, { id: 'log' })
  await s.append('turn/start', { turn: 1 })
  await s.append('turn/end', { turn: 1, reason: 'completed' })
  await store.close()
  return join(dir, 'log.jsonl')
}

describe('fileStore', () => {
  it('L1.6: a torn last line (a crash mid-write) is cut off on open, never kept', async () => {
    const dir = fresh()
    const file = await twoEvents(dir)
    const intact = readFileSync(file, 'utf8')
    appendFileSync(file, '{"seq":3,"type":"turn/start","da')
    const store = fileStore(dir)
    const s = await openSession(store, { id: 'log' })
    expect(s.events()).toHaveLength(2)
    expect(readFileSync(file, 'utf8')).toBe(intact)
    await s.append('turn/start', { turn: 2 })
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(4)
    await store.close()
  })

  it('L1.4: an incomplete batch is cut off whole, so a batch lands all or nothing', async () => {
    const dir = fresh()
    const file = await twoEvents(dir)
    const intact = readFileSync(file, 'utf8')
    const batch = formatBatch([
      { seq: 3, type: 'turn/start', data: { turn: 2 } },
      { seq: 4, type: 'turn/end', data: { turn: 2, reason: 'completed' } },
    ] as SessionEvent[])
    appendFileSync(file, batch.subarray(0, batch.indexOf('\n') + 12))
    const store = fileStore(dir)
    expect(await store.load('log')).toHaveLength(2)
    expect(readFileSync(file, 'utf8')).toBe(intact)
    await store.close()
  })

  it('L1.6: a malformed line before the end is damage: open rejects and the file is left unchanged', async () => {
    const dir = fresh()
    const file = await twoEvents(dir)
    const damaged = readFileSync(file, 'utf8').replace('"turn":1,"reason"', '"turn":1,,"reason"')
    writeFileSync(file, `${damaged}{"seq":3,"type":"turn/start","data":{"turn":2}}\n`)
    const store = fileStore(dir)
    await expect(openSession(store, { id: 'log' })).rejects.toThrow(/log\.jsonl is damaged at line 2/)
    expect(readFileSync(file, 'utf8')).toContain(',,')
    await store.close()
  })

  it('L1.1: a lock left by a dead process is taken over; a live holder makes appends conflict', async () => {
    const dir = fresh()
    const file = await twoEvents(dir)
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!
    writeFileSync(`${file}.lock`, `${dead} deadbeef`)
    const store = fileStore(dir)
    const s = await openSession(store, { id: 'log' })
    await s.append('turn/start', { turn: 2 })
    await s.append('turn/end', { turn: 2, reason: 'completed' })
    expect(readFileSync(`${file}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} `))
    const other = fileStore(dir)
    await expect(openSession(other, { id: 'log' })).rejects.toThrow(
      /is held by another live writer \(another store object in this process\)/,
    )
    expect(await other.load('log')).toHaveLength(4)
    const next = [{ seq: 5, type: 'turn/start', data: { turn: 3 } }] as SessionEvent[]
    await expect(other.append('log', next)).rejects.toThrow(
      /has another writer \(another store object in this process\) that already appended seq 4/,
    )
    await store.close()
    expect(existsSync(`${file}.lock`)).toBe(false)
    // Once the holder is gone, the reader can take over.
    await other.append('log', next)
    await other.close()
  })
})

describe('sqliteStore', () => {
  it('L1.4: the database runs in WAL mode with a unique (session, seq) key and a sessions listing', async () => {
    const path = join(fresh(), 'a', 'b', 'sessions.db')
    const store = sqliteStore(path)
    const s = await openSession(store, { id: 'q' })
    await s.append('turn/start', { turn: 1 })
    const db = openDefault(path)
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(() =>
      db.prepare("INSERT INTO events (session, seq, type, data) VALUES ('q', 1, 'turn/start', '{}')").run(),
    ).toThrow(/UNIQUE|PRIMARY/)
    expect(
      db
        .prepare('SELECT id, events FROM sessions')
        .all()
        .map((r) => ({ ...(r as object) })),
    ).toEqual([{ id: 'q', events: 1 }])
    db.close()
    await store.close()
  })

  it('L1.1: the embedded default path is .tooltx/sessions.db', () => {
    expect(DEFAULT_SQLITE_PATH).toBe('.tooltx/sessions.db')
  })
})
