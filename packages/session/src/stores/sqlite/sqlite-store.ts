import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import type { SessionEvent } from '../../log/events.js'
import { checksumOf, decodeRows, type EventRow } from '../event-rows.js'
import {
  Heartbeat,
  type LeaseOptions,
  leaseHeldError,
  leaseLostError,
  leaseMsOf,
  OpenHandles,
} from '../lease.js'
import { liveHolder, lockContent } from '../process-identity.js'
import { conflictError, type SessionInfo, type SessionStore } from '../store.js'
import { CHECKPOINT_SCHEMA, sqliteCheckpoints } from './sqlite-checkpoint.js'
import { defaultSqliteDriver, loadSqliteDriver, type SqliteDriverName } from './sqlite-driver.js'

/** Where the CLI keeps its sessions, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = '.tooltx/sessions.db'

/** Options of `sqliteStore`. */
export interface SqliteStoreOptions extends LeaseOptions {
  /**
   * The SQLite binding: `'node:sqlite'` (Node >= 22.13) or `'better-sqlite3'` (an optional peer
   * dependency). Default: `node:sqlite` where it exists, else better-sqlite3 (L11.6).
   */
  driver?: SqliteDriverName
}

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
  crc INTEGER,
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
 * seq exactly one succeeds and the other gets a conflict error. Every row carries a CRC-32 of
 * its seq, type and data, which `load` verifies. A session's lease (L14) is its row's
 * `lease` (`<pid> <start> <token>` of the holding store object) and `expires` (milliseconds),
 * taken in a `BEGIN IMMEDIATE` transaction, renewed by a heartbeat and by every append, and
 * checked by the append's own UPDATE, so a writer whose lease was taken over cannot append;
 * its `epoch` counts the takes (F1.9).
 * Throws `INVALID_DEFINITION` when the driver cannot be loaded, naming what to install.
 */
