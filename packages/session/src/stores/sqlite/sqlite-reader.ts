import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeRows, type EventRow } from '../event-rows.js'
import type { SessionReader } from '../session-reader.js'
import type { SessionInfo } from '../store.js'
import {
  defaultSqliteDriver,
  loadSqliteDriver,
  type SqliteConnection,
  type SqliteDriverName,
} from './sqlite-driver.js'

/**
 * SQLite's primary result codes when it may not make the `-shm`/`-wal` files next to a WAL
 * database: `SQLITE_READONLY` (8, including `SQLITE_READONLY_DIRECTORY`) and `SQLITE_CANTOPEN` (14).
 */
const READ_ONLY_PLACE = new Set([8, 14])
const READ_ONLY_NAMES = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY'])

/** True iff `error` says the database could not be opened in place because its folder is read-only. */
function readOnlyPlace(error: unknown): boolean {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown }
  if (typeof code === 'string' && READ_ONLY_NAMES.has(code)) return true
  return typeof errcode === 'number' && READ_ONLY_PLACE.has(errcode & 0xff)
}

/**
 * Opens the SQLite session database at `path` (as written by `sqliteStore`) for reading only, or
 * returns `undefined` when there is no file at `path` (K3.2, K3.3). It never creates a file, a
 * table or a session, and never writes the database. When SQLite cannot open it in place because
 * its folder is read-only (a read-only mount, or a folder the user may not write), the committed
 * database file is copied to a private temporary folder and read from that copy. `driver` is as
 * in `sqliteStore`.
 */
export function sqliteReader(
  path: string,
  options: { driver?: SqliteDriverName } = {},
): SessionReader | undefined {
  if (!existsSync(path)) return undefined
  const driver = loadSqliteDriver(options.driver ?? defaultSqliteDriver())
  let copy: string | undefined
  let db: SqliteConnection | undefined
  try {
    db = driver.open(path, { readOnly: true })
    // The first statement is what finds out whether SQLite can make the WAL index.
    db.prepare('SELECT count(*) FROM sessions').get()
  } catch (error) {
    db?.close()
    if (!readOnlyPlace(error)) throw error
    copy = mkdtempSync(join(tmpdir(), 'tooltx-reader-'))
    const file = join(copy, 'sessions.db')
    copyFileSync(path, file)
    // Bytes 18 and 19 of the header mark a WAL database; the copy has no WAL beside it, so it is
    // marked as a rollback-journal database, which SQLite opens read-only without writing.
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.from([1, 1]), 0, 2, 18)
    closeSync(fd)
    db = driver.open(file, { readOnly: true })
  }
  const list = db.prepare('SELECT id, created, updated, events FROM sessions ORDER BY created, id')
  const known = db.prepare('SELECT 1 AS found FROM sessions WHERE id = ?')
  const select = db.prepare('SELECT seq, type, data, crc FROM events WHERE session = ? ORDER BY seq')
  let open = true
  return {
    async listSessions() {
      return (list.all() as SessionInfo[]).map((info) => ({ ...info }))
    },
    async read(id) {
      if (known.get(id) === undefined) return undefined
      return decodeRows(path, id, select.all(id) as EventRow[])
    },
    async close() {
      if (!open) return
      open = false
      db.close()
      if (copy !== undefined) rmSync(copy, { recursive: true, force: true })
    },
  }
}
