/**
 * The SQLite drivers this Node can run, so SQLite tests cover each one that loads and skip the
 * others with the reason (on Node 20 only better-sqlite3 exists; under Node 24 a better-sqlite3
 * built for Node 20's ABI fails to load).
 */
import { type SqliteDriverName, sqliteStore } from '../src/index.js'
import { defaultSqliteDriver } from '../src/stores/sqlite/sqlite-driver.js'

export interface DriverCase {
  readonly driver: SqliteDriverName
  /** Why the driver cannot run here; `undefined` when it can. */
  readonly problem: string | undefined
  /** True for the driver `sqliteStore` picks by default. */
  readonly isDefault: boolean
}

export const SQLITE_DRIVERS: readonly DriverCase[] = (['node:sqlite', 'better-sqlite3'] as const).map(
  (driver) => {
    let problem: string | undefined
    try {
      void sqliteStore(':memory:', { driver }).close()
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error)
    }
    return { driver, problem, isDefault: driver === defaultSqliteDriver() }
  },
)
