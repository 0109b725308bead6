/**
 * Approvals over MCP (Y1.7): an `ask` becomes an elicitation request to the client, bound to the
 * call's arguments digest; without elicitation support the ask fails closed.
 */
import {
  type ElicitRequestFormParams,
  type ElicitResult,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/server'
import type { ApprovalOutcome, ApprovalRequest, Approver } from '@tooltx/core'

/** Sends one elicitation request related to the call being served. */
export type Elicit = (params: ElicitRequestFormParams, options: RequestOptions) => Promise<ElicitResult>

/** The approver when the client cannot be asked: every ask is `DENIED` (P4.6). */
export const failClosed: Approver = () => 'unavailable'

/** The elicitation form for one approval request (Y1.7). */
export function approvalForm(request: ApprovalRequest): ElicitRequestFormParams {
  const why = request.reason === undefined ? '' : ` (${request.reason})`
  return {
    mode: 'form',
    message:
      `Allow the tool call ${request.name} ${JSON.stringify(request.arguments)}${why}? ` +
      `Approving covers exactly these arguments, digest ${request.argumentsDigest}, once.`,
    requestedSchema: {
      type: 'object',
      properties: {
        approve: { type: 'boolean', title: `Allow ${request.name}`, default: false },
        argumentsDigest: {
          type: 'string',
          title: 'Arguments digest being approved',
          enum: [request.argumentsDigest],
          default: request.argumentsDigest,
        },
      },
      required: ['approve', 'argumentsDigest'],
    },
  }
}

/**
 * The outcome an elicitation answer means (Y1.7): `allowed-once` only for an `accept` with
 * `approve: true` and the very digest that was asked about; `decline` or a refusal is
 * `rejected`; `cancel` is `cancelled`; anything else is `unavailable`. The SDK already refuses an
 * answer that does not fit the form (whose digest field admits one value); this is the second lock.
 */
export function approvalOutcome(request: ApprovalRequest, answer: ElicitResult): ApprovalOutcome {
  if (answer.action === 'cancel') return 'cancelled'
  if (answer.action === 'decline') return 'rejected'
  if (answer.action !== 'accept') return 'unavailable'
  const content = answer.content ?? {}
  if (content.argumentsDigest !== request.argumentsDigest) return 'unavailable'
  return content.approve === true ? 'allowed-once' : 'rejected'
}

/** An approver that asks through `elicit`, waiting at most `timeoutMs` for the person to answer. */
export function elicitApprover(elicit: Elicit, timeoutMs: number): Approver {
  return async (request) => {
    try {
      const answer = await elicit(approvalForm(request), { signal: request.signal, timeout: timeoutMs })
      return approvalOutcome(request, answer)
    } catch (error) {
      // Nobody approved this call: the person ran out of time (cancelled), or the channel failed
      // (a closed connection, a client error, an answer that does not fit the form).
      return SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout
        ? 'cancelled'
        : 'unavailable'
    }
  }
}
