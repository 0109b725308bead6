/**
 * N1: what is particular to the PostgreSQL store — text columns that keep event JSON byte for
 * byte, the unique (session, seq) key under a batch, a caller's pool, and `pg` loaded only
 * when the store is used.
 */
import { stringifyJson } from '@tooltx/core'
import pg from 'pg'
import { afterAll, expect, it } from 'vitest'
import { openSession, postgresStore, type SessionEvent } from '../src/index.js'
import { child, exited, lines } from './child-process.js'
import { describePostgres, freshPostgres } from './postgres.js'

const pools: pg.Pool[] = []
afterAll(async () => {
  for (const pool of pools) await pool.end()
})
const poolFor = (url: string): pg.Pool => {
  const pool = new pg.Pool({ connectionString: url })
  pools.push(pool)
  return pool
}

it('N1.1: importing @tooltx/session does not load pg; creating a postgresStore does', async () => {
  const proc = child('pg-loading.mjs')
  const out = lines(proc)
  await exited(proc)
  expect(out.all).toEqual(['after import false', 'after postgresStore true'])
})

describePostgres('N1 postgresStore', () => {
  it('N1.2: events are stored as text exactly as stringifyJson wrote them: key order and numbers kept, unlike jsonb', async () => {
    const url = await freshPostgres()
    const store = postgresStore(url)
    const session = await openSession(store, { id: 'text' })
    const message = {
      role: 'user' as const,
      content: [{ type: 'x', z: 1, a: 1e21, m: { y: 2.5e-7, b: 0.1 } }],
    }
    await session.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      { type: 'user/message', data: { turn: 1, step: 1, message } },
    ])
    const pool = poolFor(url)
    const column = await pool.query(
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'tooltx_events' AND column_name = 'data' AND table_schema = current_schema()",
    )
    expect(column.rows).toEqual([{ data_type: 'text' }])
    const row = await pool.query(
      "SELECT data, data::jsonb::text AS jsonb FROM tooltx_events WHERE session = 'text' AND seq = 3",
    )
    const written = stringifyJson(session.events()[2]!.data as never)
    expect(row.rows[0].data).toBe(written)
    expect(written).toContain('"z":1,"a":1e+21,"m":{"y":2.5e-7,"b":0.1}')
    // What jsonb would have kept instead: keys reordered, the number rewritten.
    expect(row.rows[0].jsonb).not.toBe(written)
    await store.close()
    const reopened = postgresStore(url)
    expect(JSON.stringify(await reopened.load('text'))).toBe(JSON.stringify(session.events()))
    await reopened.close()
  })

  it('N1.2: a batch that meets an existing (session, seq) row lands nothing, and the session count stays', async () => {
    const url = await freshPostgres()
    const store = postgresStore(url)
    const session = await openSession(store, { id: 'batch' })
    await session.append('turn/start', { turn: 1 })
    const pool = poolFor(url)
    // A row another writer got in at seq 3 without moving the count (the key alone must stop the batch).
    await pool.query(
      "INSERT INTO tooltx_events (session, seq, type, data, crc) VALUES ('batch', 3, 'x', '{}', 0)",
    )
    const batch = [
      { seq: 2, type: 'step/start', data: { turn: 1, step: 1 } },
      { seq: 3, type: 'step/end', data: { turn: 1, step: 1 } },
    ] as SessionEvent[]
    await expect(store.append('batch', batch)).rejects.toThrow(
      'session "batch" has another writer that already appended seq 1',
    )
    const rows = await pool.query("SELECT seq FROM tooltx_events WHERE session = 'batch' ORDER BY seq")
    expect(rows.rows.map((r) => r.seq)).toEqual([1, 3])
    const count = await pool.query("SELECT events FROM tooltx_sessions WHERE id = 'batch'")
    expect(count.rows).toEqual([{ events: 1 }])
    await store.close()
  })

  it('N1.6: a pg.Pool passed in stays the caller’s: closing the store gives back its lease and leaves the pool open', async () => {
    const url = await freshPostgres()
    const pool = poolFor(url)
    const store = postgresStore(pool)
    const session = await openSession(store, { id: 'pooled' })
    await session.append('turn/start', { turn: 1 })
    await store.close()
    const row = await pool.query("SELECT events, token FROM tooltx_sessions WHERE id = 'pooled'")
    expect(row.rows).toEqual([{ events: 1, token: null }])
    expect(() => postgresStore({} as never)).toThrow(
      'postgresStore needs a connection string (postgres://…) or a pg.Pool',
    )
  })
})
