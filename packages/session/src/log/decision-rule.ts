import type { ApprovalAskedData, ApprovalDecidedData } from './events.js'

/**
 * Which part of the decision rule (F2.13) a decision breaks: `digest` (it covers other
 * arguments), `decider` (its `by` is missing or not one of the ask's `deciders`), `expired`
 * (a person's decision made at or after `expiresAt`), `early` (an expiry recorded before it),
 * `time` (no valid `decidedAt`), `outcome` (an outcome a durable ask cannot have, or a `by` on
 * an outcome no person makes).
 */
export type DecisionRefusalKind = 'digest' | 'decider' | 'expired' | 'early' | 'time' | 'outcome'

/** Why the decision rule refuses a decision: its kind and a sentence naming the call. */
export interface DecisionRefusal {
  readonly kind: DecisionRefusalKind
  readonly message: string
}

const q = (x: unknown): string => JSON.stringify(x) ?? String(x)

/**
 * True once durable ask `asked` has expired at `time` (epoch ms): at or after its `expiresAt`
 * (F2.6). The one expiry test of `pendingApprovals`, `decide`, `resume` and `judgeDecision`.
 */
export function isExpired(asked: ApprovalAskedData, time: number): boolean {
  return time >= Date.parse(asked.expiresAt ?? '')
}

const refusal = (kind: DecisionRefusalKind, message: string): DecisionRefusal => ({ kind, message })

/**
 * The one rule an `approval/decided` of a durable ask (F2.2) must pass (F2.13), judged only
 * from the two events, so the log, `decide`, resume and a worker judge a decision alike, at
 * append, at open and at any later time. A person's decision (`'allowed-once'`, `'rejected'`)
 * quotes the ask's `argumentsDigest`, names its maker in `by` (one of `deciders` when the ask
 * names some) and was made (`decidedAt`, an ISO time) before `expiresAt`; an `'expired'` record
 * has no `by` and a `decidedAt` at or after `expiresAt`; a `'cancelled'` record (abort, repair,
 * fork) has no `by`; no other outcome decides a durable ask. That the first decision wins is the
 * log's: a call has one decision per ask (V1.6). Returns `undefined` when the decision passes,
 * else what it breaks. A decision of an ask that is not durable (L8.1) is not judged here.
 */
export function judgeDecision(
  asked: ApprovalAskedData,
  decision: ApprovalDecidedData,
): DecisionRefusal | undefined {
  const { callId } = asked
  const { outcome, by } = decision
  if (outcome === 'cancelled' || outcome === 'expired') {
    if (by !== undefined)
      return refusal('outcome', `a ${q(outcome)} record of call ${q(callId)} names no decider, got ${q(by)}`)
    if (outcome === 'cancelled') return undefined
  } else if (outcome !== 'allowed-once' && outcome !== 'rejected') {
    return refusal('outcome', `a durable approval cannot be decided ${q(outcome)} (call ${q(callId)})`)
  }
  const at = decision.decidedAt
  const when = typeof at === 'string' ? Date.parse(at) : Number.NaN
  if (Number.isNaN(when))
    return refusal('time', `the decision of call ${q(callId)} does not record when it was made (decidedAt)`)
  const expiresAt = asked.expiresAt ?? ''
  if (outcome === 'expired') {
    return isExpired(asked, when)
      ? undefined
      : refusal('early', `call ${q(callId)} was recorded expired at ${at}, before it expires at ${expiresAt}`)
  }
  const digest = asked.argumentsDigest ?? ''
  if ((decision.argumentsDigest ?? '') !== digest) {
    return refusal(
      'digest',
      `the digest ${q(decision.argumentsDigest ?? '')} does not match the recorded arguments of call ${q(callId)} (${digest})`,
    )
  }
  if (typeof by !== 'string' || by === '')
    return refusal('decider', `a decision of call ${q(callId)} must name who made it ("by")`)
  const { deciders } = asked
  if (deciders !== undefined && !deciders.includes(by)) {
    return refusal(
      'decider',
      `${q(by)} may not decide call ${q(callId)}; its deciders are ${deciders.map(q).join(', ')}`,
    )
  }
  if (isExpired(asked, when)) {
    return refusal(
      'expired',
      `call ${q(callId)} was decided at ${at}, but its approval expired at ${expiresAt}`,
    )
  }
  return undefined
}
