import type { ApprovalOutcome, ApprovalRequest, Approver } from '@tooltx/core'
import { definitionError } from '@tooltx/core/internal'
import type { ApprovalDecidedData, StepRef } from '@tooltx/session'
import type { Journal } from '../base/journal.js'
import { type PendingApproval, pendingApproval } from '../base/pending-approval.js'
import { recordingApprover } from './recording-approver.js'

/** How long a durable approval waits for a decision by default: 24 hours (F2.1). */
export const DEFAULT_APPROVAL_EXPIRY_MS = 24 * 60 * 60 * 1000

/**
 * `createAgent({ approvals })` (F2.1): `'durable'`, or the durable mode with how long an ask
 * waits (`expiresAfterMs`, default 24 h) and who may decide it (`deciders`, default anyone).
 */
export type ApprovalsOption =
  | 'durable'
  | { readonly mode: 'durable'; readonly expiresAfterMs?: number; readonly deciders?: readonly string[] }

/** The checked durable-approval settings of an agent. */
export interface DurableApprovals {
  readonly expiresAfterMs: number
  readonly deciders: readonly string[] | undefined
}

const show = (x: unknown): string => {
  try {
    return JSON.stringify(x) ?? String(x)
  } catch {
    return String(x)
  }
}

/**
 * Checks `createAgent`'s `approvals` against its `approver` (F2.1): `undefined` without it;
 * throws `INVALID_DEFINITION` for both together, for another shape or mode, an `expiresAfterMs`
 * that is not a positive safe integer, or `deciders` that are not a non-empty list of
 * non-empty strings.
 */
export function resolveApprovals(option: unknown, approver: unknown): DurableApprovals | undefined {
  if (option === undefined) return undefined
  if (approver !== undefined) {
    throw definitionError(
      "createAgent takes either an approver (in-process approvals) or approvals: 'durable', not both: a durable ask waits in the session log for decideApproval(), so no approver would be consulted",
    )
  }
  if (option === 'durable')
    return Object.freeze({ expiresAfterMs: DEFAULT_APPROVAL_EXPIRY_MS, deciders: undefined })
  const shape = "approvals must be 'durable' or { mode: 'durable', expiresAfterMs?, deciders? }"
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw definitionError(`${shape}, got ${show(option)}`)
  }
  const {
    mode,
    expiresAfterMs = DEFAULT_APPROVAL_EXPIRY_MS,
    deciders,
    ...rest
  } = option as Record<string, unknown>
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw definitionError(`${shape}; unknown key ${show(unknown[0])}`)
  if (mode !== 'durable') throw definitionError(`${shape}; mode ${show(mode)} is not 'durable'`)
  if (!Number.isSafeInteger(expiresAfterMs) || (expiresAfterMs as number) < 1) {
    throw definitionError(
      `approvals.expiresAfterMs must be a positive whole number of milliseconds, got ${show(expiresAfterMs)}`,
    )
  }
  const valid =
    deciders === undefined ||
    (Array.isArray(deciders) &&
      deciders.length > 0 &&
      deciders.every((d) => typeof d === 'string' && d !== ''))
  if (!valid) {
    throw definitionError(
      `approvals.deciders must be a non-empty list of non-empty strings, got ${show(deciders)}`,
    )
  }
  return Object.freeze({
    expiresAfterMs: expiresAfterMs as number,
    deciders: deciders === undefined ? undefined : Object.freeze([...(deciders as string[])]),
  })
}

/** What the durable approver of one batch needs from the loop and the scheduler. */
export interface DurableApproverOptions {
  readonly journal: Journal
  readonly settings: DurableApprovals
  readonly where: StepRef
  /** True for a call of the batch; any other request comes from a nested Code Mode call (F2.9). */
  readonly isBatchCall: (callId: string) => boolean
  /** Parks the batch at this call once its durable ask is recorded (F2.3). */
  readonly suspend: (pending: PendingApproval) => void
  readonly fail: (error: unknown) => void
}

/**
 * Answers the ask of a call with a decision recorded before a resume from that decision, once,
 * without another `approval/asked` or `approval/decided` (F2.7), and `'unavailable'` when the
 * arguments' digest no longer matches (it fails closed); every other ask goes to `next` (none:
 * `'unavailable'`). `decisions` maps call ids to decisions; each is taken out when used.
 */
export function decidedApprover(
  decisions: Map<string, ApprovalDecidedData>,
  next: Approver | undefined,
): Approver {
  return (request) => {
    const recorded = decisions.get(request.callId)
    if (recorded === undefined) return next === undefined ? 'unavailable' : next(request)
    decisions.delete(request.callId)
    return recorded.argumentsDigest === request.argumentsDigest ? recorded.outcome : 'unavailable'
  }
}

/**
 * The approver of one batch in durable mode. A call of the batch records a durable `approval/asked` (`durable: true`, `expiresAt`,
 * `deciders`) and suspends the batch at itself: its answer waits until the call's signal
 * aborts, which the suspension does, so the call ends without running (F2.2, F2.3). A call
 * whose signal aborted before the ask was durable records `'cancelled'` instead (L8.2). A
 * nested Code Mode call cannot wait: its ask is recorded and answered `'unavailable'` (F2.9).
 * A failed append goes to `fail` (L5.5) and answers `'unavailable'`.
 */
export function durableApprover(options: DurableApproverOptions): Approver {
  const { journal, settings, where, fail } = options
  const nested = recordingApprover(() => 'unavailable', journal, where, fail)
  return (request: ApprovalRequest) => {
    const { callId, name, argumentsDigest } = request
    if (!options.isBatchCall(callId)) return nested(request)
    if (request.signal.aborted) return 'cancelled'
    const { turn, step } = where
    const expiresAt = new Date(Date.now() + settings.expiresAfterMs).toISOString()
    const reason = request.reason === undefined ? {} : { reason: request.reason }
    const deciders = settings.deciders === undefined ? {} : { deciders: settings.deciders }
    const base = { turn, step, callId, name }
    return new Promise<ApprovalOutcome>((resolve) => {
      const lost = (error: unknown): void => {
        fail(error)
        resolve('unavailable')
      }
      const asked = { ...base, ...reason, argumentsDigest, durable: true as const, expiresAt, ...deciders }
      journal.record('approval/asked', asked).then(() => {
        // The turn was aborted while the ask was recorded: it is answered, not left waiting.
        if (request.signal.aborted) {
          journal
            .record('approval/decided', { ...base, outcome: 'cancelled', argumentsDigest })
            .then(() => resolve('cancelled'), lost)
          return
        }
        request.signal.addEventListener('abort', () => resolve('cancelled'), { once: true })
        options.suspend(pendingApproval(asked, Date.now()))
      }, lost)
    })
  }
}
