import type { SessionEvent } from '../log/events.js'
import { OpenHandles } from './lease.js'
import { conflictError, type SessionInfo, type SessionStore } from './store.js'

interface MemoryLog {
  readonly events: SessionEvent[]
  readonly created: string
  /** Milliseconds since the epoch; formatted only when listed, not on every append. */
  updated: number
}

/**
 * A store that keeps logs in this process's memory: for tests and throwaway agents. "Durable"
 * means "recorded in this store object"; nothing survives the process.
 */
export function memoryStore(): SessionStore {
  const logs = new Map<string, MemoryLog>()
  const handles = new OpenHandles()
  /** Each session's lease epoch: counts the handles that have opened it (F1.9). */
  const epochs = new Map<string, number>()
  const logOf = (id: string): MemoryLog => {
    let log = logs.get(id)
    if (log === undefined) {
      const now = Date.now()
      log = { events: [], created: new Date(now).toISOString(), updated: now }
      logs.set(id, log)
    }
    return log
  }
  return {
    // The store object is the only writer its logs can have; of its handles, one at a time (L14.6).
    async acquire(id) {
      handles.claim(id)
      const epoch = (epochs.get(id) ?? 0) + 1
      epochs.set(id, epoch)
      return epoch
    },
    async load(id) {
      return logOf(id).events.slice()
    },
    async append(id, events) {
      const log = logOf(id)
      const first = events[0]
      if (first === undefined) return
      if (first.seq !== log.events.length + 1) throw conflictError(id, log.events.length)
      for (const event of events) log.events.push(event)
      log.updated = Date.now()
    },
    async listSessions() {
      const rows: SessionInfo[] = []
      for (const [id, log] of logs) {
        const updated = new Date(log.updated).toISOString()
        rows.push({ id, created: log.created, updated, events: log.events.length })
      }
      return rows
    },
    async release(id) {
      handles.free(id)
    },
    async close() {
      handles.clear()
    },
  }
}
