import { isExpired, type Session, type SuspendedTurn, suspendedTurn } from '@tooltx/session'
import { Journal } from '../base/journal.js'
import { pendingApproval } from '../base/pending-approval.js'
import { replyText, suspendedOutcome, type TurnOutcome } from '../base/turn-outcome.js'
import type { LoopContext } from './loop-context.js'
import { runTurn, type TurnRun } from './run-turn.js'

/** What continuing a session's suspended turn came to (F2.7). */
export type Continuation =
  /** The session holds no suspended turn. */
  | { readonly kind: 'none' }
  /** Nobody decided the waiting call and it has not expired: nothing was written. */
  | { readonly kind: 'waiting'; readonly outcome: TurnOutcome }
  /** The turn went on and ran until it ended or suspended again. */
  | { readonly kind: 'ran'; readonly run: TurnRun }

/**
 * Continues the session's suspended turn (F2.7): while its waiting call is undecided and not
 * expired, `'waiting'` with the `'suspended'` outcome, appending nothing; otherwise an expired
 * ask is recorded `'expired'` and the turn runs on from its open step (`runTurn`): `turn/resumed`
 * before anything runs, the earlier calls a dead process left without a result recovered by
 * F1.4's rule, the waiting call and every later one through the scheduler in model order (with
 * their `tool/call`s as logged), the waiting call's ask answered by its recorded decision.
 */
export async function continueTurn(ctx: LoopContext, controller: AbortController): Promise<Continuation> {
  const { session } = ctx.options
  const events = session.events()
  const suspended = suspendedTurn(events)
  if (suspended === undefined) return { kind: 'none' }
  const { turn, step, asked } = suspended
  const text = lastReplyText(events)
  let decided = suspended.decided
  if (decided === undefined) {
    const now = Date.now()
    if (!isExpired(asked, now)) {
      return { kind: 'waiting', outcome: suspendedOutcome(turn, text, [pendingApproval(asked, now)]) }
    }
    const { callId, name, argumentsDigest } = asked
    const record = await new Journal(session).record('approval/decided', {
      turn,
      step,
      callId,
      name,
      outcome: 'expired',
      ...(argumentsDigest === undefined ? {} : { argumentsDigest }),
      reason: `nobody decided before ${asked.expiresAt ?? ''}`,
      decidedAt: new Date(now).toISOString(),
    })
    decided = record.data
  }
  const decisions = new Map([[asked.callId, decided]])
  const calls = callsBefore(session, suspended)
  return { kind: 'ran', run: await runTurn(ctx, controller, turn, { suspended, text, calls, decisions }) }
}

/** The text of the latest `assistant/message` in `events` (L13.3). */
function lastReplyText(events: ReturnType<Session['events']>): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'assistant/message') return replyText(event.data.content)
  }
  return ''
}

/** Tool calls the resumed turn started before its parked ones (L13.1's `maxToolCalls` count). */
function callsBefore(session: Session, resumed: SuspendedTurn): number {
  const parked = new Set(resumed.parked.map((p) => p.block.id))
  let calls = 0
  for (const event of session.events()) {
    if (event.type === 'tool/call' && event.data.turn === resumed.turn && !parked.has(event.data.callId))
      calls++
  }
  return calls
}
