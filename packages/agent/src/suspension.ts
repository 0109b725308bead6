/** What the loop reads from a suspended turn (F2.3, F2.7): its pending decisions, text and call count. */
import type { ApprovalAskedData, Session, SuspendedTurn, TurnEndData } from '@tooltx/session'
import { type PendingDecision, replyText } from './turn-outcome.js'

/** The end of a step that suspended its turn on durable approvals (F2.3). */
export interface Suspension {
  readonly pending: readonly PendingDecision[]
}

/** What a step resolves with: the turn's end, its suspension, or `undefined` when another step follows. */
export type StepEnd = TurnEndData | Suspension | undefined

/** True for a step's suspension, false for a turn's end or for "another step follows". */
export const isSuspension = (x: StepEnd): x is Suspension => x !== undefined && 'pending' in x

/** The text of the latest `assistant/message` in `events` (L13.3). */
export function lastReplyText(events: ReturnType<Session['events']>): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'assistant/message') return replyText(event.data.content)
  }
  return ''
}

/** The pending decision of a durable ask, as a suspended outcome lists it (F2.3). */
export function pendingDecision(asked: ApprovalAskedData): PendingDecision {
  const { callId, name, argumentsDigest = '', expiresAt = '', reason } = asked
  return Object.freeze({
    callId,
    name,
    argumentsDigest,
    expiresAt,
    ...(reason === undefined ? {} : { reason }),
  })
}

/** Tool calls the resumed turn started before its parked ones (L13.1's `maxToolCalls` count). */
export function callsBefore(session: Session, resumed: SuspendedTurn): number {
  const parked = new Set(resumed.parked.map((p) => p.block.id))
  let calls = 0
  for (const event of session.events()) {
    if (event.type === 'tool/call' && event.data.turn === resumed.turn && !parked.has(event.data.callId))
      calls++
  }
  return calls
}
