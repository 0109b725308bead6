/**
 * The PostgreSQL the tests run against: `TOOLTX_TEST_PG`, a connection string that `.ci/run`
 * exports after starting a throwaway server (`.ci/postgres`). Without it the Postgres tests are
 * skipped locally, and fail under CI=true, where the server must be there.
 */
import pg from 'pg'
import { describe, it } from 'vitest'

export const PG_URL: string | undefined = process.env.TOOLTX_TEST_PG || undefined

/** `describe` when a server is configured; otherwise skipped, or one failing test under CI. */
export function describePostgres(title: string, body: () => void): void {
  if (PG_URL !== undefined) describe(title, body)
  else if (process.env.CI === 'true') {
    describe(title, () => {
      it('N1.1: PostgreSQL is running for the tests', () => {
        throw new Error('CI=true but TOOLTX_TEST_PG is not set: .ci/run must start PostgreSQL (.ci/postgres)')
      })
    })
  } else
    describe.skip(`${title} (no PostgreSQL: set TOOLTX_TEST_PG, e.g. with \`source .ci/postgres\`)`, body)
}

let schemas = 0

/**
 * A connection string for a new, empty schema of the test server (its own tables): the
 * schema is created here and set as the connection's `search_path`.
 */
export async function freshPostgres(): Promise<string> {
  const name = `t${process.pid}_${Date.now().toString(36)}_${schemas++}`
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(`CREATE SCHEMA ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(PG_URL!)
  url.searchParams.set('options', `-c search_path=${name}`)
  return url.toString()
}
