/** The five approval outcomes (P4.2) and the one normaliser of an approver's answer (P4.7). */

/**
 * The five answers an approver may give, in this order (P4.2); `'expired'` is the fail-closed
 * answer of a durable approval nobody decided in time (P4.10, F2).
 */
export const APPROVAL_OUTCOMES = Object.freeze([
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
  'expired',
] as const)

/** The five answers an approver may give (P4.2). */
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number]

const OUTCOMES: ReadonlySet<unknown> = new Set(APPROVAL_OUTCOMES)

/** True iff `answer` is exactly one of the five outcomes. */
export function isApprovalOutcome(answer: unknown): answer is ApprovalOutcome {
  return OUTCOMES.has(answer)
}

/**
 * Calls `approver(request)` and resolves with its answer when that is one of the five
 * outcomes; a throw, a rejection or any other answer resolves `'unavailable'` (P4.7). Never
 * rejects.
 */
export function askApprover<R>(approver: (request: R) => unknown, request: R): Promise<ApprovalOutcome> {
  const known = (answer: unknown): ApprovalOutcome => (isApprovalOutcome(answer) ? answer : 'unavailable')
  try {
    return Promise.resolve(approver(request)).then(known, () => 'unavailable' as const)
  } catch {
    return Promise.resolve('unavailable')
  }
}
