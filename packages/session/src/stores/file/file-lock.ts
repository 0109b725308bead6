/**
 * The file store's writer lock: a file created atomically, holding `<pid> <start> <token>`,
 * where `<start>` says which process had that pid (L11.2–L11.4). Its modification time is the
 * holder's last heartbeat: the lease runs `leaseMs` past it (L14.2).
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs'
import { crc32Hex } from '../checksum.js'
import { liveHolder } from '../process-identity.js'

export { lockContent } from '../process-identity.js'

/** Who holds a lock, and until when its lease runs (milliseconds since the epoch). */
export interface LockHolder {
  readonly holder: string
  readonly expires: number
}

/** The lock's content and the end of its lease, or `undefined` when there is no lock. */
function readLock(file: string, leaseMs: number): { content: string; expires: number } | undefined {
  try {
    const content = readFileSync(file, 'utf8')
    return { content, expires: statSync(file).mtimeMs + leaseMs }
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
 * lock is created atomically. A stale lock (its holder dead, or its lease — `leaseMs` past its
 * last heartbeat — run out) is replaced only by the one process that created the takeover
 * marker named after that exact stale content (itself such a lock, so a marker left by a
 * crashed taker is taken over the same way); the marker holder checks the lock still holds that
 * content and swaps it with `rename`, so the lock path is never empty and two takers can never
 * both win (the race the old read-then-unlink had).
 */
export function acquireLock(
  path: string,
  content: string,
  leaseMs: number,
  depth = 0,
): LockHolder | undefined {
  const later = Date.now() + leaseMs
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, content)) return undefined
    const seen = readLock(path, leaseMs)
    if (seen === undefined) continue
    if (seen.content === content) return undefined
    const holder = liveHolder(seen.content, seen.expires)
    if (holder !== undefined) return { holder, expires: seen.expires }
    if (depth === MAX_TAKEOVER_DEPTH) {
      return {
        holder: `a stale lock that crashed takeovers left; remove ${path} and its .takeover files by hand`,
        expires: later,
      }
    }
    const marker = `${path}.takeover-${crc32Hex(Buffer.from(seen.content))}`
    const taker = acquireLock(marker, content, leaseMs, depth + 1)
    if (taker !== undefined)
      return { holder: `${taker.holder}, which is taking the lock over`, expires: taker.expires }
    try {
      if (readLock(path, leaseMs)?.content === seen.content) {
        renameSync(privateCopy(path, content), path)
        return undefined
      }
    } finally {
      releaseLock(marker, content)
    }
  }
  return { holder: 'a writer that keeps replacing the lock file', expires: later }
}

/** True iff the lock `path` still holds `content` (this holder was not taken over). */
export function holdsLock(path: string, content: string): boolean {
  try {
    return readFileSync(path, 'utf8') === content
  } catch {
    return false
  }
}

/** The heartbeat: marks the lock `path` renewed now if it still holds `content`; never throws. */
export function renewLock(path: string, content: string): void {
  try {
    if (holdsLock(path, content)) {
      const now = new Date()
      utimesSync(path, now, now)
    }
  } catch {}
}

/** Removes the lock `path` if it still holds `content`; never throws. */
export function releaseLock(path: string, content: string): void {
  try {
    if (readFileSync(path, 'utf8') === content) unlinkSync(path)
  } catch {}
}
