import {
  type FollowingReader,
  postgresReader,
  postgresStore,
  type SessionInfo,
  type SessionReader,
  type SessionStore,
  sqliteReader,
  sqliteStore,
} from '@tooltx/session'
import { UsageError } from './output.js'

/** True iff `db` is a PostgreSQL connection string (`postgres://…` or `postgresql://…`) rather than a SQLite path. */
export const isPostgres = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/**
 * The session database at `db` — a SQLite file, or a PostgreSQL database when `db` is a
 * `postgres://` connection string — opened read-only (a SQLite file also on a read-only mount
 * or folder), or `undefined` when there is no SQLite file there: listing or replaying never
 * creates a database. A database that cannot be read fails with a message naming it.
 */
export function openSessions(db: string): SessionReader | FollowingReader | undefined {
  try {
    return isPostgres(db) ? postgresReader(db) : sqliteReader(db)
  } catch (error) {
    throw new UsageError(`cannot read the session database ${db}: ${(error as Error).message}`)
  }
}

/** The store `demo` and `run` write to: `postgresStore(db)` for a connection string, else `sqliteStore(db)`. */
export function openStore(db: string): SessionStore {
  return isPostgres(db) ? postgresStore(db) : sqliteStore(db)
}

/**
 * The session database at `db`, opened read-only, for a command that needs sessions to exist:
 * without a database it fails with `<problem>: there is no session database at <db>; …`.
 */
export function existingSessions(db: string, problem: string): SessionReader | FollowingReader {
  const reader = openSessions(db)
  if (reader === undefined) {
    throw new UsageError(
      `${problem}: there is no session database at ${db}; run \`tooltx demo\` first, or pass --db`,
    )
  }
  return reader
}

/**
 * The id of the stored session `wanted` names: an exact id, `latest` (the session created
 * last), or the start of exactly one id. Anything else fails saying what there is instead.
 */
export function resolveSession(wanted: string, sessions: readonly SessionInfo[], db: string): string {
  if (sessions.some((info) => info.id === wanted)) return wanted
  if (sessions.length === 0) {
    throw new UsageError(
      `no session "${wanted}" in ${db}: there are no sessions yet; run \`tooltx demo\` first`,
    )
  }
  if (wanted === 'latest') return sessions.at(-1)!.id
  const matches = sessions.filter((info) => info.id.startsWith(wanted))
  if (matches.length === 1) return matches[0]!.id
  if (matches.length > 1) {
    const listed = matches.map((info) => info.id).join(', ')
    throw new UsageError(`"${wanted}" starts ${matches.length} session ids (${listed}); give more of the id`)
  }
  throw new UsageError(`no session "${wanted}" in ${db}; run \`tooltx sessions\` to list them`)
}

/**
 * The id of the stored session `wanted` names (see `resolveSession`), read from the database
 * at `db` with a reader that is closed again before this returns. Without a database it fails
 * as `existingSessions(db, problem)` does.
 */
export async function storedSessionId(db: string, wanted: string, problem: string): Promise<string> {
  const reader = existingSessions(db, problem)
  try {
    return resolveSession(wanted, await reader.listSessions(), db)
  } finally {
    await reader.close()
  }
}
