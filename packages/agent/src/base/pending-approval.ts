import { type ApprovalAskedData, isExpired } from '@tooltx/session'

/**
 * A durable approval nobody has decided yet (F2.3, F2.4): what a suspended turn's outcome
 * lists in `pending` and what `pendingApprovals` returns; a person decides it with
 * `decideApproval`.
 */
export interface PendingApproval {
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly name: string
  /** The recorded arguments' digest (P4.9): the `digest` a decision must quote. */
  readonly argumentsDigest: string
  readonly reason?: string
  /** When it expires (ISO time); after it, it is recorded `'expired'` and denied. */
  readonly expiresAt: string
  /** Who may decide it; absent when anyone may. */
  readonly deciders?: readonly string[]
  /** True once `expiresAt` has passed: a decision is then refused and recorded `'expired'`. */
  readonly expired: boolean
}

/** The pending approval of a durable ask, judged at `now` (epoch milliseconds). */
export function pendingApproval(asked: ApprovalAskedData, now: number): PendingApproval {
  const { turn, step, callId, name, reason, expiresAt = '', deciders } = asked
  return Object.freeze({
    turn,
    step,
    callId,
    name,
    argumentsDigest: asked.argumentsDigest ?? '',
    ...(reason === undefined ? {} : { reason }),
    expiresAt,
    ...(deciders === undefined ? {} : { deciders }),
    expired: isExpired(asked, now),
  })
}