export function sqliteStore(
  path: string = DEFAULT_SQLITE_PATH,
  options: SqliteStoreOptions = {},
): SessionStore {
  const leaseMs = leaseMsOf(options)
  const driver = loadSqliteDriver(options.driver ?? defaultSqliteDriver())
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = driver.open(path)
  // Two processes queue on the write lock for up to 5 s instead of failing at once.
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA journal_mode = WAL')
  // In WAL mode NORMAL only syncs at checkpoints, so a power cut can lose the latest commits;
  // FULL syncs the WAL at every commit, which is what "durable before append resolves" means.
  db.exec('PRAGMA synchronous = FULL')
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_FRAMES}`)
  db.exec(SCHEMA)
  db.exec(CHECKPOINT_SCHEMA)
  // A database from before checksums gets the column; its old rows keep a NULL crc.
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('events') as { name: string }[]
  if (!columns.some((c) => c.name === 'crc')) db.exec('ALTER TABLE events ADD COLUMN crc INTEGER')
  // A database from before leases gets their columns; its sessions start with no holder.
  const sessionColumns = db.prepare('SELECT name FROM pragma_table_info(?)').all('sessions') as {
    name: string
  }[]
  if (!sessionColumns.some((c) => c.name === 'lease')) {
    db.exec('ALTER TABLE sessions ADD COLUMN lease TEXT; ALTER TABLE sessions ADD COLUMN expires INTEGER')
  }
  // A database from before lease epochs (F1.9) counts them from 0.
  if (!sessionColumns.some((c) => c.name === 'epoch')) {
    db.exec('ALTER TABLE sessions ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0')
  }

  const ensure = db.prepare(
    'INSERT OR IGNORE INTO sessions (id, created, updated, events) VALUES (?, ?, ?, 0)',
  )
  const select = db.prepare('SELECT seq, type, data, crc FROM events WHERE session = ? ORDER BY seq')
  const count = db.prepare('SELECT events FROM sessions WHERE id = ?')
  const insert = db.prepare('INSERT INTO events (session, seq, type, data, crc) VALUES (?, ?, ?, ?, ?)')
  // Moving the count only from the seq before the batch, and only while this store holds the
  // lease, makes the stale-writer check and the fencing part of the one UPDATE every append
  // needs anyway (which renews the lease too): no SELECT per append.
  const advance = db.prepare(
    'UPDATE sessions SET updated = ?, events = ?, expires = ? WHERE id = ? AND events = ? AND lease = ?',
  )
  const leaseOf = db.prepare('SELECT events, lease, expires FROM sessions WHERE id = ?')
  const take = db.prepare('UPDATE sessions SET lease = ?, expires = ?, epoch = epoch + 1 WHERE id = ?')
  const epochOf = db.prepare('SELECT epoch FROM sessions WHERE id = ?')
  const renew = db.prepare('UPDATE sessions SET expires = ? WHERE lease = ?')
  const giveBack = db.prepare('UPDATE sessions SET lease = NULL, expires = NULL WHERE id = ? AND lease = ?')
  const giveAllBack = db.prepare('UPDATE sessions SET lease = NULL, expires = NULL WHERE lease = ?')
  const list = db.prepare('SELECT id, created, updated, events FROM sessions ORDER BY created, id')
  // IMMEDIATE takes the write lock up front, so two processes queue on the busy timeout
  // instead of failing to upgrade a read transaction.
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  const token = lockContent()
  const checkpoints = sqliteCheckpoints(db, path)
  /** The sessions whose lease this store object took (it may since have been taken over). */
  const held = new Set<string>()
  const handles = new OpenHandles()
  let open = true
  const heartbeat = new Heartbeat(leaseMs, () => {
    try {
      renew.run(Date.now() + leaseMs, token)
    } catch {}
  })

  const stored = (id: string): number => (count.get(id) as { events: number }).events

  /**
   * Inside a write transaction: takes the lease of `id` if it is free, its holder's or this
   * store's; returns who holds it otherwise.
   */
  const takeLease = (id: string): { holder: string; expires: number } | undefined => {
    const now = Date.now()
    ensure.run(id, new Date(now).toISOString(), new Date(now).toISOString())
    const row = leaseOf.get(id) as { lease: string | null; expires: number | null }
    if (row.lease !== null && row.lease !== token) {
      const holder = liveHolder(row.lease, row.expires ?? 0)
      if (holder !== undefined) return { holder, expires: row.expires! }
    }
    take.run(token, now + leaseMs, id)
    held.add(id)
    heartbeat.start()
    return undefined
  }

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction, rolled back when it throws. */
  const transaction = <T>(body: () => T): T => {
    begin.run()
    try {
      const result = body()
      commit.run()
      return result
    } catch (error) {
      try {
        rollback.run()
      } catch {}
      throw error
    }
  }

  const write = (id: string, events: readonly SessionEvent[]): void => {
    const now = Date.now()
    const from = events[0]!.seq - 1
    const to = events[events.length - 1]!.seq
    const advanced = () =>
      advance.run(new Date(now).toISOString(), to, now + leaseMs, id, from, token).changes === 1
    if (!advanced()) {
      // Not this store's lease (or no row yet): take it if it is free, never from a live writer,
      // and never back from the writer that took it over (fencing).
      const lease = (leaseOf.get(id) as { lease: string | null } | undefined)?.lease ?? null
      if (lease !== token) {
        if (held.has(id) && lease !== null) {
          held.delete(id)
          throw leaseLostError(
            id,
            liveHolder(lease, Number.POSITIVE_INFINITY) ?? 'a writer that has since gone',
          )
        }
        const other = takeLease(id)
        if (other !== undefined) throw conflictError(id, stored(id), other.holder)
      }
      if (!advanced()) throw conflictError(id, stored(id))
    }
    for (const { seq, type, data } of events) {
      const text = stringifyJson(data as unknown as JsonValue)
      insert.run(id, seq, type, text, checksumOf(seq, type, text))
    }
  }

  return {
    async acquire(id) {
      handles.claim(id)
      try {
        const taken = transaction(() => takeLease(id) ?? (epochOf.get(id) as { epoch: number }).epoch)
        if (typeof taken !== 'number') throw leaseHeldError(id, taken.holder, taken.expires)
        return taken
      } catch (error) {
        handles.free(id)
        throw error
      }
    },
    async load(id) {
      const now = new Date().toISOString()
      ensure.run(id, now, now)
      return decodeRows(path, id, select.all(id) as EventRow[])
    },
    async loadCheckpoint(id) {
      const now = new Date().toISOString()
      ensure.run(id, now, now)
      return checkpoints.load(id)
    },
    async saveCheckpoint(id, seq, state) {
      if (open && held.has(id)) checkpoints.save(id, seq, state, token)
    },
    async append(id, events) {
      if (events.length === 0) return
      try {
        transaction(() => write(id, events))
      } catch (error) {
        if (driver.isPrimaryKeyConflict(error)) throw conflictError(id, stored(id))
        throw error
      }
    },
    async listSessions() {
      const rows = list.all() as SessionInfo[]
      return rows.map(({ id, created, updated, events }) => ({ id, created, updated, events }))
    },
    async release(id) {
      handles.free(id)
      if (!open || !held.delete(id)) return
      giveBack.run(id, token)
      if (held.size === 0) heartbeat.stop()
    },
    async close() {
      heartbeat.stop()
      handles.clear()
      if (open) {
        if (held.size > 0) giveAllBack.run(token)
        db.close()
      }
      held.clear()
      open = false
    },
  }
}
