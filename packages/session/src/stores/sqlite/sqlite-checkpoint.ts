/**
 * The SQLite store's checkpoints (L11.8): one row per session in `checkpoints`, holding the seq
 * it was taken after, an anchor (the `crc` values of the last `ANCHOR_ROWS` event rows up to that
 * seq), the log state, and a CRC-32 of all of it. A checkpoint is used only when its checksum
 * matches and the stored rows still carry exactly the anchored checksums.
 */
import { invariantError } from '@tooltx/core/internal'
import type { SessionEvent } from '../../log/events.js'
import { crc32Text } from '../checksum.js'
import { decodeRows, type EventRow } from '../event-rows.js'
import type { CheckpointedLog } from '../store.js'
import type { SqliteConnection } from './sqlite-driver.js'

export const CHECKPOINT_SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoints (
  session TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  anchor TEXT NOT NULL,
  state TEXT NOT NULL,
  crc INTEGER NOT NULL
) WITHOUT ROWID;
`

/** Event rows up to the checkpoint's seq whose checksums anchor it. */
const ANCHOR_ROWS = 16

/** What a checkpoint row's `crc` covers. */
const checksumOf = (id: string, seq: number, anchor: string, state: string): number =>
  crc32Text(`${id}\n${seq}\n${anchor}\n${state}`)

/** A database's checkpoint reads and writes; `path` names the database in errors. */
export interface SqliteCheckpoints {
  load(id: string): CheckpointedLog | undefined
  /** Saves the checkpoint when the session's lease is `token`'s and its rows up to `seq` carry checksums. */
  save(id: string, seq: number, state: string, token: string): void
}

/** Prepares the checkpoint statements on `db` (whose schema includes `CHECKPOINT_SCHEMA`). */
export function sqliteCheckpoints(db: SqliteConnection, path: string): SqliteCheckpoints {
  const select = db.prepare('SELECT seq, anchor, state, crc FROM checkpoints WHERE session = ?')
  const crcs = db.prepare('SELECT crc FROM events WHERE session = ? AND seq BETWEEN ? AND ? ORDER BY seq')
  const after = db.prepare(
    'SELECT seq, type, data, crc FROM events WHERE session = ? AND seq > ? ORDER BY seq',
  )
  const upTo = db.prepare(
    'SELECT seq, type, data, crc FROM events WHERE session = ? AND seq <= ? ORDER BY seq',
  )
  const upsert = db.prepare(
    `INSERT INTO checkpoints (session, seq, anchor, state, crc)
     SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ? AND lease = ?)
     ON CONFLICT (session) DO UPDATE SET seq = excluded.seq, anchor = excluded.anchor,
       state = excluded.state, crc = excluded.crc`,
  )

  /** The anchor of `seq`: the row checksums before it, or `undefined` when a row is missing or unchecked. */
  const anchorOf = (id: string, seq: number): string | undefined => {
    const from = Math.max(1, seq - ANCHOR_ROWS + 1)
    const rows = crcs.all(id, from, seq) as { crc: number | null }[]
    if (rows.length !== seq - from + 1 || rows.some((r) => r.crc === null)) return undefined
    return rows.map((r) => r.crc).join(',')
  }

  return {
    load(id) {
      const row = select.get(id) as { seq: number; anchor: string; state: string; crc: number } | undefined
      if (row === undefined || row.crc !== checksumOf(id, row.seq, row.anchor, row.state)) return undefined
      if (anchorOf(id, row.seq) !== row.anchor) return undefined
      let state: unknown
      try {
        state = JSON.parse(row.state)
      } catch {
        return undefined
      }
      const { seq } = row
      const tail = decodeRows(path, id, after.all(id, seq) as EventRow[], seq + 1, true)
      const before = (): SessionEvent[] => {
        const events = decodeRows(path, id, upTo.all(id, seq) as EventRow[])
        if (events.length !== seq) {
          throw invariantError(
            `session "${id}" in ${path} no longer holds the ${seq} events its checkpoint was taken after; restore it from a backup`,
          )
        }
        return events
      }
      return { seq, state, tail, before }
    },
    save(id, seq, state, token) {
      const anchor = anchorOf(id, seq)
      if (anchor === undefined) return
      upsert.run(id, seq, anchor, state, checksumOf(id, seq, anchor, state), id, token)
    },
  }
}
