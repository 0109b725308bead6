import { createRequire } from 'node:module'
import { definitionError } from '@tooltx/core/internal'

/** The SQLite bindings `sqliteStore` can run on: Node's own (Node >= 22.13) or the better-sqlite3 package. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3'

/** A value a statement binds. */
export type SqlValue = string | number | null

/** The part of a prepared statement the store uses; both drivers' statements have it. */
export interface SqliteStatement {
  run(...params: SqlValue[]): { changes: number | bigint }
  all(...params: SqlValue[]): unknown[]
  get(...params: SqlValue[]): unknown
}

/** The part of a connection the store uses; both drivers' connection objects have it. */
export interface SqliteConnection {
  exec(sql: string): void
  prepare(sql: string): SqliteStatement
  close(): void
}

/** An opened driver: how to connect, and how it reports a primary-key violation. */
export interface SqliteDriver {
  readonly name: SqliteDriverName
  /** Opens `path`; `readOnly` opens an existing file without creating or writing anything. */
  open(path: string, options?: { readOnly?: boolean }): SqliteConnection
  /** True iff `error` is SQLite's `SQLITE_CONSTRAINT_PRIMARYKEY`. */
  isPrimaryKeyConflict(error: unknown): boolean
}

/** SQLite's extended result code for a PRIMARY KEY violation. */
const SQLITE_CONSTRAINT_PRIMARYKEY = 1555

type Connect = new (path: string, options?: object) => SqliteConnection

/** `node:sqlite`'s `DatabaseSync`, or `undefined` on a Node without it (or with it behind a flag). */
function builtinSqlite(): Connect | undefined {
  try {
    const sqlite = process.getBuiltinModule?.('node:sqlite') as { DatabaseSync?: Connect } | undefined
    return sqlite?.DatabaseSync
  } catch {
    return undefined
  }
}

/** The driver `sqliteStore` uses when none is named: `node:sqlite` where it exists, else better-sqlite3. */
export function defaultSqliteDriver(): SqliteDriverName {
  return builtinSqlite() === undefined ? 'better-sqlite3' : 'node:sqlite'
}

const INSTALL = 'npm install better-sqlite3@12'

/**
 * Loads driver `name`. better-sqlite3 is an optional peer dependency, required here and only
 * here, so a process that never opens a SQLite store on a Node without `node:sqlite` never
 * loads it. Throws `INVALID_DEFINITION` naming what to install when the driver is missing or
 * cannot load (a native build for another Node version), or when `name` is not a driver.
 */
export function loadSqliteDriver(name: SqliteDriverName): SqliteDriver {
  if (name === 'node:sqlite') {
    const DatabaseSync = builtinSqlite()
    if (DatabaseSync === undefined) {
      throw definitionError(
        `sqliteStore driver "node:sqlite" needs Node >= 22.13 (this is Node ${process.versions.node}); use the driver "better-sqlite3" (${INSTALL})`,
      )
    }
    return {
      name,
      open: (path, options) => new DatabaseSync(path, options?.readOnly === true ? { readOnly: true } : {}),
      isPrimaryKeyConflict: (error) =>
        (error as { errcode?: unknown } | null)?.errcode === SQLITE_CONSTRAINT_PRIMARYKEY,
    }
  }
  if (name !== 'better-sqlite3') {
    throw definitionError(
      `sqliteStore driver must be "node:sqlite" or "better-sqlite3", got ${JSON.stringify(name) ?? String(name)}`,
    )
  }
  let Database: Connect
  try {
    Database = createRequire(import.meta.url)('better-sqlite3') as Connect
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')
    const missing = (error as { code?: unknown } | null)?.code === 'MODULE_NOT_FOUND'
    throw definitionError(
      missing
        ? `sqliteStore driver "better-sqlite3" needs the package better-sqlite3, which is not installed: ${INSTALL} (or run on Node >= 22.13, whose node:sqlite needs no package)`
        : `sqliteStore could not load better-sqlite3 (${why}); reinstall it for Node ${process.versions.node} (${INSTALL}) or run on Node >= 22.13, which has node:sqlite`,
    )
  }
  return {
    name,
    open: (path, options) =>
      new Database(path, options?.readOnly === true ? { readonly: true, fileMustExist: true } : {}),
    isPrimaryKeyConflict: (error) =>
      (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  }
}
