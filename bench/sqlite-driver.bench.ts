/**
 * Which SQLite driver should `sqliteStore` use? `node:sqlite` against better-sqlite3, side by
 * side in one process: durable appends (`synchronous = FULL`) one event and ten at a time, and
 * opening and deriving a 100,000-event session. A driver that does not load on this Node (no
 * `node:sqlite` before Node 22.13, a better-sqlite3 built for another Node) is reported, not run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSession, type SqliteDriverName, sqliteStore } from '@tooltx/session'
import { type BenchSection, type Measurement, measure, ratio } from './harness.js'
import { message, openStep } from './session-events.js'

const DRIVERS: readonly SqliteDriverName[] = ['node:sqlite', 'better-sqlite3']

/** The drivers that load here, and why the others do not. */
function available(): { drivers: SqliteDriverName[]; missing: string[] } {
  const drivers: SqliteDriverName[] = []
  const missing: string[] = []
  for (const driver of DRIVERS) {
    try {
      void sqliteStore(':memory:', { driver }).close()
      drivers.push(driver)
    } catch (error) {
      missing.push(`- ${driver} not measured: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return { drivers, missing }
}

const pairRatios = (rows: Measurement[]): string[] =>
  rows.length === 2 ? [`${rows[0]!.name} / ${rows[1]!.name} = ${ratio(rows[0]!, rows[1]!)}`] : []

export default async function sqliteDriverBench(): Promise<BenchSection[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-bench-sqlite-driver-'))
  const { drivers, missing } = available()
  const extra = missing.length > 0 ? missing.join('\n') : undefined
  try {
    const singles: Measurement[] = []
    const batches: Measurement[] = []
    const opens: Measurement[] = []
    for (const driver of drivers) {
      const store = sqliteStore(join(dir, driver, 'append.db'), { driver })
      const session = await openStep(store, 'append')
      let i = 0
      singles.push(
        await measure(`${driver}: append`, () => session.append('user/message', message(i++).data as never), {
          rounds: 15,
          opsPerRound: 40,
          warmup: 2,
        }),
      )
      batches.push(
        await measure(
          `${driver}: appendBatch of 10`,
          () => session.appendBatch(Array.from({ length: 10 }, () => message(i++))),
          { rounds: 15, opsPerRound: 40, warmup: 2 },
        ),
      )
      await store.close()

      const big = 100_000
      const path = join(dir, driver, 'big.db')
      const writer = sqliteStore(path, { driver })
      const filled = await openStep(writer, 'big')
      for (let k = 0; k < big - 2; k += 1000) {
        await filled.appendBatch(
          Array.from({ length: Math.min(1000, big - 2 - k) }, (_, j) => message(k + j)),
        )
      }
      await writer.close()
      opens.push(
        await measure(
          `${driver}: openSession + messages() of ${big} events`,
          async () => {
            const reader = sqliteStore(path, { driver })
            const opened = await openSession(reader, { id: 'big' })
            if (opened.messages().length !== big - 2) throw new Error('wrong derivation')
            await reader.close()
          },
          { rounds: 5, opsPerRound: 1, warmup: 1 },
        ),
      )
    }
    return [
      {
        title: 'SQLite drivers: durable appends',
        method:
          'Median time per durable append (WAL, `synchronous = FULL`: one fsync of the WAL per commit) of a user/message event through `session.append` and of a 10-event `appendBatch`, on `sqliteStore(path, { driver })` with each driver in turn, same process, fresh database each. 15 rounds of 40 after 2 warm-up rounds.',
        rows: [...singles, ...batches],
        ratios: [...pairRatios(singles), ...pairRatios(batches)],
        extra,
      },
      {
        title: 'SQLite drivers: open and derive 100,000 events',
        method:
          'A fresh store object with each driver opens a 100,000-event session (SELECT, verify checksums, parse, freeze, check every invariant, derive messages). 5 rounds after 1 warm-up.',
        rows: opens,
        ratios: pairRatios(opens),
        extra,
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
