/**
 * How close is a Postgres append to what the server can do at all? `postgresStore` appends
 * (one statement: the lease- and seq-checked UPDATE, the INSERT, the notification) against the
 * floor of a bare `INSERT` committed on its own, on the same server and the same bytes, with
 * the single-process SQLite store beside them. Needs a server: `TOOLTX_BENCH_PG` or
 * `TOOLTX_TEST_PG` (`source .ci/postgres` starts one); without one the section says so.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import { postgresStore, sqliteStore } from '@tooltx/session'
import pg from 'pg'
import { type BenchSection, type Measurement, ratio } from './harness.js'
import { message, openStep } from './session-events.js'

const ROUNDS = 25
const OPS = 20

/** Times each case in `ROUNDS` rounds of `OPS` calls, one round of every case in turn, after one warm-up round each. */
async function interleaved(cases: [string, () => Promise<unknown>][]): Promise<Measurement[]> {
  const perOp = cases.map((): number[] => [])
  for (let round = -1; round < ROUNDS; round++) {
    for (const [k, [, fn]] of cases.entries()) {
      const started = performance.now()
      for (let op = 0; op < OPS; op++) await fn()
      if (round >= 0) perOp[k]!.push(((performance.now() - started) * 1e6) / OPS)
    }
  }
  return cases.map(([name], k) => {
    const sorted = perOp[k]!.sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))]!
    return { name, medianNs: at(0.5), p10Ns: at(0.1), p90Ns: at(0.9), rounds: ROUNDS, opsPerRound: OPS }
  })
}

export default async function postgresBench(): Promise<BenchSection[]> {
  const server = process.env.TOOLTX_BENCH_PG || process.env.TOOLTX_TEST_PG
  if (!server) {
    return [
      {
        title: 'Session: Postgres appends',
        method: 'Not measured: no server (set TOOLTX_BENCH_PG, or `source .ci/postgres` to start one).',
        rows: [],
      },
    ]
  }
  const schema = `bench_${process.pid}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`)
  const url = new URL(server)
  url.searchParams.set('options', `-c search_path=${schema}`)
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-bench-pg-'))
  const raw = new pg.Client({ connectionString: url.toString() })
  await raw.connect()
  try {
    await raw.query(
      'CREATE TABLE floor (session text, seq integer, type text, data text, PRIMARY KEY (session, seq))',
    )
    let n = 0
    const text = (i: number) => stringifyJson(message(i).data as unknown as JsonValue)
    const insertRows = (rows: number) => {
      const values: unknown[] = []
      const tuples: string[] = []
      for (let k = 0; k < rows; k++) {
        tuples.push(`($${k * 4 + 1}, $${k * 4 + 2}, $${k * 4 + 3}, $${k * 4 + 4})`)
        values.push('f', n++, 'user/message', text(n))
      }
      return raw.query(`INSERT INTO floor VALUES ${tuples.join(', ')}`, values)
    }
    const pgStore = postgresStore(url.toString())
    const liteStore = sqliteStore(join(dir, 'sessions.db'))
    const pgSession = await openStep(pgStore, 'append')
    const liteSession = await openStep(liteStore, 'append')
    let i = 0
    // Fsync and server latency drift a lot on a shared machine, so the cases run in interleaved
    // rounds (one round of each in turn) rather than one after the other.
    const rows = await interleaved([
      // The floor: one autocommit INSERT (its own COMMIT, one WAL flush) of the same data text,
      // and the same with the transaction spelled out (three round trips).
      ['floor: INSERT (autocommit), 1 row', () => insertRows(1)],
      [
        'floor: BEGIN; INSERT; COMMIT, 1 row',
        async () => {
          await raw.query('BEGIN')
          await insertRows(1)
          await raw.query('COMMIT')
        },
      ],
      ['postgresStore: append', () => pgSession.append('user/message', message(i++).data as never)],
      ['sqliteStore: append', () => liteSession.append('user/message', message(i++).data as never)],
      ['floor: INSERT (autocommit), 10 rows', () => insertRows(10)],
      [
        'postgresStore: appendBatch of 10',
        () => pgSession.appendBatch(Array.from({ length: 10 }, () => message(i++))),
      ],
      [
        'sqliteStore: appendBatch of 10',
        () => liteSession.appendBatch(Array.from({ length: 10 }, () => message(i++))),
      ],
    ])
    await pgStore.close()
    await liteStore.close()
    const [single, explicit, pgOne, liteOne, ten, pgTen, liteTen] = rows as [
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
      Measurement,
    ]
    const rate = (m: Measurement, events = 1) => `${Math.round((events * 1e9) / m.medianNs)}/s`
    return [
      {
        title: 'Session: Postgres appends',
        method:
          'Median time per durable append of a user/message event through `session.append` on `postgresStore` (snapshot, checks, one statement: the UPDATE that checks the seq and the lease, the INSERT of the rows, `pg_notify`; committed with the server default `synchronous_commit = on`), against the floor of a bare `INSERT` of the same data text committed on its own over one node-postgres connection to the same server (loopback), and beside the single-process `sqliteStore` on the local disk. 25 rounds of 20 appends after one warm-up round, the cases interleaved round by round (fsync latency on a shared machine drifts too much to measure them one after the other).',
        rows,
        ratios: [
          `postgresStore append: ${rate(pgOne)} vs INSERT floor ${rate(single)} (time ratio ${ratio(pgOne, single)}); vs BEGIN/INSERT/COMMIT ${rate(explicit)} (${ratio(pgOne, explicit)})`,
          `postgresStore appendBatch of 10: events at ${rate(pgTen, 10)} vs 10-row INSERT floor ${rate(ten, 10)} (time ratio ${ratio(pgTen, ten)})`,
          `sqliteStore append: ${rate(liteOne)}; appendBatch of 10: events at ${rate(liteTen, 10)} (postgres / sqlite time ratio ${ratio(pgOne, liteOne)})`,
        ],
      },
    ]
  } finally {
    await raw.end()
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
    rmSync(dir, { recursive: true, force: true })
  }
}
