/**
 * Resumable HTTP with its events in the session store's PostgreSQL database (Y1.34): the event
 * store contract (event-store-conformance.ts) against a real PostgreSQL, and its own checks.
 */
import { postgresEventStore } from '@tooltx/session'
import { expect, it } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { eventStoreConformance } from './event-store-conformance.js'

describePostgres('Y1.34 the event store in PostgreSQL', () => {
  eventStoreConformance({
    id: 'Y1.34',
    fresh: freshPostgres,
    open: (url, maxEventsPerStream) =>
      postgresEventStore(url, maxEventsPerStream === undefined ? {} : { maxEventsPerStream }),
    storedEvents,
  })

  it('Y1.34 a bad bound or connection is refused when the store is made', () => {
    expect(() => postgresEventStore('postgres://x@127.0.0.1:1/db', { maxEventsPerStream: 0 })).toThrow(
      'postgresEventStore: maxEventsPerStream must be a positive integer',
    )
    expect(() => postgresEventStore(42 as never)).toThrow(
      'postgresEventStore needs a connection string (postgres://…) or a pg.Pool',
    )
  })
})

/** How many events of streams starting with `prefix` the database holds. */
async function storedEvents(url: string, prefix: string): Promise<number> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const found = await client.query(
      'SELECT count(*)::int AS n FROM tooltx_mcp_events WHERE stream LIKE $1',
      [`${prefix}%`],
    )
    return (found.rows[0] as { n: number }).n
  } finally {
    await client.end()
  }
}
