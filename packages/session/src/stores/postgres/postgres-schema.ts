/**
 * The Postgres store's tables and the statements the store and the reader share. Event data is
 * `text` holding `stringifyJson` output, never `jsonb` (which reorders keys and rewrites
 * numbers), so a reopened log is byte-identical (L1.6, N1.2).
 */
import type { SessionEvent } from '../../log/events.js'
import { decodeRows, type EventRow } from '../event-rows.js'
import type { SessionInfo } from '../store.js'
import type { PgClient, PgPool, PgResult } from './postgres-driver.js'

/** The channel every append notifies, with the payload `<session id> <latest seq>` (N1.5). */
export const POSTGRES_CHANNEL = 'tooltx_events'

/** An arbitrary constant key of the advisory lock that serializes creating the schema. */
const SCHEMA_LOCK = 748_203_116

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tooltx_sessions (
  id text PRIMARY KEY,
  created timestamptz NOT NULL DEFAULT now(),
  updated timestamptz NOT NULL DEFAULT now(),
  events integer NOT NULL DEFAULT 0,
  holder text,
  token text,
  backend integer,
  expires timestamptz,
  epoch bigint NOT NULL DEFAULT 0
);
-- A table from before lease epochs (F1.9) gets the column; checked first, since ALTER TABLE
-- would lock the table against every writer's appends even when the column exists.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
    AND table_name = 'tooltx_sessions' AND column_name = 'epoch') THEN
    ALTER TABLE tooltx_sessions ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS tooltx_events (
  session text NOT NULL,
  seq integer NOT NULL,
  type text NOT NULL,
  data text NOT NULL,
  crc bigint NOT NULL,
  PRIMARY KEY (session, seq)
);`

/** Creates the tables if they are missing; concurrent callers queue on an advisory lock. */
export async function createSchema(client: PgClient): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK])
    await client.query(SCHEMA)
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

/** The stored rows of session `id` after seq `after`, in seq order. */
export async function selectEvents(db: PgPool | PgClient, id: string, after = 0): Promise<EventRow[]> {
  // crc is an unsigned 32-bit value in a bigint; as float8 node-postgres returns it as a number.
  const result = await db.query(
    'SELECT seq, type, data, crc::float8 AS crc FROM tooltx_events WHERE session = $1 AND seq > $2 ORDER BY seq',
    [id, after],
  )
  return result.rows as unknown as EventRow[]
}

/** The deep-frozen events of session `id` after `after`, verified (damage names `where`). */
export async function readEvents(
  db: PgPool | PgClient,
  where: string,
  id: string,
  after = 0,
): Promise<SessionEvent[]> {
  return decodeRows(where, id, await selectEvents(db, id, after), after + 1)
}

/** Every stored session, oldest first. */
export async function listSessionRows(db: PgPool | PgClient): Promise<SessionInfo[]> {
  const result: PgResult = await db.query(
    'SELECT id, created, updated, events FROM tooltx_sessions ORDER BY created, id',
  )
  const rows = result.rows as { id: string; created: Date; updated: Date; events: number }[]
  return rows.map(({ id, created, updated, events }) => ({
    id,
    created: created.toISOString(),
    updated: updated.toISOString(),
    events,
  }))
}
