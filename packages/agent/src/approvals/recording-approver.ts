import type { ApprovalOutcome, ApprovalRequest, Approver } from '@tooltx/core'
import { askApprover } from '@tooltx/core/internal'
import type { StepRef } from '@tooltx/session'
import type { Journal } from '../base/journal.js'

/**
 * Wraps the user's approver so each consultation is recorded in `journal` (L8): `approval/asked` before
 * the user's approver is called and `approval/decided` with the normalized outcome after,
 * exactly once each, both carrying the arguments digest (L8.3). When the turn signal aborts
 * while the answer is pending, `'cancelled'` is recorded at once and a later answer is
 * ignored (L8.2); an abort before `approval/asked` is durable consults nobody.
 *
 * A consultation that cannot be recorded is not made: when either append fails, the error
 * goes to `onAppendError` (the loop fails the batch, L5.5) and the answer is `'unavailable'`,
 * so no tool runs on a decision the log does not hold.
 */
export function recordingApprover(
  approver: Approver,
  journal: Journal,
  where: StepRef,
  onAppendError: (error: unknown) => void,
): Approver {
  return (request: ApprovalRequest) => {
    const { turn, step } = where
    const base = { turn, step, callId: request.callId, name: request.name }
    const digest = { argumentsDigest: request.argumentsDigest }
    const asked = journal.record('approval/asked', {
      ...base,
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      ...digest,
    })
    return new Promise<ApprovalOutcome>((resolve) => {
      let decided = false
      const lost = (error: unknown): void => {
        onAppendError(error)
        resolve('unavailable')
      }
      const decide = (outcome: ApprovalOutcome): void => {
        if (decided) return
        decided = true
        request.signal.removeEventListener('abort', onAbort)
        // Recorded before the call can end, so the decision lands before the call's tool/result.
        journal.record('approval/decided', { ...base, outcome, ...digest }).then(() => resolve(outcome), lost)
      }
      const onAbort = (): void => decide('cancelled')
      request.signal.addEventListener('abort', onAbort, { once: true })
      asked.then(
        () => {
          // The turn may have been aborted while the request was being recorded.
          if (request.signal.aborted) return decide('cancelled')
          return askApprover(approver, request).then(decide)
        },
        (error: unknown) => {
          decided = true
          request.signal.removeEventListener('abort', onAbort)
          lost(error)
        },
      )
    })
  }
}
