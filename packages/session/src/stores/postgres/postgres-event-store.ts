/**
 * The SSE events of a resumable MCP HTTP endpoint kept in the session store's PostgreSQL database
 * (Y1.34): the MCP SDK's `EventStore` methods over one table, so every server instance on the
 * database, and a restarted one, replays what another stored.
 */
import { definitionError } from '@tooltx/core/internal'
import { describeConnection, loadPg, type PgPool } from './postgres-driver.js'

/** The table the events live in. */
export const MCP_EVENTS_TABLE = 'tooltx_mcp_events'

/** Events one stream keeps by default before its oldest are deleted. */
export const DEFAULT_DB_EVENTS_PER_STREAM = 1_000

/** Options of {@link postgresEventStore}. */
export interface PostgresEventStoreOptions {
  /** Events kept per stream; default {@link DEFAULT_DB_EVENTS_PER_STREAM}. */
  maxEventsPerStream?: number
}

/** The SDK's `EventStore` shape (`@modelcontextprotocol/server`), and `close`. */
export interface DatabaseEventStore {
  storeEvent(streamId: string, message: unknown): Promise<string>
  getStreamIdForEventId(eventId: string): Promise<string | undefined>
  replayEventsAfter(
    lastEventId: string,
    handlers: { send: (eventId: string, message: never) => Promise<void> },
  ): Promise<string>
  /** Ends the pool the store opened (not one it was given). */
  close(): Promise<void>
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${MCP_EVENTS_TABLE} (
  id BIGSERIAL PRIMARY KEY,
  stream TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ${MCP_EVENTS_TABLE}_stream ON ${MCP_EVENTS_TABLE} (stream, id)`

/** `<stream>#<id>` read back; `undefined` for an id the store did not make. */
function parseId(eventId: string): { stream: string; id: string } | undefined {
  const at = eventId.lastIndexOf('#')
  const id = eventId.slice(at + 1)
  return at > 0 && /^[1-9]\d{0,18}$/.test(id) ? { stream: eventId.slice(0, at), id } : undefined
}

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
  const keep = options.maxEventsPerStream ?? DEFAULT_DB_EVENTS_PER_STREAM
  if (!Number.isInteger(keep) || keep < 1)
    throw definitionError('postgresEventStore: maxEventsPerStream must be a positive integer')
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
      if (stream === undefined) throw new Error(`event id ${lastEventId} is not in the event store`)
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
