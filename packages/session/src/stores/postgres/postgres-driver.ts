/**
 * The part of node-postgres (`pg`) the Postgres store uses, typed here so the package's types
 * do not need `@types/pg`, and `loadPg`, which requires `pg` only when a Postgres store or
 * reader is created.
 */
import { createRequire } from 'node:module'
import { definitionError } from '@tooltx/core/internal'

/** A query's result: its rows and how many rows the statement touched. */
export interface PgResult {
  readonly rows: unknown[]
  readonly rowCount: number | null
}

/** A connection: a pool's checked-out client or a plain `pg.Client`. */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<PgResult>
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown
}

/** A pooled client, given back with `release` (`release(true)` closes it instead). */
export interface PgPoolClient extends PgClient {
  release(destroy?: boolean): void
}

/** A `pg.Pool`, or anything with the same `query`, `connect` and `end`. */
export interface PgPool {
  query(text: string, values?: unknown[]): Promise<PgResult>
  connect(): Promise<PgPoolClient>
  end(): Promise<void>
  on(event: 'error', listener: (error: Error) => void): unknown
}

/** The constructors `loadPg` returns. */
export interface PgModule {
  Pool: new (config: { connectionString: string; max?: number }) => PgPool
  Client: new (config: {
    connectionString: string
  }) => PgClient & { connect(): Promise<void>; end(): Promise<void> }
}

const INSTALL = 'npm install pg@8'

/**
 * Loads node-postgres. It is an optional peer dependency of `@tooltx/session`, required here
 * and only here, so a user of the other stores never loads it. Throws `INVALID_DEFINITION`
 * naming what to install when it is missing or cannot load.
 */
export function loadPg(): PgModule {
  try {
    return createRequire(import.meta.url)('pg') as PgModule
  } catch (error) {
    const missing = (error as { code?: unknown } | null)?.code === 'MODULE_NOT_FOUND'
    const why = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ')
    throw definitionError(
      missing
        ? `postgresStore needs the package pg (node-postgres), an optional peer dependency of @tooltx/session that is not installed: ${INSTALL}`
        : `postgresStore could not load the package pg (${why}); reinstall it: ${INSTALL}`,
    )
  }
}

/** `connection` without its password, for messages: `postgres://user@host:port/db`. */
export function describeConnection(connection: string): string {
  try {
    const url = new URL(connection)
    url.password = ''
    url.search = ''
    return url.toString()
  } catch {
    return 'the PostgreSQL database'
  }
}
