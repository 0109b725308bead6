import { randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { deepFreeze, invariantError, type ToolError } from '@tooltx/core'
import type { SessionEvent } from './events.js'
import { conflictError, type SessionInfo, type SessionStore } from './store.js'

const NEWLINE = 0x0a
const SUFFIX = '.jsonl'

/** What one scan of a log file found. */
interface Scan {
  readonly events: SessionEvent[]
  /** Bytes up to the end of the last complete event (or batch); anything after is a torn tail. */
  readonly committed: number
}

/**
 * Reads a log file's bytes. Each event is one line `{"seq":…,"type":…,"data":…}`; members of a
 * batch but the last also carry `"more":true`, so a batch counts only once its last line is
 * complete. An incomplete last line or batch is a torn tail (a crash mid-write) and is left
 * out of `committed`; a malformed line before the tail is corruption and throws.
 */
function scan(bytes: Buffer, file: string): Scan {
  const events: SessionEvent[] = []
  let committed = 0
  let committedCount = 0
  let start = 0
  let line = 0
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start)
    if (end === -1) break
    line++
    let parsed: { seq?: unknown; type?: unknown; data?: unknown; more?: unknown }
    try {
      parsed = JSON.parse(bytes.toString('utf8', start, end))
    } catch (error) {
      // A complete but unreadable final line can only be a crash artefact; earlier ones are damage.
      if (end + 1 === bytes.length) break
      throw corrupt(file, line, (error as Error).message)
    }
    const { seq, type, data } = parsed
    if (seq !== events.length + 1 || typeof type !== 'string' || data === undefined) {
      throw corrupt(file, line, `expected an event with seq ${events.length + 1}`)
    }
    events.push(deepFreeze({ seq, type, data }) as SessionEvent)
    start = end + 1
    if (parsed.more !== true) {
      committed = start
      committedCount = events.length
    }
  }
  events.length = committedCount
  return { events, committed }
}

function corrupt(file: string, line: number, why: string): ToolError {
  return invariantError(
    `session file ${file} is damaged at line ${line} (${why}); it was left unchanged — restore it from a backup or move it aside`,
  )
}

/** One open log file of this store. */
interface OpenLog {
  readonly file: string
  readonly lock: string
  readonly fd: number
  /** True while this store holds the log's lock file. */
  writer: boolean
  /** Who holds the lock when this store does not. */
  holder: string
  size: number
  lastSeq: number
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/**
 * A store that keeps each session in its own append-only JSONL file `<dir>/<id>.jsonl`.
 * Every append is one `write` followed by `fsync` before it resolves. A store takes the
 * session's lock file `<id>.jsonl.lock` (holding its pid) when it first loads the session and
 * keeps it until `close()`; a lock left by a dead process is taken over. A store that cannot
 * get the lock can read the log but its appends reject with a conflict error, and it never
 * truncates the tail another writer may be writing.
 */
export function fileStore(dir: string): SessionStore {
  const token = `${process.pid} ${randomBytes(8).toString('hex')}`
  const logs = new Map<string, OpenLog>()

  /** Tries to take the lock file; `undefined` on success, otherwise who holds it. */
  const tryLock = (lock: string): string | undefined => {
    const temp = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}`
    writeNewFile(temp, token)
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          // link() is atomic and fails if the lock exists, and the lock is born complete.
          linkSync(temp, lock)
          return undefined
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'EEXIST') throw error
        }
        let content: string
        try {
          content = readFileSync(lock, 'utf8')
        } catch {
          continue
        }
        if (content === token) return undefined
        const pid = Number.parseInt(content, 10)
        if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) {
          return pid === process.pid ? 'another store object in this process' : `process ${pid}`
        }
        try {
          unlinkSync(lock)
        } catch {}
      }
      return 'a writer that keeps replacing the lock file'
    } finally {
      unlinkSync(temp)
    }
  }

  /** The open log of `id`, creating the file (and making its name durable) on first use. */
  const logOf = (id: string): OpenLog => {
    let log = logs.get(id)
    if (log === undefined) {
      mkdirSync(dir, { recursive: true })
      const file = join(dir, id + SUFFIX)
      const created = !existsSync(file)
      const fd = openSync(file, 'a+')
      if (created) syncDirectory(dir)
      log = { file, lock: `${file}.lock`, fd, writer: false, holder: '', size: 0, lastSeq: 0 }
      logs.set(id, log)
    }
    return log
  }

  /**
   * Reads the log from disk, taking the lock if it is free. The lock holder cuts a torn tail
   * and learns where the log ends; a reader never truncates what a live writer may be writing.
   */
  const refresh = (log: OpenLog): SessionEvent[] => {
    if (!log.writer) {
      const holder = tryLock(log.lock)
      log.writer = holder === undefined
      log.holder = holder ?? ''
    }
    const bytes = readFileSync(log.file)
    const { events, committed } = scan(bytes, log.file)
    if (log.writer) {
      if (committed < bytes.length) {
        // A crash mid-write left a torn tail: cut it off so it is never read as an event.
        ftruncateSync(log.fd, committed)
        fsyncSync(log.fd)
      }
      log.size = committed
      log.lastSeq = events.length
    }
    return events
  }

  return {
    async load(id) {
      return refresh(logOf(id))
    },
    async append(id, events) {
      if (events.length === 0) return
      const log = logOf(id)
      if (!log.writer) {
        const stored = refresh(log)
        if (!log.writer) throw conflictError(id, stored.length, log.holder)
      }
      // Seqs come from the appending session's view: a stale view means someone else wrote.
      if (events[0]!.seq !== log.lastSeq + 1) throw conflictError(id, log.lastSeq)
      let text = ''
      const last = events.length - 1
      for (let i = 0; i <= last; i++) {
        const { seq, type, data } = events[i]!
        text += `${JSON.stringify(i === last ? { seq, type, data } : { seq, type, data, more: true })}\n`
      }
      const bytes = Buffer.from(text)
      try {
        let written = 0
        while (written < bytes.length) written += writeSync(log.fd, bytes, written)
        fsyncSync(log.fd)
      } catch (error) {
        // Leave no partial batch behind; the next load would cut it anyway.
        try {
          ftruncateSync(log.fd, log.size)
        } catch {}
        throw error
      }
      log.size += bytes.length
      log.lastSeq = events[last]!.seq
    },
    async listSessions() {
      let names: string[]
      try {
        names = readdirSync(dir).filter((n) => n.endsWith(SUFFIX))
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return []
        throw error
      }
      const rows: SessionInfo[] = names.map((name) => {
        const file = join(dir, name)
        const stat = statSync(file)
        return {
          id: name.slice(0, -SUFFIX.length),
          created: new Date(stat.birthtimeMs || stat.ctimeMs).toISOString(),
          updated: new Date(stat.mtimeMs).toISOString(),
          events: scan(readFileSync(file), file).events.length,
        }
      })
      return rows.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id))
    },
    async close() {
      for (const log of logs.values()) {
        closeSync(log.fd)
        if (log.writer) {
          try {
            if (readFileSync(log.lock, 'utf8') === token) unlinkSync(log.lock)
          } catch {}
        }
      }
      logs.clear()
    },
  }
}

function writeNewFile(file: string, content: string): void {
  const fd = openSync(file, 'wx')
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
}

/** Makes a newly created directory entry durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
