/**
 * Resumable HTTP with its events in a SQLite file, the session store's (L11.10): the event store
 * contract (event-store-conformance.ts) on a real file with the default driver, the file shared
 * with a session store, and its own checks.
 */
import { join } from 'node:path'
import {
  defaultSqliteDriver,
  loadSqliteDriver,
  openSession,
  sqliteEventStore,
  sqliteStore,
} from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { tempRoot } from '../../session/test/temp-root.js'
import { eventStoreConformance } from './event-store-conformance.js'

const root = tempRoot('tooltx-sqlite-events-')
let files = 0

/** How many events of streams starting with `prefix` the file holds, read by a connection of its own. */
async function storedEvents(path: string, prefix: string): Promise<number> {
  const db = loadSqliteDriver(defaultSqliteDriver()).open(path, { readOnly: true })
  try {
    const row = db
      .prepare('SELECT count(*) AS n FROM tooltx_mcp_events WHERE stream LIKE ?')
      .get(`${prefix}%`)
    return Number((row as { n: number }).n)
  } finally {
    db.close()
  }
}

describe('L11.10 the event store in SQLite', () => {
  eventStoreConformance({
    id: 'L11.10',
    fresh: async () => join(root, `events-${++files}`, 'sessions.db'),
    open: (path, maxEventsPerStream) =>
      sqliteEventStore(path, maxEventsPerStream === undefined ? {} : { maxEventsPerStream }),
    storedEvents,
  })

  it('L11.10 the events live beside the sessions of the same file, and an open connection may be given', async () => {
    const path = join(root, 'shared.db')
    const sessions = sqliteStore(path)
    const session = await openSession(sessions, { id: 'served' })
    const events = sqliteEventStore(path)
    const eventId = await events.storeEvent('x/1', { jsonrpc: '2.0', method: 'ping' })
    await events.close()
    await session.close()
    await sessions.close()
    const connection = loadSqliteDriver(defaultSqliteDriver()).open(path)
    const reopened = sqliteEventStore(connection)
    expect(await reopened.getStreamIdForEventId(eventId)).toBe('x/1')
    await reopened.close()
    // The store did not close the connection it was given.
    expect(connection.prepare('SELECT count(*) AS n FROM sessions').get()).toEqual({ n: 1 })
    connection.close()
  })

  it('L11.10 a deleted event id is never given again, so an old Last-Event-ID cannot name a newer event', async () => {
    const events = sqliteEventStore(join(root, 'ids.db'), { maxEventsPerStream: 1 })
    const first = await events.storeEvent('s', { n: 1 })
    const second = await events.storeEvent('s', { n: 2 })
    expect(await events.getStreamIdForEventId(first)).toBeUndefined()
    const third = await events.storeEvent('s', { n: 3 })
    expect(new Set([first, second, third]).size).toBe(3)
    await events.close()
  })

  it('L11.10 a bad bound or database is refused when the store is made', () => {
    expect(() => sqliteEventStore(join(root, 'bad.db'), { maxEventsPerStream: 1.5 })).toThrow(
      'sqliteEventStore: maxEventsPerStream must be a positive integer',
    )
    expect(() => sqliteEventStore(42 as never)).toThrow(
      'sqliteEventStore needs a SQLite file path or an open SQLite connection',
    )
  })
})
