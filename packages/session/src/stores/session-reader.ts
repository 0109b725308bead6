import type { SessionEvent } from '../log/events.js'
import type { SessionInfo } from './store.js'

/** The read side of a session database, for tools that list and print sessions. */
export interface SessionReader {
  /** Every stored session, oldest first. */
  listSessions(): Promise<readonly SessionInfo[]>
  /** The deep-frozen events of session `id` in `seq` order, or `undefined` when it is not stored. */
  read(id: string): Promise<readonly SessionEvent[] | undefined>
  /** Releases the database handle (and any private copy of the file). */
  close(): Promise<void>
}
