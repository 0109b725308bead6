/**
 * The file store's line format (L11.1). Each event is one line
 * `{"crc":"<8 hex>","seq":…,"type":…,"data":…}`; members of a batch but the last also carry
 * `"more":true`, so a batch counts only once its last line is complete. The checksum is the
 * CRC-32 of the line's bytes after the `{"crc":"<8 hex>",` prefix up to the newline, so it
 * covers seq, type, data and the batch marker, and is verified on the bytes as read.
 */
import { type JsonValue, stringifyJson, type ToolError } from '@tooltx/core'
import { deepFreeze, invariantError } from '@tooltx/core/internal'
import type { SessionEvent } from '../../log/events.js'
import { crc32Hex } from '../checksum.js'

const NEWLINE = 0x0a
const PREFIX = Buffer.from('{"crc":"')
/** Bytes of `{"crc":"<8 hex>",`: the checksummed part of a line starts here. */
const BODY = PREFIX.length + 10

/** What one scan of a log file found. */
export interface Scan {
  readonly events: SessionEvent[]
  /** True when the scan saw (or started after) a line with a checksum. */
  readonly checked: boolean
  /** Bytes up to the end of the last complete event (or batch); anything after is a torn tail. */
  readonly committed: number
}

/** Where a scan starts: mid-log after a checkpoint (L11.8), or at the file's start. */
export interface ScanStart {
  /** The seq of the first line (1 for a whole file). */
  readonly seq: number
  /** True when a line before the start carried a checksum, so every line read must (L11.7). */
  readonly checked: boolean
}

/** The bytes that append `events` (one batch) to a log. */
export function formatBatch(events: readonly SessionEvent[]): Buffer {
  const parts: Buffer[] = []
  const last = events.length - 1
  for (let i = 0; i <= last; i++) {
    const { seq, type, data } = events[i]!
    const more = i === last ? '' : ',"more":true'
    parts.push(
      frameLine(
        `"seq":${seq},"type":${JSON.stringify(type)},"data":${stringifyJson(data as unknown as JsonValue)}${more}`,
      ),
    )
  }
  return Buffer.concat(parts)
}

/** One checksummed line `{"crc":"<8 hex>",<members>}\n` (the log's framing, also the checkpoint's). */
export function frameLine(members: string): Buffer {
  const body = Buffer.from(`${members}}\n`)
  return Buffer.concat([Buffer.from(`{"crc":"${crc32Hex(body, 0, body.length - 1)}",`), body])
}

/**
 * Reads a log file's bytes. An unfinished last line (no newline: a crash mid-write) or an
 * unfinished batch is a torn tail and is left out of `committed`. Every complete line must be
 * an event with the next seq and a matching checksum, otherwise the log is damaged and this
 * throws naming session `id`, `file`, the line and the seq (L1.6, L11.1). Lines written before
 * checksums existed are read without one, but only before the first line that has one.
 */
export function scanLog(
  bytes: Buffer,
  file: string,
  id: string,
  from: ScanStart = { seq: 1, checked: false },
): Scan {
  const events: SessionEvent[] = []
  const first = from.seq
  let committed = 0
  let committedCount = 0
  let checked = from.checked
  let start = 0
  // One event per line, so line n holds seq n.
  let line = first - 1
  while (start < bytes.length) {
    const end = bytes.indexOf(NEWLINE, start)
    line++
    const damaged = (why: string): ToolError => corrupt(id, file, line, first + events.length, why)
    if (end === -1) {
      // A torn write leaves a prefix of a line. A whole line whose newline was overwritten is
      // damage to an event that may have been acknowledged: refuse it rather than cut it.
      if (verifies(bytes, start, bytes.length - 1)) throw damaged('its line end is damaged')
      break
    }
    let parsed: { crc?: unknown; seq?: unknown; type?: unknown; data?: unknown; more?: unknown }
    try {
      parsed = JSON.parse(bytes.toString('utf8', start, end))
    } catch (error) {
      throw damaged(`not JSON: ${(error as Error).message}`)
    }
    if (parsed.crc !== undefined) {
      if (!verifies(bytes, start, end)) {
        throw damaged('its checksum does not match its content: it was changed after it was written')
      }
      checked = true
    } else if (checked) {
      throw damaged('it has no checksum although earlier lines have one')
    }
    const { seq, type, data } = parsed
    if (seq !== first + events.length || typeof type !== 'string' || data === undefined) {
      throw damaged(`expected an event with seq ${first + events.length}`)
    }
    events.push(deepFreeze({ seq, type, data }) as SessionEvent)
    start = end + 1
    if (parsed.more !== true) {
      committed = start
      committedCount = events.length
    }
  }
  events.length = committedCount
  return { events, committed, checked }
}

/** True iff `bytes[start, end)` is a line framed with a checksum that matches its content. */
export function verifies(bytes: Buffer, start: number, end: number): boolean {
  if (end - start <= BODY || bytes.compare(PREFIX, 0, PREFIX.length, start, start + PREFIX.length) !== 0) {
    return false
  }
  return (
    bytes.toString('latin1', start + PREFIX.length, start + BODY) ===
    `${crc32Hex(bytes, start + BODY, end)}",`
  )
}

function corrupt(id: string, file: string, line: number, seq: number, why: string): ToolError {
  return invariantError(
    `session "${id}": file ${file} is damaged at line ${line}, seq ${seq} (${why}); it was left unchanged — restore it from a backup or move it aside`,
  )
}
