import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  defaultSqliteDriver,
  loadSqliteDriver,
  openSession,
  sqliteReader,
  sqliteStore,
} from '../src/index.js'

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function storedSession(db: string, id: string): Promise<void> {
  const store = sqliteStore(db)
  const session = await openSession(store, { id })
  await session.append('turn/start', { turn: 1 })
  await session.append('turn/end', { turn: 1, reason: 'completed' })
  await session.close()
  await store.close()
}

describe('sqliteReader', () => {
  it('K3.2: a missing file gives no reader and creates nothing; an unknown session reads as undefined and is not created', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tooltx-reader-'))
    const missing = path.join(dir, 'nested', 'none.db')
    expect(sqliteReader(missing)).toBeUndefined()
    expect(existsSync(path.join(dir, 'nested'))).toBe(false)

    const db = path.join(dir, 's.db')
    await storedSession(db, 'one')
    const reader = sqliteReader(db)!
    expect(await reader.read('two')).toBeUndefined()
    expect((await reader.read('one'))?.map((event) => event.type)).toEqual(['turn/start', 'turn/end'])
    expect((await reader.listSessions()).map((info) => info.id)).toEqual(['one'])
    await reader.close()
  })

  it('K3.6: a row that is not JSON fails the store and the reader naming the database, session and seq', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tooltx-reader-'))
    const db = path.join(dir, 's.db')
    await storedSession(db, 'one')
    // A row without a checksum (as written before checksums, L11.7) whose data is not JSON.
    const raw = loadSqliteDriver(defaultSqliteDriver()).open(db)
    raw.prepare("UPDATE events SET crc = NULL WHERE session = 'one'").run()
    raw.prepare("UPDATE events SET data = 'nope' WHERE session = 'one' AND seq = 2").run()
    raw.close()
    const expected = new RegExp(
      `^invariant violated: session "one" in ${db} is damaged at seq 2 \\(turn/end\\): its data is not JSON \\(.+\\); it was left unchanged — restore it from a backup$`,
    )
    const reader = sqliteReader(db)!
    await expect(reader.read('one')).rejects.toThrow(expected)
    await reader.close()
    const store = sqliteStore(db)
    await expect(store.load('one')).rejects.toMatchObject({
      code: 'INVARIANT',
      message: expect.stringMatching(expected),
    })
    await store.close()
  })
})
