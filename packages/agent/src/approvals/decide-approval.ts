import { codedError, definitionError } from '@tooltx/core/internal'
import {
  type ApprovalDecidedData,
  judgeDecision,
  type Session,
  type SessionEvent,
  suspendedTurn,
} from '@tooltx/session'
import { Journal } from '../base/journal.js'
import { type PendingApproval, pendingApproval } from '../base/pending-approval.js'

/** What `decideApproval` records (F2.5). */
export interface ApprovalDecision {
  readonly decision: 'allowed-once' | 'denied'
  /** Who decides: any non-empty name; one of the agent's `deciders` when it named some. */
  readonly by: string
  readonly reason?: string
  /** The `argumentsDigest` the decider was shown; it must match the recorded one. */
  readonly digest: string
}

/** Options of `pendingApprovals` and `decideApproval`: the clock, for tests and replays. */
export interface ApprovalClock {
  /** The time to judge expiry by, in epoch milliseconds; default `Date.now()`. */
  readonly now?: number
}

const eventsOf = (source: Session | readonly SessionEvent[]): readonly SessionEvent[] =>
  Array.isArray(source) ? (source as readonly SessionEvent[]) : (source as Session).events()

/**
 * The durable approvals of a session (or its events) that wait for a decision (F2.4): the
 * call its suspended turn waits on, when nobody has decided it yet; `[]` otherwise. Reads
 * only; appends nothing.
 */
export function pendingApprovals(
  source: Session | readonly SessionEvent[],
  clock: ApprovalClock = {},
): readonly PendingApproval[] {
  const suspended = suspendedTurn(eventsOf(source))
  if (suspended === undefined || suspended.decided !== undefined) return Object.freeze([])
  return Object.freeze([pendingApproval(suspended.asked, clock.now ?? Date.now())])
}

const refused = (message: string) => codedError('APPROVAL_REFUSED', message)

const conflict = (callId: string, first: string) =>
  codedError(
    'APPROVAL_CONFLICT',
    `the approval of call "${callId}" was already decided: ${first}; the first decision wins, so yours was not recorded`,
  )

/** The first decision of call `callId`'s latest durable ask, described for a conflict. */
function earlier(events: readonly SessionEvent[], callId: string): string | undefined {
  let asked = false
  let decision: string | undefined
  for (const event of events) {
    if (event.type === 'approval/asked' && event.data.callId === callId && event.data.durable === true) {
      asked = true
      decision = undefined
    } else if (event.type === 'approval/decided' && event.data.callId === callId && asked) {
      const { outcome, by } = event.data
      decision ??= `${outcome} ${by === undefined ? 'on expiry' : `by ${JSON.stringify(by)}`} (seq ${event.seq})`
    }
  }
  return decision
}

/** Checks the shape of a decision; throws `INVALID_DEFINITION` saying what is wrong. */
function checkDecision(callId: unknown, decision: unknown): asserts decision is ApprovalDecision {
  if (typeof callId !== 'string' || callId === '')
    throw definitionError('decideApproval needs the call id of the approval')
  const d = decision as Partial<Record<keyof ApprovalDecision, unknown>> | null
  if (typeof d !== 'object' || d === null) {
    throw definitionError("decideApproval needs { decision: 'allowed-once' | 'denied', by, reason?, digest }")
  }
  if (d.decision !== 'allowed-once' && d.decision !== 'denied') {
    throw definitionError(
      `decision must be 'allowed-once' or 'denied', got ${JSON.stringify(d.decision) ?? String(d.decision)}`,
    )
  }
  if (typeof d.by !== 'string' || d.by === '')
    throw definitionError('decision "by" must name who decides (a non-empty string)')
  if (d.reason !== undefined && typeof d.reason !== 'string')
    throw definitionError('decision "reason" must be a string')
  if (typeof d.digest !== 'string' || d.digest === '') {
    throw definitionError(
      'decision "digest" must be the argumentsDigest the decider was shown (pendingApprovals lists it)',
    )
  }
}

/**
 * Records a person's decision on the durable approval of call `callId` (F2.5), through a
 * journal over `session` (the agent's one writer): appends
 * `approval/decided { turn, step, callId, name, outcome, argumentsDigest, by, reason?, decidedAt }`,
 * with `'denied'` recorded as the outcome `'rejected'` (P4.4) and `decidedAt` the clock's time,
 * and resolves with that data. The session must be open for writing (it holds the lease, L14);
 * the turn resumes when an agent on it calls `resume()` (F2.7). The decision is judged by the
 * one decision rule the log also applies (`judgeDecision`, F2.13): nothing is appended and it
 * rejects with `APPROVAL_REFUSED` when the session has no pending durable approval for that
 * call, when `digest` is not the recorded arguments' digest, or when the agent named
 * `deciders` and `by` is not one of them; with `APPROVAL_CONFLICT`, naming the first decision,
 * when the approval was already decided (the first decision wins); an expired approval is
 * recorded `'expired'` (it fails closed, P4.10) and rejects with `APPROVAL_REFUSED` saying so.
 * A malformed decision throws `INVALID_DEFINITION`.
 */
export async function decideApproval(
  session: Session,
  callId: string,
  decision: ApprovalDecision,
  clock: ApprovalClock = {},
): Promise<ApprovalDecidedData> {
  checkDecision(callId, decision)
  const journal = new Journal(session)
  const events = session.events()
  const suspended = suspendedTurn(events)
  const waiting = suspended?.blocks[suspended.index]
  if (suspended === undefined || waiting?.id !== callId || suspended.decided !== undefined) {
    const first = earlier(events, callId)
    if (first !== undefined) {
      throw conflict(callId, first)
    }
    const open = pendingApprovals(events, clock).map((p) => `"${p.callId}" (${p.name})`)
    throw refused(
      `session "${session.id}" has no pending durable approval for call "${callId}"; ${open.length === 0 ? 'none is pending' : `pending: ${open.join(', ')}`}`,
    )
  }
  const { asked } = suspended
  const base = { turn: asked.turn, step: asked.step, callId, name: asked.name }
  const argumentsDigest = asked.argumentsDigest ?? ''
  const decidedAt = new Date(clock.now ?? Date.now()).toISOString()
  const data: ApprovalDecidedData = {
    ...base,
    outcome: decision.decision === 'denied' ? 'rejected' : 'allowed-once',
    argumentsDigest: decision.digest,
    by: decision.by,
    ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    decidedAt,
  }
  const refusal = judgeDecision(asked, data)
  if (refusal?.kind === 'expired') {
    const expiresAt = asked.expiresAt ?? ''
    await journal.record('approval/decided', {
      ...base,
      outcome: 'expired',
      argumentsDigest,
      reason: `nobody decided before ${expiresAt}`,
      decidedAt,
    })
    throw refused(
      `the approval of call "${callId}" expired at ${expiresAt}; it is recorded as expired, so the call is denied`,
    )
  }
  if (refusal !== undefined) {
    const hint =
      refusal.kind === 'digest'
        ? '; nothing was recorded — decide on the arguments pendingApprovals shows'
        : ''
    throw refused(`${refusal.message}${hint}`)
  }
  try {
    return (await journal.record('approval/decided', data)).data
  } catch (error) {
    // Two decisions raced in this process: the session refused the second one.
    const first = earlier(session.events(), callId)
    if (first === undefined) throw error
    throw conflict(callId, first)
  }
}
