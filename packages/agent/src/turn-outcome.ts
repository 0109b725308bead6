import type { AssistantBlock } from '@tooltx/core'
import type { TurnEndData, TurnLimit } from '@tooltx/session'

/** A tool call a suspended turn waits on (F2.3): what a person decides with `decide`. */
export interface PendingDecision {
  readonly callId: string
  readonly name: string
  /** The recorded arguments' digest (P4.9); a decision must quote it. */
  readonly argumentsDigest: string
  /** When the approval expires (ISO time); after it, it is recorded `'expired'` and denied. */
  readonly expiresAt: string
  readonly reason?: string
}

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
  readonly pending?: readonly PendingDecision[]
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
  pending: readonly PendingDecision[],
): TurnOutcome {
  return Object.freeze({ turn, reason: 'suspended' as const, text, pending: Object.freeze(pending.slice()) })
}
