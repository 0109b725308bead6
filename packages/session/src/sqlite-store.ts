import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { SessionEvent } from './events.js'
import { decodeRows, type EventRow } from './sqlite-rows.js'
import { conflictError, type SessionInfo, type SessionStore } from './store.js'

/** Where the CLI keeps its sessions, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = '.tooltx/sessions.db'

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  created TEXT NOT NULL,
  updated TEXT NOT NULL,
  events INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (session, seq)
) WITHOUT ROWID;
`

/**
 * WAL frames after which a commit checkpoints (SQLite's default is 1000). SQLite deletes the
 * WAL when the last connection closes, so every process starts with an empty one that each
 * commit extends: new file blocks, which made the commit's fsync cost 2–3x one that overwrites
 * blocks the file already has. After a checkpoint the WAL is rewritten from its start, so a
 * small threshold bounds that growing phase to the first ~128 appends of a process.
 */
const WAL_AUTOCHECKPOINT_FRAMES = 256

/**
 * A store in one SQLite database (the embedded default; parent directories are created).
 * WAL journal with `synchronous = FULL`, so every append is fsynced before it resolves; events
 * are keyed by (session, seq) with a unique constraint, so of two processes appending the same
 * seq exactly one succeeds and the other gets a conflict error.
 */
export function sqliteStore(path: string = DEFAULT_SQLITE_PATH): SessionStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path, { timeout: 5_000 })
  db.pragma('journal_mode = WAL')
  // In WAL mode NORMAL only syncs at checkpoints, so a power cut can lose the latest commits;
  // FULL syncs the WAL at every commit, which is what "durable before append resolves" means.
  db.pragma('synchronous = FULL')
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_FRAMES}`)
  db.exec(SCHEMA)

  const ensure = db.prepare(
    'INSERT OR IGNORE INTO sessions (id, created, updated, events) VALUES (?, ?, ?, 0)',
  )
  const select = db.prepare('SELECT seq, type, data FROM events WHERE session = ? ORDER BY seq').raw(true)
  const count = db.prepare('SELECT events FROM sessions WHERE id = ?').pluck(true)
  const insert = db.prepare('INSERT INTO events (session, seq, type, data) VALUES (?, ?, ?, ?)')
  // Moving the count only from the seq before the batch makes the stale-writer check part of
  // the one UPDATE every append needs anyway: no SELECT per append.
  const advance = db.prepare('UPDATE sessions SET updated = ?, events = ? WHERE id = ? AND events = ?')
  const list = db.prepare('SELECT id, created, updated, events FROM sessions ORDER BY created, id')

  const write = db.transaction((id: string, events: readonly SessionEvent[]) => {
    const now = new Date().toISOString()
    const from = events[0]!.seq - 1
    const to = events[events.length - 1]!.seq
    if (advance.run(now, to, id, from).changes !== 1) {
      // `load` creates the row; a store used without it gets the row here, then one retry.
      ensure.run(id, now, now)
      if (advance.run(now, to, id, from).changes !== 1) throw conflictError(id, count.get(id) as number)
    }
    for (const event of events) insert.run(id, event.seq, event.type, JSON.stringify(event.data))
  })

  return {
    async load(id) {
      const now = new Date().toISOString()
      ensure.run(id, now, now)
      return decodeRows(path, id, select.all(id) as EventRow[])
    },
    async append(id, events) {
      if (events.length === 0) return
      try {
        // IMMEDIATE takes the write lock up front, so two processes queue on the busy timeout
        // instead of failing to upgrade a read transaction.
        write.immediate(id, events)
      } catch (error) {
        if ((error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw conflictError(id, count.get(id) as number)
        }
        throw error
      }
    },
    async listSessions() {
      return list.all() as SessionInfo[]
    },
    async close() {
      if (db.open) db.close()
    },
  }
}
