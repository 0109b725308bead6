import type { JsonValue } from '@tooltx/core'
import type { NewSessionEvent } from './events.js'
import { checkpointOf, readCheckpoint } from './log-checkpoint.js'
import { checkEvent } from './log-checks.js'
import { LogFacts } from './log-facts.js'
import { applyEvent } from './log-transitions.js'
import { type Changes, inPlace } from './undo-log.js'

/**
 * What the log knows about its latest turn (`LogFacts`), maintained event by event in O(1)
 * (amortized per event), with its three parts: `check` names the invariant an event would
 * break without changing anything (`log-checks.ts`); `apply` records an event that was checked
 * (`log-transitions.ts`); `toJSON` and `LogState.restore` carry it through a checkpoint
 * (`log-checkpoint.ts`, L11.8).
 */
export class LogState extends LogFacts {
  /** The invariant `event` would violate, as the `<what>` of `invariant violated: <what>`; `undefined` if none. */
  check(event: { type: unknown; data: unknown }): string | undefined {
    return checkEvent(this, event)
  }

  /**
   * Records an event that passed `check`. With an `UndoLog` as `changes`, a batch can be checked
   * and applied event by event and rolled back when a later event is refused or the write
   * fails, without copying the state.
   */
  apply(event: NewSessionEvent, changes: Changes = inPlace): void {
    applyEvent(this, event, changes)
  }

  /** The state as plain JSON, for a checkpoint (L11.8); `LogState.restore` reads it back. */
  toJSON(): JsonValue {
    return checkpointOf(this)
  }

  /**
   * The state `toJSON` wrote, or `undefined` when `json` is not exactly that shape (another
   * version, a damaged or foreign checkpoint): never throws, so a bad checkpoint is ignored.
   */
  static restore(json: unknown): LogState | undefined {
    const state = new LogState()
    return readCheckpoint(json, state) ? state : undefined
  }
}
