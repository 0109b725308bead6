/**
 * The SSE events of a resumable MCP HTTP endpoint kept in a SQLite file, the session store's
 * (L11.10): the MCP SDK's `EventStore` methods over one table, so a server restarted on the file
 * replays what the one before it stored.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { definitionError } from '@tooltx/core/internal'
import {
  type DatabaseEventStore,
  eventsPerStream,
  MCP_EVENTS_TABLE,
  parseEventId,
  unknownEventId,
} from '../mcp-events.js'
import {
  defaultSqliteDriver,
  loadSqliteDriver,
  type SqliteConnection,
  type SqliteDriverName,
} from './sqlite-driver.js'

/** Options of {@link sqliteEventStore}. */
export interface SqliteEventStoreOptions {
  /** Events kept per stream; default `DEFAULT_DB_EVENTS_PER_STREAM`. */
  maxEventsPerStream?: number
  /** The driver that opens a path, as `sqliteStore` picks it (L11.6); ignored for a connection. */
  driver?: SqliteDriverName
}

// AUTOINCREMENT: a deleted row's id is never given again, so an old Last-Event-ID can never name
// a newer event.
const SCHEMA = `CREATE TABLE IF NOT EXISTS ${MCP_EVENTS_TABLE} (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stream TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ${MCP_EVENTS_TABLE}_stream ON ${MCP_EVENTS_TABLE} (stream, id)`

const isConnection = (db: unknown): db is SqliteConnection =>
  typeof (db as SqliteConnection | null)?.prepare === 'function' &&
  typeof (db as SqliteConnection).exec === 'function'

/**
 * An event store in the SQLite database `db` (a file path, opened with the session store's driver
 * choice, L11.6; or an open `node:sqlite` / better-sqlite3 connection), for
 * `serveHttp({ eventStore })` (L11.10). Same contract as `postgresEventStore` (Y1.34): ids
 * `<stream>#<n>`, each stream keeps its latest `maxEventsPerStream` events, a replay after an id
 * the table does not hold rejects rather than deliver with a gap. Throws `INVALID_DEFINITION` for
 * a bad bound, a `db` that is neither, or a driver that cannot load (naming what to install).
 */
export function sqliteEventStore(
  db: string | SqliteConnection,
  options: SqliteEventStoreOptions = {},
): DatabaseEventStore {
  const keep = eventsPerStream('sqliteEventStore', options)
  const owned = typeof db === 'string'
  if (!owned && !isConnection(db))
    throw definitionError('sqliteEventStore needs a SQLite file path or an open SQLite connection')
  let connection: SqliteConnection
  if (owned) {
    const driver = loadSqliteDriver(options.driver ?? defaultSqliteDriver())
    if (db !== ':memory:') mkdirSync(dirname(db), { recursive: true })
    connection = driver.open(db)
    connection.exec('PRAGMA busy_timeout = 5000')
    connection.exec('PRAGMA journal_mode = WAL')
  } else connection = db
  connection.exec(SCHEMA)
  const insert = connection.prepare(`INSERT INTO ${MCP_EVENTS_TABLE} (stream, message) VALUES (?, ?)`)
  const lastId = connection.prepare('SELECT last_insert_rowid() AS id')
  // The stream keeps its latest `keep` events: the one before them and older go.
  const trim = connection.prepare(
    `DELETE FROM ${MCP_EVENTS_TABLE} WHERE stream = ? AND id <= (
       SELECT id FROM ${MCP_EVENTS_TABLE} WHERE stream = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  )
  const held = connection.prepare(`SELECT 1 FROM ${MCP_EVENTS_TABLE} WHERE id = ? AND stream = ?`)
  const after = connection.prepare(
    `SELECT id, message FROM ${MCP_EVENTS_TABLE} WHERE stream = ? AND id > ? ORDER BY id`,
  )
  const begin = connection.prepare('BEGIN IMMEDIATE')
  const commit = connection.prepare('COMMIT')
  const rollback = connection.prepare('ROLLBACK')

  const streamOf = (eventId: string): string | undefined => {
    const parsed = parseEventId(eventId)
    if (parsed === undefined) return undefined
    return held.get(parsed.id, parsed.stream) === undefined ? undefined : parsed.stream
  }

  return {
    async storeEvent(streamId, message) {
      // One transaction: the id read is this insert's, and the trim never sees half of it.
      begin.run()
      try {
        insert.run(streamId, JSON.stringify(message))
        const { id } = lastId.get() as { id: number | bigint }
        trim.run(streamId, streamId, keep)
        commit.run()
        return `${streamId}#${id}`
      } catch (error) {
        rollback.run()
        throw error
      }
    },
    getStreamIdForEventId: async (eventId) => streamOf(eventId),
    async replayEventsAfter(lastEventId, { send }) {
      const stream = streamOf(lastEventId)
      if (stream === undefined) throw unknownEventId(lastEventId)
      const rows = after.all(stream, parseEventId(lastEventId)!.id) as {
        id: number | bigint
        message: string
      }[]
      for (const row of rows) await send(`${stream}#${row.id}`, JSON.parse(row.message) as never)
      return stream
    },
    async close() {
      if (owned) connection.close()
    },
  }
}
