/**
 * The file store's writer lock: a file created atomically, holding `<pid> <start> <token>`,
 * where `<start>` says which process had that pid (L11.2–L11.4).
 */
import { randomBytes } from 'node:crypto'
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { crc32Hex } from './checksum.js'

/**
 * What tells two processes with the same pid apart. On Linux the boot id and the process's
 * start time in clock ticks (`/proc/<pid>/stat` field 22), so a lock of an earlier process
 * with a reused pid — PID 1 of a restarted container — is known to be dead; `undefined` where
 * `/proc` cannot say.
 */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces; field 3 follows it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return `${boot}.${fields[19]}`
  } catch {
    return undefined
  }
}

/**
 * This process's start identity: from `/proc`, or else one random value per process, kept on
 * `globalThis` so two copies of this module in one process agree.
 */
function ownStart(): string {
  const key = Symbol.for('tooltx.session.processStart')
  const global = globalThis as { [key]?: string }
  global[key] ??= startOf(process.pid) ?? `random.${randomBytes(8).toString('hex')}`
  return global[key]
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'
  }
}

/** A new lock content for one store object: `<pid> <start> <token>`. */
export function lockContent(): string {
  return `${process.pid} ${ownStart()} ${randomBytes(8).toString('hex')}`
}

/**
 * Who holds a lock with `content`, or `undefined` when its holder is gone: the pid is dead,
 * or it is alive but belongs to a later process than the one that wrote the lock (another
 * start identity). A lock of the older `<pid> <token>` format is judged by its pid alone (held
 * iff another process with that pid is alive); content that is not a lock is stale.
 */
function liveHolder(content: string): string | undefined {
  const fields = content.split(' ')
  const pid = Number(fields[0])
  const start = fields.length === 3 ? fields[1] : undefined
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined
  if (pid === process.pid) return start === ownStart() ? 'another store object in this process' : undefined
  if (!isAlive(pid)) return undefined
  const current = startOf(pid)
  if (start !== undefined && current !== undefined && current !== start && !start.startsWith('random.')) {
    return undefined
  }
  return `process ${pid}`
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Writes `content` to a fresh private file beside `path` and returns its name. */
function privateCopy(path: string, content: string): string {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  const fd = openSync(temp, 'wx')
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
  return temp
}

/** Creates `path` holding `content` iff it does not exist; the file is born complete. */
function createExclusive(path: string, content: string): boolean {
  const temp = privateCopy(path, content)
  try {
    linkSync(temp, path)
    return true
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error
    return false
  } finally {
    unlinkSync(temp)
  }
}

/** How many crashed takeovers in a row are taken over in turn before giving up. */
const MAX_TAKEOVER_DEPTH = 4

/**
 * Takes the lock `path` for `content`: `undefined` once held, otherwise who holds it. A free
 * lock is created atomically. A stale lock is replaced only by the one process that created
 * the takeover marker named after that exact stale content (itself such a lock, so a marker
 * left by a crashed taker is taken over the same way); the marker holder checks the lock still
 * holds that content and swaps it with `rename`, so the lock path is never empty and two takers
 * can never both win (the race the old read-then-unlink had).
 */
export function acquireLock(path: string, content: string, depth = 0): string | undefined {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, content)) return undefined
    const seen = readOrUndefined(path)
    if (seen === undefined) continue
    if (seen === content) return undefined
    const holder = liveHolder(seen)
    if (holder !== undefined) return holder
    if (depth === MAX_TAKEOVER_DEPTH) {
      return `a stale lock that crashed takeovers left; remove ${path} and its .takeover files by hand`
    }
    const marker = `${path}.takeover-${crc32Hex(Buffer.from(seen))}`
    const taker = acquireLock(marker, content, depth + 1)
    if (taker !== undefined) return `${taker}, which is taking the lock over`
    try {
      if (readOrUndefined(path) === seen) {
        renameSync(privateCopy(path, content), path)
        return undefined
      }
    } finally {
      releaseLock(marker, content)
    }
  }
  return 'a writer that keeps replacing the lock file'
}

/** Removes the lock `path` if it still holds `content`; never throws. */
export function releaseLock(path: string, content: string): void {
  try {
    if (readFileSync(path, 'utf8') === content) unlinkSync(path)
  } catch {}
}
