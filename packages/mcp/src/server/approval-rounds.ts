/**
 * Approvals on the stateless 2026-07-28 revision (Y1.16), which has no server-to-client request:
 * an `ask` ends the call's first round with an `input_required` result holding the approval
 * form, and the client's retry of the call carries the person's answer. Each form is bound to a
 * one-time grant (a random `requestState`) naming the tool and the arguments digest, so an
 * answer approves exactly one retried call with the same arguments.
 */
import { randomBytes } from 'node:crypto'
import type { ElicitResult } from '@modelcontextprotocol/server'
import type { ApprovalRequest, Approver } from '@tooltx/core'
import { approvalOutcome } from './elicit-approver.js'

/** The key of the approval form in `inputRequests` and of its answer in `inputResponses`. */
export const APPROVAL_INPUT = 'tooltx/approval'

interface Grant {
  readonly name: string
  readonly digest: string
  readonly expires: number
}

/** The grants a server issued and not yet redeemed, each for one retried call. */
export class ApprovalRounds {
  readonly #grants = new Map<string, Grant>()
  readonly #timeoutMs: number

  /** Grants expire `timeoutMs` after they were issued (the server's `approvalTimeoutMs`). */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs
  }

  /** A fresh grant for `request`: the `requestState` of its `input_required` round. */
  issue(request: ApprovalRequest): string {
    const now = Date.now()
    for (const [state, grant] of this.#grants) if (grant.expires <= now) this.#grants.delete(state)
    const state = randomBytes(24).toString('base64url')
    this.#grants.set(state, {
      name: request.name,
      digest: request.argumentsDigest,
      expires: now + this.#timeoutMs,
    })
    return state
  }

  /**
   * The approver of one round of a call. Without an answer it hands the request to `onAsk`
   * (the round then ends `input_required`) and decides `cancelled`. With one, the round's
   * `requestState` must name an unexpired, unredeemed grant for this tool and digest, which it
   * redeems, and the answer means what it means for an elicitation (Y1.7); anything else, or a
   * second ask in the same round, is `unavailable`.
   */
  approver(
    responses: Record<string, unknown> | undefined,
    state: string | undefined,
    onAsk: (request: ApprovalRequest) => void,
  ): Approver {
    let answered = false
    return (request) => {
      const answer = responses?.[APPROVAL_INPUT]
      if (answer === undefined) {
        onAsk(request)
        return 'cancelled'
      }
      if (answered || typeof answer !== 'object' || answer === null) return 'unavailable'
      answered = true
      const grant = state === undefined ? undefined : this.#grants.get(state)
      if (state !== undefined) this.#grants.delete(state)
      const fits =
        grant !== undefined &&
        grant.expires > Date.now() &&
        grant.name === request.name &&
        grant.digest === request.argumentsDigest
      return fits ? approvalOutcome(request, answer as ElicitResult) : 'unavailable'
    }
  }
}
