import type { SessionEvent } from '../../log/events.js'
import type { SessionReader } from '../session-reader.js'
import { describeConnection, loadPg } from './postgres-driver.js'
import { listSessionRows, POSTGRES_CHANNEL, readEvents } from './postgres-schema.js'

/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01'

const missingTables = (error: unknown): boolean => (error as { code?: unknown }).code === UNDEFINED_TABLE

/** Called with the events appended after the ones already seen, in seq order. */
export type FollowListener = (events: readonly SessionEvent[]) => void

/** A reader that can also follow a session live. */
export interface FollowingReader extends SessionReader {
  /**
   * Calls `listener` with the events of session `id` after seq `after` as they are appended
   * (N1.5), each exactly once and in order, until the returned function is called. Rejects
   * when the database cannot be listened to; `onError` gets a later failure (a damaged row, a
   * lost connection), after which nothing more is delivered.
   */
  follow(
    id: string,
    after: number,
    listener: FollowListener,
    onError: (error: unknown) => void,
  ): Promise<() => Promise<void>>
  /**
   * Calls `onChange` after any session of the database may have changed (every append notifies;
   * never with data), until the returned function is called. Rejects when
   * the database cannot be listened to; `onError` gets a later failure (a lost connection), after
   * which nothing more is delivered.
   */
  watch(onChange: () => void, onError: (error: unknown) => void): Promise<() => Promise<void>>
}

/**
 * The read side of a Postgres session database (what `postgresStore` writes), for tools that
 * list, print and follow sessions. It never creates a table or a session and never writes: a
 * database without the store's tables has no sessions. Following listens on the channel every
 * append notifies (`LISTEN tooltx_events`), so new events arrive as they are committed.
 */
export function postgresReader(connection: string): FollowingReader {
  const { Pool, Client } = loadPg()
  const where = describeConnection(connection)
  const pool = new Pool({ connectionString: connection, max: 2 })
  pool.on('error', () => {})
  const followers = new Set<() => Promise<void>>()
  return {
    async listSessions() {
      return listSessionRows(pool).catch((error: unknown) => {
        if (missingTables(error)) return []
        throw error
      })
    },
    async read(id) {
      try {
        const known = await pool.query('SELECT 1 FROM tooltx_sessions WHERE id = $1', [id])
        if (known.rows.length === 0) return undefined
        return await readEvents(pool, where, id)
      } catch (error) {
        if (missingTables(error)) return undefined
        throw error
      }
    },
    async follow(id, after, listener, onError) {
      const client = new Client({ connectionString: connection })
      await client.connect()
      let seen = after
      let fetching: Promise<void> | undefined
      let again = false
      let stopped = false
      // One fetch at a time; a notification during a fetch makes it fetch once more after.
      const fetch = (): void => {
        if (fetching !== undefined) {
          again = true
          return
        }
        fetching = (async () => {
          do {
            again = false
            const events = await readEvents(client, where, id, seen)
            if (stopped || events.length === 0) continue
            seen = events[events.length - 1]!.seq
            listener(events)
          } while (again && !stopped)
        })()
          .catch((error: unknown) => {
            stopped = true
            onError(error)
          })
          .finally(() => {
            fetching = undefined
          })
      }
      client.on('notification', (message) => {
        if (message.channel !== POSTGRES_CHANNEL || stopped) return
        const payload = message.payload ?? ''
        if (payload.slice(0, payload.lastIndexOf(' ')) === id) fetch()
      })
      client.on('error', (error) => {
        if (stopped) return
        stopped = true
        onError(error)
      })
      // Listening starts before the first fetch, so no event falls between the two.
      await client.query(`LISTEN ${POSTGRES_CHANNEL}`)
      fetch()
      const stop = async (): Promise<void> => {
        if (!followers.delete(stop)) return
        stopped = true
        await fetching
        await client.end().catch(() => {})
      }
      followers.add(stop)
      return stop
    },
    async watch(onChange, onError) {
      const client = new Client({ connectionString: connection })
      await client.connect()
      let stopped = false
      client.on('notification', (message) => {
        if (message.channel === POSTGRES_CHANNEL && !stopped) onChange()
      })
      client.on('error', (error) => {
        if (stopped) return
        stopped = true
        onError(error)
      })
      await client.query(`LISTEN ${POSTGRES_CHANNEL}`)
      const stop = async (): Promise<void> => {
        if (!followers.delete(stop)) return
        stopped = true
        await client.end().catch(() => {})
      }
      followers.add(stop)
      return stop
    },
    async close() {
      for (const stop of [...followers]) await stop()
      await pool.end()
    },
  }
}
