/**
 * PostgreSQL faults under a live session (N1.7) and fencing an external system (F1.10): real
 * connections of the test server killed with `pg_terminate_backend`, only this file's own
 * (found by their `application_name`), and a store whose process stalls past its lease.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { expect, it } from 'vitest'
import { isLeaseHeld, openSession, type PgPool, postgresStore } from '../src/index.js'
import { describePostgres, freshPostgres, PG_URL } from './postgres.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `place` with its connections named `app`, so the test can find and kill exactly those. */
function named(place: string, app: string): string {
  const url = new URL(place)
  url.searchParams.set('application_name', app)
  return url.toString()
}

/** Kills every backend named `app` and resolves once none is left in pg_stat_activity. */
async function killBackends(app: string): Promise<number> {
  const admin = new pg.Client({ connectionString: PG_URL })
  await admin.connect()
  try {
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [app],
    )
    for (let i = 0; i < 100; i++) {
      const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [app])
      if (left.rowCount === 0) break
      await sleep(20)
    }
    return killed.rowCount ?? 0
  } finally {
    await admin.end()
  }
}

/**
 * A real `pg.Pool` whose queries can be held back, as if its process were paused (a long GC, a
 * stopped container): `pause()` makes every query wait until `resume()`.
 */
function pausablePool(connectionString: string) {
  const pool = new pg.Pool({ connectionString })
  pool.on('error', () => {})
  let gate: Promise<void> = Promise.resolve()
  let open = (): void => {}
  const through = async <T>(run: () => Promise<T>): Promise<T> => {
    await gate
    return run()
  }
  const wrapped = {
    query: (text: string, values?: unknown[]) => through(() => pool.query(text, values)),
    connect: async () => {
      const client = await pool.connect()
      return {
        query: (text: string, values?: unknown[]) => through(() => client.query(text, values)),
        on: (event: 'error', listener: (error: Error) => void) => client.on(event, listener),
        release: (destroy?: boolean) => client.release(destroy),
      }
    },
    end: () => pool.end(),
    on: (event: 'error', listener: (error: Error) => void) => pool.on(event, listener),
  }
  return {
    pool: wrapped as unknown as PgPool,
    pause() {
      gate = new Promise((resolve) => {
        open = resolve
      })
    },
    resume() {
      open()
    },
  }
}

/** The external system of F1.10: a row per resource that keeps the largest fencing token it saw. */
async function fencedTable(place: string) {
  const db = new pg.Pool({ connectionString: place })
  await db.query('CREATE TABLE stock (sku text PRIMARY KEY, count integer NOT NULL, fence bigint NOT NULL)')
  return {
    db,
    /** True when the write landed: no writer with a larger token wrote the row before. */
    async set(sku: string, count: number, fence: number): Promise<boolean> {
      const written = await db.query(
        `INSERT INTO stock AS s (sku, count, fence) VALUES ($1, $2, $3)
         ON CONFLICT (sku) DO UPDATE SET count = excluded.count, fence = excluded.fence
         WHERE s.fence <= excluded.fence`,
        [sku, count, fence],
      )
      return written.rowCount === 1
    },
  }
}

describePostgres('N1.7 F1.10: PostgreSQL faults and fencing tokens', () => {
  it('N1.7: killed backends lose nothing acknowledged: the next append lands, and the holder keeps its lease, re-bound to its new connection', async () => {
    const app = `tooltx-n17-${randomUUID().slice(0, 8)}`
    const place = await freshPostgres()
    const store = postgresStore(named(place, app), { leaseMs: 600 })
    const other = postgresStore(place)
    const session = await openSession(store, { id: 'kept' })
    await session.append('turn/start', { turn: 1 })
    expect(await killBackends(app)).toBeGreaterThanOrEqual(2)
    // The pool replaces its connections: an append rejects only with the driver's own error,
    // and then lands, or lands at once; either way the log holds exactly what resolved.
    let failure: unknown
    try {
      await session.append('step/start', { turn: 1, step: 1 })
    } catch (error) {
      failure = error
      await session.append('step/start', { turn: 1, step: 1 })
    }
    if (failure !== undefined) expect(String(failure)).toMatch(/terminat|Connection/i)
    await session.append('step/end', { turn: 1, step: 1 })
    // A heartbeat (every 200 ms) re-binds the lease to the new lease connection, so the dead
    // backend does not free it: another store is still refused.
    await sleep(450)
    await expect(openSession(other, { id: 'kept' })).rejects.toSatisfy(isLeaseHeld)
    await session.append('turn/end', { turn: 1, reason: 'completed' })
    expect((await other.load('kept')).map((e) => e.type)).toEqual([
      'turn/start',
      'step/start',
      'step/end',
      'turn/end',
    ])
    await session.close()
    const next = await openSession(other, { id: 'kept' })
    expect(next.epoch).toBe(2)
    await next.close()
    await store.close()
    await other.close()
  })

  it('F1.10: an owner that stalled past its lease is taken over with a larger epoch; its late write is refused by a table that keeps the largest token, and its append is fenced', async () => {
    const place = await freshPostgres()
    const stalled = pausablePool(place)
    const table = await fencedTable(place)
    const oldStore = postgresStore(stalled.pool, { leaseMs: 300 })
    const newStore = postgresStore(place)
    const old = await openSession(oldStore, { id: 'stock' })
    expect(await table.set('A-1', 5, old.epoch)).toBe(true)
    // The old owner stalls: its heartbeat cannot renew, and its lease runs out.
    stalled.pause()
    await sleep(450)
    const owner = await openSession(newStore, { id: 'stock' })
    expect(owner.epoch).toBeGreaterThan(old.epoch)
    expect(await table.set('A-1', 7, owner.epoch)).toBe(true)
    // It wakes and finishes what it had started: the table refuses the stale token…
    stalled.resume()
    expect(await table.set('A-1', 3, old.epoch)).toBe(false)
    // …and the log refuses its append (L14.5).
    await expect(old.append('turn/start', { turn: 1 })).rejects.toThrow(/took over this writer's lease/)
    expect((await table.db.query('SELECT count, fence FROM stock')).rows).toEqual([
      { count: 7, fence: String(owner.epoch) },
    ])
    await owner.close()
    await newStore.close()
    await oldStore.close()
    await stalled.pool.end()
    await table.db.end()
  })
})
