import { existsSync, readFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import type { SessionEvent } from './events.js'
import { decodeRows, type EventRow } from './sqlite-rows.js'
import type { SessionInfo } from './store.js'

/** The read side of a session database, for tools that list and print sessions. */
export interface SessionReader {
  /** Every stored session, oldest first. */
  listSessions(): Promise<readonly SessionInfo[]>
  /** The deep-frozen events of session `id` in `seq` order, or `undefined` when it is not stored. */
  read(id: string): Promise<readonly SessionEvent[] | undefined>
  /** Releases the database handle. */
  close(): Promise<void>
}

/** SQLite's answers when it may not write the `-shm`/`-wal` files next to a WAL database. */
const READ_ONLY_PLACE = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY'])

/**
 * Opens the SQLite session database at `path` (as written by `sqliteStore`) for reading only, or
 * returns `undefined` when there is no file at `path`. It never creates a file, a table or a
 * session, and never writes. When SQLite cannot open the database in place because its folder
 * is read-only (a read-only mount, or a folder the user may not write), the committed database
 * file is read into memory instead and served from that copy.
 */
export function sqliteReader(path: string): SessionReader | undefined {
  if (!existsSync(path)) return undefined
  const db = openReadOnly(path)
  const list = db.prepare('SELECT id, created, updated, events FROM sessions ORDER BY created, id')
  const known = db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck(true)
  const select = db.prepare('SELECT seq, type, data FROM events WHERE session = ? ORDER BY seq').raw(true)
  return {
    async listSessions() {
      return list.all() as SessionInfo[]
    },
    async read(id) {
      if (known.get(id) === undefined) return undefined
      return decodeRows(path, id, select.all(id) as EventRow[])
    },
    async close() {
      if (db.open) db.close()
    },
  }
}

function openReadOnly(path: string): Database.Database {
  let db: Database.Database | undefined
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
    // The first statement is what finds out whether SQLite can make the WAL index.
    db.prepare('SELECT count(*) FROM sessions').get()
    return db
  } catch (error) {
    db?.close()
    if (!READ_ONLY_PLACE.has((error as { code?: string }).code ?? '')) throw error
  }
  const copy = readFileSync(path)
  // Bytes 18 and 19 of the header mark a WAL database; an in-memory copy has no WAL, so the
  // copy is marked as a rollback-journal database, which is what lets SQLite open it.
  copy[18] = 1
  copy[19] = 1
  return new Database(copy, { readonly: true })
}
