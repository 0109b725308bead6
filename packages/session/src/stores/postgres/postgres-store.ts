import { hostname } from 'node:os'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import { definitionError } from '@tooltx/core/internal'
import type { SessionEvent } from '../../log/events.js'
import { checksumOf } from '../event-rows.js'
import {
  Heartbeat,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
  leaseMsOf,
  OpenHandles,
} from '../lease.js'
import { lockContent } from '../process-identity.js'
import { conflictError, type SessionStore } from '../store.js'
import { describeConnection, loadPg, type PgPool, type PgPoolClient } from './postgres-driver.js'
import { createSchema, listSessionRows, POSTGRES_CHANNEL, readEvents } from './postgres-schema.js'

/** Options of `postgresStore`. */
export interface PostgresStoreOptions extends LeaseOptions {}

/** PostgreSQL's SQLSTATE for a unique violation. */
const UNIQUE_VIOLATION = '23505'

// One statement, so one implicit transaction and one round trip: the UPDATE moves the session's
// count on only from the seq before the batch and only while this store holds the lease (the
// stale-writer check and the fencing), renewing the lease; the INSERT runs only if it did; the
// notification is sent when it commits. Data is text: stringifyJson's output, byte for byte.
const APPEND = `
WITH advanced AS (
  UPDATE tooltx_sessions
  SET events = $3, updated = now(), expires = now() + $5 * interval '1 millisecond'
  WHERE id = $1 AND events = $2 AND token = $4
  RETURNING id
), inserted AS (
  INSERT INTO tooltx_events (session, seq, type, data, crc)
  SELECT a.id, u.seq, u.type, u.data, u.crc
  FROM advanced a, unnest($6::int4[], $7::text[], $8::text[], $9::int8[]) AS u(seq, type, data, crc)
)
SELECT pg_notify('${POSTGRES_CHANNEL}', $1 || ' ' || $3) FROM advanced`

// Takes the lease when there is none, it is this store's, it ran out, or the connection that
// took it is gone (its backend is no longer in pg_stat_activity). `backend` is the lease
// connection's own pid, so it names the connection whose closing frees the lease. Every take
// moves the session's epoch on (F1.9), the fencing token its tools get.
const ACQUIRE = `
INSERT INTO tooltx_sessions AS s (id, holder, token, backend, expires, epoch)
VALUES ($1, $2, $3, pg_backend_pid(), now() + $4 * interval '1 millisecond', 1)
ON CONFLICT (id) DO UPDATE
SET holder = excluded.holder, token = excluded.token, backend = excluded.backend, expires = excluded.expires,
  epoch = s.epoch + 1
WHERE s.token IS NULL OR s.token = excluded.token OR s.expires <= now()
  OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = s.backend)
RETURNING epoch::float8 AS epoch`

const LEASE_OF = 'SELECT events, holder, token, expires FROM tooltx_sessions WHERE id = $1'
const RELEASE = `UPDATE tooltx_sessions SET holder = NULL, token = NULL, backend = NULL, expires = NULL WHERE id = $1 AND token = $2`
const RELEASE_ALL = `UPDATE tooltx_sessions SET holder = NULL, token = NULL, backend = NULL, expires = NULL WHERE token = $1`
// Run over the lease connection, so it also re-binds the leases to that connection when a killed
// one was replaced (N1.7): otherwise the dead backend would free them to any other store.
const RENEW = `UPDATE tooltx_sessions SET expires = now() + $2 * interval '1 millisecond', backend = pg_backend_pid() WHERE token = $1`
const ENSURE = 'INSERT INTO tooltx_sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING'

interface LeaseRow {
  events: number
  holder: string | null
  token: string | null
  expires: Date | null
}

/**
 * A store in one PostgreSQL database (node-postgres, an optional peer dependency loaded only
 * here), for sessions that any machine may pick up. `connection` is a connection string (the
 * store makes a pool and ends it on `close`) or a `pg.Pool` (which stays the caller's). Tables
 * `tooltx_sessions` and `tooltx_events` are created on first use. Events are `text` rows keyed by
 * (session, seq) with a CRC-32, so a reopened log is byte-identical and a stale writer can never
 * append; an append is one statement, committed (and so durable, with the server's default
 * `synchronous_commit`) before it resolves, all rows or none, and notifies `tooltx_events`. A
 * session's lease (L14) is its row's `token`, taken over a dedicated connection whose backend
 * pid is recorded, so the lease is free once that connection closes or the lease runs out.
 * Throws `INVALID_DEFINITION` when `pg` cannot be loaded or `connection` is neither.
 */
