import { deepFreeze, invariantError } from '@tooltx/core/internal'
import type { SessionEvent } from '../log/events.js'
import { crc32Text } from './checksum.js'

/** One stored row of the `events` table (SQLite and PostgreSQL alike); `crc` is `null` on rows from before checksums. */
export interface EventRow {
  seq: number
  type: string
  data: string
  crc: number | null
}

/** What a row's `crc` covers (L11.1): its seq, type and data text. */
export const checksumOf = (seq: number, type: string, data: string): number =>
  crc32Text(`${seq}\n${type}\n${data}`)

/**
 * The deep-frozen events of session `id` from its rows in `seq` order (L11.1, K3.6). A gap in
 * the seqs, a checksum that does not match, a row without a checksum after one with, or data
 * that is not JSON throws `INVARIANT` naming the database, the session, the seq and the event
 * type, so the damage can be found; nothing is changed. Rows from before checksums are read as
 * they are, but only before the first checked one. `first` is the seq the rows start at (1 for a
 * whole log); `checked` says that a row before them already had a checksum (L11.8).
 */
export function decodeRows(
  path: string,
  id: string,
  rows: readonly EventRow[],
  first = 1,
  checked = false,
): SessionEvent[] {
  const damaged = (row: EventRow, seq: number, why: string) =>
    invariantError(
      `session "${id}" in ${path} is damaged at seq ${seq} (${row.type}): ${why}; it was left unchanged — restore it from a backup`,
    )
  const events: SessionEvent[] = new Array(rows.length)
  let verified = checked
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    const { seq, type, data, crc } = row
    if (seq !== i + first) throw damaged(row, i + first, `a gap before seq ${seq}`)
    if (crc !== null) {
      if (crc !== checksumOf(seq, type, data)) {
        throw damaged(
          row,
          seq,
          'its checksum does not match its content: the row was changed after it was written',
        )
      }
      verified = true
    } else if (verified) throw damaged(row, seq, 'it has no checksum although earlier rows have one')
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch (error) {
      throw damaged(row, seq, `its data is not JSON (${(error as Error).message})`)
    }
    events[i] = deepFreeze({ seq, type, data: parsed }) as SessionEvent
  }
  return events
}
