import { type FSWatcher, statSync, watch } from 'node:fs'
import path from 'node:path'
import { describeConnection, fileReader, type SessionReader, sqliteReader } from '@tooltx/session'
import { UsageError } from '../display/output.js'
import { checkDb, isPostgres, postgresSessions } from '../session-store.js'

/**
 * What `tooltx view` reads (G2.1): a store's read side and a way to hear that it changed. Any
 * store plugs in by giving both — SQLite and the JSONL file store through file watching here; a
 * store with notifications (PostgreSQL's LISTEN) through them.
 */
export interface ViewerSource {
  /** What the page calls the store: its path or address. */
  readonly label: string
  readonly reader: SessionReader
  /**
   * Calls `onChange` after the store may have changed (possibly more often than it did; never
   * with data). Returns the function that stops watching.
   */
  watch(onChange: () => void): () => void
  /** Stops every watch and releases the reader. */
  close(): Promise<void>
}

/**
 * Watches the folder `dir` for changes to the entries `relevant` accepts. A folder that cannot be
 * watched (removed, or no inotify left) yields no notifications rather than an error: the page
 * still shows what was there and a reload reads anew.
 */
function watchFolder(dir: string, relevant: (name: string) => boolean, onChange: () => void): () => void {
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(dir, (_kind, name) => {
      if (name === null || relevant(String(name))) onChange()
    })
    watcher.on('error', () => watcher?.close())
  } catch {
    return () => {}
  }
  return () => watcher?.close()
}

/**
 * The view source of a PostgreSQL database (`postgres://…`): read with `postgresReader`, watched
 * through its `LISTEN` (every append notifies), labelled without the password. A watch whose
 * connection fails or is lost yields no more notifications rather than an error, as a folder
 * that cannot be watched does.
 */
function postgresViewSource(db: string): ViewerSource {
  const reader = postgresSessions(db)
  const pending = new Set<Promise<unknown>>()
  return {
    label: describeConnection(db),
    reader,
    watch(onChange) {
      const started = reader.watch(onChange, () => {}).catch(() => async () => {})
      pending.add(started)
      return () => {
        pending.delete(started)
        void started.then((stop) => stop())
      }
    },
    async close() {
      // A watch still connecting registers with the reader when it connects: wait for it, so
      // closing the reader also ends it.
      await Promise.all(pending)
      pending.clear()
      await reader.close()
    },
  }
}

/**
 * The view source for `db`: a PostgreSQL connection string (`postgresViewSource`), a SQLite
 * database file (as `sqliteStore` writes it, read-only: K3.3) or a file store folder of `.jsonl`
 * logs (`fileStore`, read without its locks). A path with neither fails with a message saying
 * what to pass; a URL of another scheme is a usage error (`checkDb`).
 */
export function openViewerSource(db: string): ViewerSource {
  checkDb(db)
  if (isPostgres(db)) return postgresViewSource(db)
  const stat = statSync(db, { throwIfNoEntry: false })
  if (stat === undefined) {
    throw new UsageError(
      `there is no session store at ${db}; run \`tooltx demo\` first, or pass --db with a SQLite file or a folder of .jsonl logs`,
    )
  }
  let reader: SessionReader | undefined
  try {
    reader = stat.isDirectory() ? fileReader(db) : sqliteReader(db)
  } catch (error) {
    throw new UsageError(`cannot read the session store ${db}: ${(error as Error).message}`)
  }
  if (reader === undefined) throw new UsageError(`cannot read the session store ${db}`)
  const dir = stat.isDirectory() ? db : path.dirname(db)
  // SQLite in WAL mode writes `<db>-wal` first; the file store writes `<id>.jsonl`.
  const base = path.basename(db)
  const relevant = stat.isDirectory()
    ? (name: string) => name.endsWith('.jsonl')
    : (name: string) => name.startsWith(base)
  const stops = new Set<() => void>()
  const source: ViewerSource = {
    label: db,
    reader,
    watch(onChange) {
      const stop = watchFolder(dir, relevant, onChange)
      stops.add(stop)
      return () => {
        stops.delete(stop)
        stop()
      }
    },
    async close() {
      for (const stop of stops) stop()
      stops.clear()
      await source.reader.close()
    },
  }
  return source
}
