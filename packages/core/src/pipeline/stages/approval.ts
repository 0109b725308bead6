/** Approval (P4): consulted once per `ask`; the decision is bound to the arguments by a digest. */
import { type ApprovalOutcome, askApprover } from '../../contract/approval-outcome.js'
import type { ApprovalRequest } from '../../contract/execution.js'
import type { ToolResult } from '../../contract/result.js'
import { argumentsDigest } from '../../foundation/arguments-digest.js'
import type { Call } from '../call.js'
import { abortedBeforeDispatch, approvalFailure, noApprovalChannel, unknownTool } from '../failures.js'
import { Stage } from '../invariants.js'

/** Resolves with the approver's answer, or with `undefined` as soon as `signal` aborts (P4.8). */
function untilAborted(
  signal: AbortSignal,
  answer: Promise<ApprovalOutcome>,
): Promise<ApprovalOutcome | undefined> {
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    answer.then((outcome) => {
      signal.removeEventListener('abort', onAbort)
      resolve(outcome)
    })
  })
}

/**
 * Asks the call's approver (the input's, else the runtime's, P4.1) about an `ask` with
 * `reason`. Resolves `undefined` for `'allowed-once'` (P4.3), otherwise with the post-result:
 * `UNKNOWN_TOOL` without asking anyone when the call's live view does not resolve its name
 * (P4.11), `DENIED` for the refusals (P4.1, P4.4–P4.7, P4.10) and `ABORTED_BEFORE_DISPATCH` when
 * the caller aborted before or while asking (P4.8).
 */
export async function approve(call: Call, reason: string | undefined): Promise<ToolResult | undefined> {
  call.enter(Stage.approval)
  // Every route (loop, worker, MCP, Code Mode) passes here, so no approver of any kind is ever
  // asked about a call dispatch would refuse as unknown (M3.5, T4.2).
  if (call.resolve() === undefined) return unknownTool(call.name)
  const approver = call.approver ?? call.core.options.approver
  if (approver === undefined) return noApprovalChannel(call.name)
  const { exec } = call
  const digest = await argumentsDigest(exec.arguments!)
  if (call.signal.aborted) return abortedBeforeDispatch()
  const request: { -readonly [K in keyof ApprovalRequest]: ApprovalRequest[K] } = {
    callId: exec.callId,
    rootCallId: exec.rootCallId,
    name: exec.name,
    arguments: exec.arguments!,
    argumentsDigest: digest,
  } as ApprovalRequest
  if (reason !== undefined) request.reason = reason
  if (exec.scope !== undefined) request.scope = exec.scope
  request.signal = exec.signal
  const outcome = await untilAborted(call.signal, askApprover(approver, Object.freeze(request)))
  return outcome === undefined ? abortedBeforeDispatch() : approvalFailure(call.name, outcome)
}
