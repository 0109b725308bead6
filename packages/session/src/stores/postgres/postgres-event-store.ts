/**
 * The SSE events of a resumable MCP HTTP endpoint kept in the session store's PostgreSQL database
 * (Y1.34): the MCP SDK's `EventStore` methods over one table, so every server instance on the
 * database, and a restarted one, replays what another stored.
 */
import { definitionError } from '@tooltx/core/internal'
import {
  type DatabaseEventStore,
  eventsPerStream,
  MCP_EVENTS_TABLE,
  parseEventId as parseId,
  unknownEventId,
} from '../mcp-events.js'
import { describeConnection, loadPg, type PgPool } from './postgres-driver.js'

/** Options of {@link postgresEventStore}. */
export interface PostgresEventStoreOptions {
  /** Events kept per stream; default `DEFAULT_DB_EVENTS_PER_STREAM`. */
  maxEventsPerStream?: number
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${MCP_EVENTS_TABLE} (
  id BIGSERIAL PRIMARY KEY,
  stream TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ${MCP_EVENTS_TABLE}_stream ON ${MCP_EVENTS_TABLE} (stream, id)`

/**
 * An event store in the PostgreSQL database `connection` (a connection string or a `pg.Pool`),
 * for `serveHttp({ eventStore })` (Y1.34). Event ids are `<stream>#<n>`, `n` the row's serial;
 * each stream keeps its latest `maxEventsPerStream` events; a replay after an id the table does
 * not hold (deleted, or never stored) rejects rather than deliver with a gap.
 */
export function postgresEventStore(
  connection: string | PgPool,
  options: PostgresEventStoreOptions = {},
): DatabaseEventStore {
  const keep = eventsPerStream('postgresEventStore', options)
  const owned = typeof connection === 'string'
  if (!owned && typeof (connection as PgPool | null)?.query !== 'function')
    throw definitionError('postgresEventStore needs a connection string (postgres://…) or a pg.Pool')
  const pool: PgPool = owned ? new (loadPg().Pool)({ connectionString: connection }) : connection
  if (owned) pool.on('error', () => {})
  const where = owned ? describeConnection(connection) : 'the PostgreSQL database'
  let ready: Promise<unknown> | undefined
  const schema = () => {
    ready ??= pool.query(SCHEMA).catch((error: unknown) => {
      ready = undefined
      throw new Error(`postgresEventStore: cannot create ${MCP_EVENTS_TABLE} in ${where}: ${String(error)}`)
    })
    return ready
  }
  const streamOf = async (eventId: string): Promise<string | undefined> => {
    const parsed = parseId(eventId)
    if (parsed === undefined) return undefined
    await schema()
    const found = await pool.query(`SELECT stream FROM ${MCP_EVENTS_TABLE} WHERE id = $1 AND stream = $2`, [
      parsed.id,
      parsed.stream,
    ])
    return found.rowCount === 1 ? parsed.stream : undefined
  }

  return {
    async storeEvent(streamId, message) {
      await schema()
      const stored = await pool.query(
        `INSERT INTO ${MCP_EVENTS_TABLE} (stream, message) VALUES ($1, $2) RETURNING id`,
        [streamId, JSON.stringify(message)],
      )
      const id = String((stored.rows[0] as { id: string | number }).id)
      // The stream keeps its latest `keep` events: the one before them and older go.
      await pool.query(
        `DELETE FROM ${MCP_EVENTS_TABLE} WHERE stream = $1 AND id <= (
           SELECT id FROM ${MCP_EVENTS_TABLE} WHERE stream = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
        [streamId, keep],
      )
      return `${streamId}#${id}`
    },
    getStreamIdForEventId: streamOf,
    async replayEventsAfter(lastEventId, { send }) {
      const stream = await streamOf(lastEventId)
      if (stream === undefined) throw unknownEventId(lastEventId)
      const after = parseId(lastEventId)!.id
      const rows = await pool.query(
        `SELECT id, message FROM ${MCP_EVENTS_TABLE} WHERE stream = $1 AND id > $2 ORDER BY id`,
        [stream, after],
      )
      for (const row of rows.rows as { id: string | number; message: string }[])
        await send(`${stream}#${row.id}`, JSON.parse(row.message) as never)
      return stream
    },
    async close() {
      if (owned) await pool.end()
    },
  }
}
