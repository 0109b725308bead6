import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { invariantError } from '@tooltx/core/internal'
import type { SessionReader } from '../session-reader.js'
import { isSessionId, type SessionInfo } from '../store.js'
import { scanLog } from './jsonl-log.js'

/** The file name suffix of a file store's session log. */
export const LOG_SUFFIX = '.jsonl'

/** The number of whole lines of `bytes` (a log holds one event per line). */
function wholeLines(bytes: Buffer): number {
  let lines = 0
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++
  return lines
}

/**
 * Every session log in the file store folder `dir`, oldest first, read without taking a lock or
 * changing a byte; an empty list when the folder does not exist. A log that cannot be read — a
 * damaged line, a file that is not a tooltx log at all (G2.5) — is still listed, with `events`
 * counting its whole lines, so one bad file never hides the others: reading it (`fileReader`'s
 * `read`, `fileStore`'s `load`) is what reports the damage. An entry that is not a regular file,
 * or that vanishes while it is listed, is skipped.
 */
export function listLogs(dir: string): SessionInfo[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(LOG_SUFFIX))
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return []
    throw error
  }
  const rows: SessionInfo[] = []
  for (const name of names) {
    const file = join(dir, name)
    let bytes: Buffer
    const stat = statSync(file, { throwIfNoEntry: false })
    if (stat === undefined || !stat.isFile()) continue
    try {
      bytes = readFileSync(file)
    } catch {
      continue
    }
    const id = name.slice(0, -LOG_SUFFIX.length)
    let events: number
    try {
      events = scanLog(bytes, file, id).events.length
    } catch {
      events = wholeLines(bytes)
    }
    rows.push({
      id,
      created: new Date(stat.birthtimeMs || stat.ctimeMs).toISOString(),
      updated: new Date(stat.mtimeMs).toISOString(),
      events,
    })
  }
  return rows.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id))
}

/**
 * The read side of a file store folder (`fileStore(dir)`), for viewers (G2.1): it never takes a
 * session's lock, never creates a file and never cuts a torn tail, so it can read a log while
 * another process writes it; a torn last line is simply not read yet. `read(id)` resolves with
 * `undefined` when no log is named `id` (an id that is no session id names none), and rejects
 * with the damage for a log that cannot be read (G2.5): a damaged line, or a `.jsonl` file whose
 * name is no session id. Returns `undefined` when `dir` is not a folder.
 */
export function fileReader(dir: string): SessionReader | undefined {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined
  return {
    async listSessions() {
      return listLogs(dir)
    },
    async read(id) {
      const name = id + LOG_SUFFIX
      // An id that is no session id is joined to the folder only when the folder lists it by
      // that very name, so no id reaches a file outside it.
      const valid = isSessionId(id)
      if (!valid && (typeof id !== 'string' || !readdirSync(dir).includes(name))) return undefined
      const file = join(dir, name)
      if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined
      if (!valid) {
        throw invariantError(
          `${file} is not a tooltx session log: "${id}" is not a session id (letters, digits, ".", "_", "-"; at most 128); move it out of the folder`,
        )
      }
      return scanLog(readFileSync(file), file, id).events
    },
    async close() {},
  }
}