export function postgresStore(connection: string | PgPool, options: PostgresStoreOptions = {}): SessionStore {
  const leaseMs = leaseMsOf(options)
  const owned = typeof connection === 'string'
  if (!owned && typeof (connection as PgPool | null)?.connect !== 'function') {
    throw definitionError('postgresStore needs a connection string (postgres://…) or a pg.Pool')
  }
  const where = owned ? describeConnection(connection) : 'the PostgreSQL database'
  const pool: PgPool = owned ? new (loadPg().Pool)({ connectionString: connection }) : connection
  // An idle pooled connection that the server closes must not crash the process.
  if (owned) pool.on('error', () => {})
  const token = lockContent().split(' ')[2]!
  const holder = `process ${process.pid} on ${hostname()}`
  const held = new Set<string>()
  const handles = new OpenHandles()
  let leaseClient: Promise<PgPoolClient> | undefined
  let ready: Promise<void> | undefined
  let closed = false

  const schema = (): Promise<void> => {
    ready ??= pool.connect().then(async (client) => {
      try {
        await createSchema(client)
      } finally {
        client.release()
      }
    })
    ready.catch(() => {
      ready = undefined
    })
    return ready
  }

  /**
   * The connection leases are taken and renewed over; a broken one is replaced at once, and the
   * leases held are renewed (so re-bound, N1.7) over the new one.
   */
  const leases = (): Promise<PgPoolClient> => {
    if (leaseClient === undefined) {
      const connecting = pool.connect()
      leaseClient = connecting
      connecting.then(
        (client) =>
          client.on('error', () => {
            if (leaseClient === connecting) leaseClient = undefined
            client.release(true)
            if (!closed && held.size > 0) renew()
          }),
        () => {
          if (leaseClient === connecting) leaseClient = undefined
        },
      )
    }
    return leaseClient
  }

  /** Renews every lease this store holds over the lease connection; never throws. */
  const renew = (): void => {
    void leases()
      .then((client) => client.query(RENEW, [token, leaseMs]))
      .catch(() => {})
  }
  const heartbeat = new Heartbeat(leaseMs, renew)

  /** Takes the lease of `id`; resolves with its new epoch, or with who holds it when another live writer does. */
  const takeLease = async (id: string): Promise<LeaseRow | number> => {
    await schema()
    const client = await leases()
    for (let attempt = 0; attempt < 3; attempt++) {
      const taken = await client.query(ACQUIRE, [id, holder, token, leaseMs])
      if (taken.rowCount === 1) {
        held.add(id)
        heartbeat.start()
        return (taken.rows[0] as { epoch: number }).epoch
      }
      const row = (await client.query(LEASE_OF, [id])).rows[0] as LeaseRow | undefined
      // The holder may have let go between the two statements: try again.
      if (row?.token != null) return row
    }
    return { events: 0, holder: 'a writer that keeps taking the lease', token: null, expires: new Date() }
  }

  const insert = async (id: string, events: readonly SessionEvent[]): Promise<boolean> => {
    const seqs: number[] = []
    const types: string[] = []
    const texts: string[] = []
    const crcs: number[] = []
    for (const { seq, type, data } of events) {
      const text = stringifyJson(data as unknown as JsonValue)
      seqs.push(seq)
      types.push(type)
      texts.push(text)
      crcs.push(checksumOf(seq, type, text))
    }
    const from = events[0]!.seq - 1
    const to = events[events.length - 1]!.seq
    try {
      const result = await pool.query(APPEND, [id, from, to, token, leaseMs, seqs, types, texts, crcs])
      return result.rowCount === 1
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false
      throw error
    }
  }

  const assertOpen = (): void => {
    if (closed) throw definitionError('this postgresStore is closed; create a new one')
  }

  return {
    async acquire(id) {
      assertOpen()
      handles.claim(id)
      try {
        const taken = await takeLease(id)
        if (typeof taken !== 'number')
          throw leaseHeldError(id, taken.holder ?? 'unknown', taken.expires!.getTime())
        return taken
      } catch (error) {
        handles.free(id)
        throw error
      }
    },
    async load(id) {
      assertOpen()
      await schema()
      await pool.query(ENSURE, [id])
      return readEvents(pool, where, id)
    },
    async append(id, events) {
      assertOpen()
      if (events.length === 0) return
      await schema()
      if (await insert(id, events)) return
      // Nothing was written: find out why, from the row as it is now.
      const row = (await pool.query(LEASE_OF, [id])).rows[0] as LeaseRow | undefined
      if (row !== undefined && row.token === token) throw conflictError(id, row.events)
      if (held.has(id) && row?.token != null) {
        held.delete(id)
        throw leaseLostError(id, row.holder ?? 'unknown')
      }
      // This store never held the lease (or gave it back): take it if it is free, then retry.
      const other = await takeLease(id)
      if (typeof other !== 'number') throw conflictError(id, other.events, other.holder ?? undefined)
      if (!(await insert(id, events))) {
        const now = (await pool.query(LEASE_OF, [id])).rows[0] as LeaseRow
        throw conflictError(id, now.events)
      }
    },
    async listSessions() {
      assertOpen()
      await schema()
      return listSessionRows(pool)
    },
    async release(id) {
      handles.free(id)
      if (closed || !held.delete(id)) return
      if (held.size === 0) heartbeat.stop()
      await pool.query(RELEASE, [id, token])
    },
    async close() {
      if (closed) return
      closed = true
      heartbeat.stop()
      handles.clear()
      try {
        if (held.size > 0) await pool.query(RELEASE_ALL, [token])
      } finally {
        held.clear()
        const client = await leaseClient?.catch(() => undefined)
        client?.release()
        if (owned) await pool.end()
      }
    },
  }
}
