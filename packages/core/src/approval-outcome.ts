/** The four approval outcomes (P4.2) and the one normaliser of an approver's answer (P4.7). */

/** The four answers an approver may give, in this order (P4.2). */
export const APPROVAL_OUTCOMES = Object.freeze([
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
] as const)

/** The four answers an approver may give (P4.2). */
export type ApprovalOutcome = (typeof APPROVAL_OUTCOMES)[number]

const OUTCOMES: ReadonlySet<unknown> = new Set(APPROVAL_OUTCOMES)

/** True iff `answer` is exactly one of the four outcomes. */
export function isApprovalOutcome(answer: unknown): answer is ApprovalOutcome {
  return OUTCOMES.has(answer)
}

/**
 * Calls `approver(request)` and resolves with its answer when that is one of the four
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
