/**
 * The file store's checkpoint (L11.8): `<id>.jsonl.checkpoint`, one line framed like a log line
 * (`{"crc":"<8 hex>",…}`), holding the session id, the seq it was taken after, the byte offset
 * where that seq's line ends, an anchor (the CRC-32 of the log bytes from `from` to `offset`,
 * which include that whole line) and the log state. It is written to a temporary file and
 * renamed into place without fsync: a checkpoint lost or torn by a crash fails its checks and is
 * simply not used.
 */
import { existsSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs'
import { crc32Hex } from '../checksum.js'
import { frameLine, verifies } from './jsonl-log.js'

/** The file name suffix of a log's checkpoint, after the log's own name. */
export const CHECKPOINT_SUFFIX = '.checkpoint'

/** Bytes of the log before a checkpoint's offset that its anchor covers, at least. */
const ANCHOR_BYTES = 4096

/** A checkpoint that passed every check against its log. */
export interface FileCheckpoint {
  readonly seq: number
  readonly offset: number
  /** The parsed log state (`LogState.toJSON`), checked by `LogState.restore`. */
  readonly state: unknown
}

/** The bytes of the file open as `fd` from `start` up to `end` (fewer when the file is shorter). */
export function readAt(fd: number, start: number, end: number): Buffer {
  const bytes = Buffer.alloc(end - start)
  let read = 0
  while (read < bytes.length) {
    const n = readSync(fd, bytes, read, bytes.length - read, start + read)
    if (n === 0) break
    read += n
  }
  return read === bytes.length ? bytes : bytes.subarray(0, read)
}

/** Where the line that ends at `offset` (its newline at `offset - 1`) starts. */
function lineStart(fd: number, offset: number): number {
  let end = offset - 1
  while (end > 0) {
    const start = Math.max(0, end - ANCHOR_BYTES)
    const at = readAt(fd, start, end).lastIndexOf(0x0a)
    if (at !== -1) return start + at + 1
    end = start
  }
  return 0
}

/**
 * Writes the checkpoint of log `log` (open as `fd`) for session `id` after seq `seq`, whose line
 * ends at byte `offset`, holding `state`. The caller makes sure seq ends the committed log there.
 */
export function writeCheckpoint(
  log: string,
  fd: number,
  id: string,
  seq: number,
  offset: number,
  state: string,
) {
  // From the newline before line S at the latest, so a reader can tell where line S starts.
  const from = Math.min(Math.max(0, lineStart(fd, offset) - 1), Math.max(0, offset - ANCHOR_BYTES))
  const anchor = crc32Hex(readAt(fd, from, offset))
  const line = frameLine(
    `"session":${JSON.stringify(id)},"seq":${seq},"offset":${offset},"from":${from},"anchor":"${anchor}","state":${state}`,
  )
  const file = log + CHECKPOINT_SUFFIX
  writeFileSync(`${file}.tmp`, line)
  renameSync(`${file}.tmp`, file)
}

/**
 * The checkpoint of log `log` (open as `fd`, `size` bytes) for session `id`, or `undefined` when
 * there is none or it fails a check: its own checksum, the session it names, an offset inside
 * the log, the anchor bytes, and the log line just before the offset being a verified event with
 * the checkpoint's seq. Never throws for a bad checkpoint: it is ignored, not trusted.
 */
export function readCheckpoint(
  log: string,
  fd: number,
  id: string,
  size: number,
): FileCheckpoint | undefined {
  const file = log + CHECKPOINT_SUFFIX
  if (!existsSync(file)) return undefined
  try {
    const bytes = readFileSync(file)
    if (bytes.at(-1) !== 0x0a || !verifies(bytes, 0, bytes.length - 1)) return undefined
    const c = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>
    const { seq, offset, from, anchor, state } = c
    if (c.session !== id || typeof anchor !== 'string') return undefined
    if (!Number.isSafeInteger(seq) || (seq as number) < 1 || !Number.isSafeInteger(from)) return undefined
    if (!Number.isSafeInteger(offset) || (offset as number) > size || (from as number) < 0) return undefined
    if ((from as number) >= (offset as number)) return undefined
    const window = readAt(fd, from as number, offset as number)
    if (window.length !== (offset as number) - (from as number) || crc32Hex(window) !== anchor)
      return undefined
    if (window.at(-1) !== 0x0a) return undefined
    const start = window.lastIndexOf(0x0a, window.length - 2) + 1
    if (start === 0 && (from as number) > 0) return undefined
    if (!verifies(window, start, window.length - 1)) return undefined
    const last = JSON.parse(window.toString('utf8', start, window.length - 1)) as {
      seq?: unknown
      more?: unknown
    }
    if (last.seq !== seq || last.more === true) return undefined
    return { seq: seq as number, offset: offset as number, state }
  } catch {
    return undefined
  }
}
