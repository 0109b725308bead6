import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { invariantError } from '@tooltx/core/internal'
import type { SessionEvent } from '../../log/events.js'
import { Heartbeat, type LeaseOptions, leaseHeldError, leaseMsOf, OpenHandles } from '../lease.js'
import { type CheckpointedLog, conflictError, type SessionStore } from '../store.js'
import { readAt, readCheckpoint, writeCheckpoint } from './file-checkpoint.js'
import { nextEpoch, syncDirectory } from './file-epoch.js'
import { acquireLock, holdsLock, lockContent, releaseLock, renewLock } from './file-lock.js'
import { LOG_SUFFIX, listLogs } from './file-reader.js'
import { formatBatch, type Scan, scanLog } from './jsonl-log.js'

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
  /** True when the log's last line carries a checksum (a checkpoint is anchored only on such a line). */
  checked: boolean
}

/**
 * A store that keeps each session in its own append-only JSONL file `<dir>/<id>.jsonl`.
 * Every append is one `write` followed by `fsync` before it resolves. A store takes the
 * session's lock file `<id>.jsonl.lock` (holding its pid and process start identity) when it
 * first loads the session and keeps it until the session is closed (`release(id)`) or the store
 * is, renewing it by touching the lock's modification time every third of `leaseMs` (L14.2); a
 * lock left by a dead process, or not renewed for `leaseMs`, is taken over atomically (L11.2).
 * A store that cannot get the lock can read the log but its appends reject with a conflict
 * error, and it never truncates the tail another writer may be writing. Before each write it
 * checks that the lock is still its own, so a writer whose lock was taken over is fenced.
 * The lease's epoch (F1.9) is counted in `<id>.jsonl.epoch`, which only the lock holder writes.
 */
export function fileStore(dir: string, options: LeaseOptions = {}): SessionStore {
  const leaseMs = leaseMsOf(options)
  const token = lockContent()
  const logs = new Map<string, OpenLog>()
  const handles = new OpenHandles()
  const heartbeat = new Heartbeat(leaseMs, () => {
    for (const log of logs.values()) if (log.writer) renewLock(log.lock, token)
  })

  /** The open log of `id`, creating the file (and making its name durable) on first use. */
  const logOf = (id: string): OpenLog => {
    let log = logs.get(id)
    if (log === undefined) {
      mkdirSync(dir, { recursive: true })
      const file = join(dir, id + LOG_SUFFIX)
      const created = !existsSync(file)
      const fd = openSync(file, 'a+')
      if (created) syncDirectory(dir)
      log = { file, lock: `${file}.lock`, fd, writer: false, holder: '', size: 0, lastSeq: 0, checked: false }
      logs.set(id, log)
    }
    return log
  }

  /** Takes the log's lock unless this store holds it; returns who holds it when that fails. */
  const takeLock = (log: OpenLog): { holder: string; expires: number } | undefined => {
    if (log.writer) return undefined
    const held = acquireLock(log.lock, token, leaseMs)
    log.writer = held === undefined
    log.holder = held?.holder ?? ''
    if (log.writer) heartbeat.start()
    return held
  }

  /**
   * Reads the log from disk, taking the lock if it is free. The lock holder cuts a torn tail
   * and learns where the log ends; a reader never truncates what a live writer may be writing.
   */
  const refresh = (id: string, log: OpenLog): SessionEvent[] => {
    takeLock(log)
    const bytes = readFileSync(log.file)
    return settle(log, 0, 0, bytes, scanLog(bytes, log.file, id)).events
  }

  /**
   * Records where the log ends once `bytes` (the file from byte `offset` on) were scanned; the
   * lock holder cuts a torn tail off so it is never read as an event (a crash mid-write).
   */
  const settle = (log: OpenLog, offset: number, seq: number, bytes: Buffer, scan: Scan): Scan => {
    if (log.writer) {
      if (scan.committed < bytes.length) {
        ftruncateSync(log.fd, offset + scan.committed)
        fsyncSync(log.fd)
      }
      log.size = offset + scan.committed
      log.lastSeq = seq + scan.events.length
      log.checked = scan.checked
    }
    return scan
  }

  /** The log from its checkpoint on (L11.8); `undefined` when it has no checkpoint that passes every check. */
  const fromCheckpoint = (id: string, log: OpenLog): CheckpointedLog | undefined => {
    takeLock(log)
    const size = fstatSync(log.fd).size
    const checkpoint = readCheckpoint(log.file, log.fd, id, size)
    if (checkpoint === undefined) return undefined
    const { seq, offset, state } = checkpoint
    const bytes = readAt(log.fd, offset, size)
    const scan = settle(
      log,
      offset,
      seq,
      bytes,
      scanLog(bytes, log.file, id, { seq: seq + 1, checked: true }),
    )
    const file = log.file
    const before = (): SessionEvent[] => {
      // By path, so it also works once this store let go of the file.
      const fd = openSync(file, 'r')
      try {
        const events = scanLog(readAt(fd, 0, offset), file, id).events
        if (events.length !== seq) {
          throw invariantError(
            `session "${id}": file ${file} no longer holds the ${seq} events its checkpoint was taken after; restore it from a backup`,
          )
        }
        return events
      } finally {
        closeSync(fd)
      }
    }
    return { seq, state, tail: scan.events, before }
  }

  /** Closes the file and lets go of the lock this store holds for it. */
  const closeLog = (log: OpenLog): void => {
    closeSync(log.fd)
    if (log.writer) releaseLock(log.lock, token)
  }

  return {
    async acquire(id) {
      handles.claim(id)
      try {
        const log = logOf(id)
        const held = takeLock(log)
        if (held !== undefined) throw leaseHeldError(id, held.holder, held.expires)
        return nextEpoch(`${log.file}.epoch`)
      } catch (error) {
        handles.free(id)
        throw error
      }
    },
    async load(id) {
      return refresh(id, logOf(id))
    },
    async loadCheckpoint(id) {
      return fromCheckpoint(id, logOf(id))
    },
    async saveCheckpoint(id, seq, state) {
      const log = logs.get(id)
      if (log === undefined || !log.writer || !log.checked || seq !== log.lastSeq || log.size === 0) return
      writeCheckpoint(log.file, log.fd, id, seq, log.size, state)
    },
    async append(id, events) {
      if (events.length === 0) return
      const log = logOf(id)
      // Fencing: a writer whose lock was taken over (its lease ran out while it was paused)
      // finds another writer's lock and is refused below.
      if (log.writer && !holdsLock(log.lock, token)) log.writer = false
      if (!log.writer) {
        const stored = refresh(id, log)
        if (!log.writer) throw conflictError(id, stored.length, log.holder)
      }
      // Seqs come from the appending session's view: a stale view means someone else wrote.
      if (events[0]!.seq !== log.lastSeq + 1) throw conflictError(id, log.lastSeq)
      const bytes = formatBatch(events)
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
      log.lastSeq = events[events.length - 1]!.seq
      log.checked = true
    },
    async listSessions() {
      return listLogs(dir)
    },
    async release(id) {
      handles.free(id)
      const log = logs.get(id)
      if (log === undefined) return
      logs.delete(id)
      closeLog(log)
      if (logs.size === 0) heartbeat.stop()
    },
    async close() {
      heartbeat.stop()
      handles.clear()
      for (const log of logs.values()) closeLog(log)
      logs.clear()
    },
  }
}
