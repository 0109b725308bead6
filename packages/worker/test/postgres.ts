/**
 * The PostgreSQL the worker tests run against: the connection string `.ci/run` exports. Tests
 * that need it skip when it is unset locally, and fail when CI=true (CI must start it).
 */
import { randomUUID } from 'node:crypto'
import { it } from 'vitest'

export const POSTGRES_URL = process.env.TOOLTX_TEST_PG || undefined

/** A test that fails under CI=true when no PostgreSQL was started for it. */
export function requirePostgresInCi(what: string): void {
  it.runIf(POSTGRES_URL === undefined && process.env.CI === 'true')(`${what} needs PostgreSQL`, () => {
    throw new Error(
      'CI=true but TOOLTX_TEST_PG is unset: .ci/run must start PostgreSQL and export its connection string',
    )
  })
}

/** A fresh pg-boss schema name, so each test has its own queue tables. */
export const freshSchema = (): string => `tq_${randomUUID().replaceAll('-', '').slice(0, 12)}`

/** A fresh session id prefix, so tests sharing one database never meet. */
export const freshPrefix = (): string => `s${randomUUID().slice(0, 8)}`
