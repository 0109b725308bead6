import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { scanLog } from './jsonl-log.js'
import type { SessionReader } from './sqlite-reader.js'
import { assertSessionId, type SessionInfo } from './store.js'

/** The file name suffix of a file store's session log. */
export const LOG_SUFFIX = '.jsonl'

/**
 * Every session log in the file store folder `dir`, oldest first, read without taking a lock or
 * changing a byte; an empty list when the folder does not exist.
 */
export function listLogs(dir: string): SessionInfo[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(LOG_SUFFIX))
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return []
    throw error
  }
  const rows: SessionInfo[] = names.map((name) => {
    const file = join(dir, name)
    const stat = statSync(file)
    const id = name.slice(0, -LOG_SUFFIX.length)
    return {
      id,
      created: new Date(stat.birthtimeMs || stat.ctimeMs).toISOString(),
      updated: new Date(stat.mtimeMs).toISOString(),
      events: scanLog(readFileSync(file), file, id).events.length,
    }
  })
  return rows.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id))
}

/**
 * The read side of a file store folder (`fileStore(dir)`), for viewers (G2.1): it never takes a
 * session's lock, never creates a file and never cuts a torn tail, so it can read a log while
 * another process writes it; a torn last line is simply not read yet. Returns `undefined` when
 * `dir` is not a folder.
 */
export function fileReader(dir: string): SessionReader | undefined {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined
  return {
    async listSessions() {
      return listLogs(dir)
    },
    async read(id) {
      assertSessionId(id)
      const file = join(dir, id + LOG_SUFFIX)
      if (!existsSync(file)) return undefined
      return scanLog(readFileSync(file), file, id).events
    },
    async close() {},
  }
}
