import { statSync } from 'node:fs'
import {
  DEFAULT_SQLITE_PATH,
  defaultSqliteDriver,
  describeConnection,
  type FollowingReader,
  fileReader,
  fileStore,
  postgresReader,
  postgresStore,
  type SessionInfo,
  type SessionReader,
  type SessionStore,
  sqliteReader,
  sqliteStore,
} from '@tooltx/session'
import { DEFAULT_JSONL_PATH } from './display/default-db.js'
import { type Output, UsageError } from './display/output.js'

/** True iff `db` names a file store folder: it ends with `/` (or a backslash) or is an existing folder (K3.22). */
export const isFolderStore = (db: string): boolean =>
  /[\\/]$/.test(db) || statSync(db, { throwIfNoEntry: false })?.isDirectory() === true

/** True iff `db` is a PostgreSQL connection string (`postgres://…` or `postgresql://…`) rather than a SQLite path. */
export const isPostgres = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/** A URL scheme at the start of `--db` (two letters or more, so `C:\…` stays a path). */
const SCHEME = /^([a-z][a-z0-9+.-]+):/i

/**
 * Throws a usage error (exit 2) when `db` looks like a URL of a scheme other than `postgres://`
 * (`mysql://…`, `sqlite:…`, `postgres:db`), so it is never taken for a file of that name. The
 * message names the scheme only: the rest may hold a password.
 */
export function checkDb(db: string): void {
  const scheme = SCHEME.exec(db)?.[1]
  if (scheme === undefined || isPostgres(db)) return
  throw new UsageError(
    `--db "${scheme}:…" is not a session store tooltx reads: pass a SQLite file path, a folder of .jsonl logs or postgres://user@host:port/database`,
    2,
  )
}

/** What to check for each way a PostgreSQL connection fails (Node's error codes, then SQLSTATEs). */
const CONNECTION_HINTS: Record<string, string> = {
  ECONNREFUSED: 'connection refused — is the server running and the port right?',
  ENOTFOUND: 'no such host — is the host name right?',
  EAI_AGAIN: 'the host name could not be looked up — is it right, and is the network up?',
  ETIMEDOUT: 'no answer — is the host reachable (a firewall?) and the port right?',
  EHOSTUNREACH: 'the host is unreachable — is the host right, and is the network up?',
  ECONNRESET: 'the server closed the connection — does it accept connections from here (pg_hba.conf, TLS)?',
  '28P01': 'password authentication failed — are the user and password right?',
  '28000': 'is the user right, and may it connect from here (pg_hba.conf)?',
  '3D000': 'is the database name right?',
}

/**
 * `error` explained when it is a failure to connect to the PostgreSQL database `db`:
 * `cannot connect to postgres://user@host:port/db: <what failed> — <what to check>`, the
 * address without its password. Any other error is returned as it is.
 */
export function connectionFailure(error: unknown, db: string): unknown {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !Object.hasOwn(CONNECTION_HINTS, code)) return error
  const hint = CONNECTION_HINTS[code]!
  const why = code.startsWith('E') ? hint : `${(error as Error).message} — ${hint.replace(/^.*? — /, '')}`
  return new UsageError(`cannot connect to ${describeConnection(db)}: ${why}`)
}

/**
 * `target` (a PostgreSQL store or reader) with every promise it returns failing with
 * `connectionFailure`'s message when the database cannot be reached.
 */
function explained<T extends object>(target: T, db: string): T {
  return new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const result: unknown = value.apply(object, args)
        if (!(result instanceof Promise)) return result
        return result.catch((error: unknown) => {
          throw connectionFailure(error, db)
        })
      }
    },
  })
}

/** How messages name the store `db`: a connection string without its password and parameters, a path as it is. */
export const dbLabel = (db: string): string => (isPostgres(db) ? describeConnection(db) : db)

/** The read side of the PostgreSQL database `db`, its connection failures explained (`connectionFailure`). */
export function postgresSessions(db: string): FollowingReader {
  return explained(postgresReader(db), db)
}

/**
 * The session database at `db` — a SQLite file, a folder of `.jsonl` logs (`isFolderStore`), or a
 * PostgreSQL database when `db` is a `postgres://` connection string — opened read-only (a SQLite
 * file also on a read-only mount or folder), or `undefined` when there is no file or folder there:
 * listing or replaying never creates a database. A database that cannot be read fails with a message naming it; a `--db`
 * of another URL scheme is a usage error (`checkDb`).
 */
export function openSessions(db: string): SessionReader | FollowingReader | undefined {
  checkDb(db)
  try {
    if (isPostgres(db)) return postgresSessions(db)
    return isFolderStore(db) ? fileReader(db) : sqliteReader(db)
  } catch (error) {
    throw new UsageError(`cannot read the session database ${db}: ${(error as Error).message}`)
  }
}

/**
 * The store `demo`, `run` and the other writing commands use: `postgresStore(db)` for a connection
 * string (its connection failures explained), `fileStore(db)` for a folder (`isFolderStore`), else
 * `sqliteStore(db)`. `db` is checked first (`checkDb`). When the default JSONL folder is about to
 * be made, one line on stderr says which store, why, and what Node keeps sessions in SQLite (K3.21).
 */
export function openStore(db: string, out: Pick<Output, 'error'>): SessionStore {
  checkDb(db)
  if (isPostgres(db)) return explained(postgresStore(db), db)
  if (!isFolderStore(db)) return sqliteFileStore(db)
  if (db === DEFAULT_JSONL_PATH && statSync(db, { throwIfNoEntry: false }) === undefined) {
    out.error(
      `tooltx: keeping sessions as .jsonl files in ${db}: Node ${process.versions.node} has no node:sqlite without a flag (Node >= 22.13 keeps them in SQLite at ${DEFAULT_SQLITE_PATH})`,
    )
  }
  return fileStore(db)
}

/**
 * `sqliteStore(db)`; on a Node without `node:sqlite` where better-sqlite3 does not load either,
 * a usage error that says what to do instead, the JSONL folder store first, as it needs nothing
 * installed (K3.24).
 */
function sqliteFileStore(db: string): SessionStore {
  try {
    return sqliteStore(db)
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    if (defaultSqliteDriver() === 'node:sqlite' || code !== 'INVALID_DEFINITION') throw error
    const folder = `${db.replace(/\.[^./\\]*$/, '')}/`
    throw new UsageError(
      `--db ${db} is a SQLite file, and Node ${process.versions.node} has no node:sqlite and cannot load better-sqlite3. ` +
        `Pass --db ${folder} to keep sessions as .jsonl files in that folder (nothing to install), or leave out --db ` +
        'for the default store; or run on Node >= 22.13, or install better-sqlite3 (npm install better-sqlite3@12).',
    )
  }
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
 * last), or the start of exactly one id. Anything else fails saying what there is instead, naming
 * the store by `dbLabel(store)`.
 */
export function resolveSession(wanted: string, sessions: readonly SessionInfo[], store: string): string {
  const db = dbLabel(store)
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
