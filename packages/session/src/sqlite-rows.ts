import { deepFreeze, invariantError } from '@tooltx/core'
import type { SessionEvent } from './events.js'

/** One stored row of the `events` table, as `[seq, type, data]` (data is the event's JSON). */
export type EventRow = [seq: number, type: string, data: string]

/**
 * The deep-frozen events of session `id` from its rows in `seq` order. A gap in the seqs or a
 * row whose data is not JSON throws `INVARIANT` naming the database, the session and the seq,
 * so the damage can be found and repaired; nothing is changed.
 */
export function decodeRows(path: string, id: string, rows: readonly EventRow[]): SessionEvent[] {
  const events: SessionEvent[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const [seq, type, data] = rows[i]!
    if (seq !== i + 1) {
      throw invariantError(`session "${id}" in ${path} has a gap before seq ${seq}; restore it from a backup`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch (error) {
      throw invariantError(
        `session "${id}" in ${path} is damaged at seq ${seq} (${type}): its data is not JSON (${(error as Error).message}); restore it from a backup`,
      )
    }
    events[i] = deepFreeze({ seq, type, data: parsed }) as SessionEvent
  }
  return events
}
