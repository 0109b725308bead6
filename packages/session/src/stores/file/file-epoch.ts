/**
 * The file store's lease epochs (F1.9): a session's count of lease acquisitions, kept in a
 * small file beside its log that only the holder of the log's lock writes.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import { invariantError } from '@tooltx/core/internal'

/**
 * Reads the epoch stored in `file` (0 when there is none), stores the next one durably — a
 * fresh file renamed over the old one, then the directory synced — and returns it. The caller
 * must hold the session's lock, so no two callers count at once. Throws `INVARIANT` when the
 * file holds something other than a whole number.
 */
export function nextEpoch(file: string): number {
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error
  }
  const current = text === '' ? 0 : Number(text)
  if (!Number.isSafeInteger(current) || current < 0) {
    throw invariantError(
      `lease epoch file ${file} holds ${JSON.stringify(text.slice(0, 40))}, not a whole number; remove it only if no writer of this session is alive`,
    )
  }
  const next = current + 1
  const temp = `${file}.${process.pid}.tmp`
  const fd = openSync(temp, 'w')
  try {
    writeSync(fd, String(next))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, file)
  syncDirectory(dirname(file))
  return next
}

/** Makes a newly created or renamed directory entry of `dir` durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
