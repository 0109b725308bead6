import type { AssistantBlock } from '@tooltx/core'
import type { TurnEndData, TurnLimit } from '@tooltx/session'
import type { PendingApproval } from './pending-approval.js'

/**
 * How a turn ended (L13.3), as `send`, `inject`, `whenIdle` and `resume` report it: the
 * `turn/end` reason, the text of the turn's last assistant message, and why it failed or
 * stopped. `'suspended'` (F2.3) is a turn that has no `turn/end` yet: it waits on the durable
 * approvals in `pending`.
 */
export interface TurnOutcome {
  /** The turn's number; absent when no turn could start (the session refused its repair, L5.6). */
  readonly turn?: number
  readonly reason: 'completed' | 'aborted' | 'error' | 'limit' | 'suspended'
  /** The text blocks of the turn's last assistant message, joined by a blank line; `''` if none. */
  readonly text: string
  /** Why an `error` turn failed: the `turn/end` message. */
  readonly error?: string
  /** The bound that ended a `limit` turn. */
  readonly limit?: TurnLimit
  /** What a `suspended` turn waits on. */
  readonly pending?: readonly PendingApproval[]
}

/** The text of an assistant reply: its text blocks joined by a blank line. */
export function replyText(content: readonly AssistantBlock[]): string {
  const parts: string[] = []
  for (const block of content) if (block.type === 'text') parts.push(block.text)
  return parts.join('\n\n')
}

/** The outcome of a turn that ended with `end` after its last reply said `text`. */
export function turnOutcome(end: TurnEndData, text: string): TurnOutcome {
  const outcome: { -readonly [K in keyof TurnOutcome]: TurnOutcome[K] } = {
    turn: end.turn,
    // Only crash repair writes `interrupted`; the loop itself never ends a turn that way.
    reason: end.reason === 'interrupted' ? 'error' : end.reason,
    text,
  }
  if (end.reason === 'error' && end.message !== undefined) outcome.error = end.message
  if (end.limit !== undefined) outcome.limit = end.limit
  return Object.freeze(outcome)
}

/** The outcome of turn `turn`, suspended on `pending` after its last reply said `text` (F2.3). */
export function suspendedOutcome(
  turn: number,
  text: string,
  pending: readonly PendingApproval[],
): TurnOutcome {
  return Object.freeze({ turn, reason: 'suspended' as const, text, pending: Object.freeze(pending.slice()) })
}
