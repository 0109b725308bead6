/**
 * A server's question (MCP elicitation) answered in an agent (Y2.35, Y2.36): by the host's own
 * handler, or by the agent's approver when the question has a yes/no shape, and recorded in
 * the turn in progress before the answer goes back.
 */
import { errorMessage } from '@tooltx/core/internal'
import type { ElicitationRequestData } from '@tooltx/session'
import type { LoopContext } from './loop/loop-context.js'
import { askAgentApprover, recordRequest, requestSite, SERVER_REQUEST_NAMES } from './server-request.js'

/** A server's question as an MCP client hands it over (`ElicitQuestion` of `@tooltx/mcp`). */
export interface ElicitationRequest {
  /** The name the server was imported under. */
  readonly server: string
  readonly message: string
  /** The flat object schema of the form. */
  readonly requestedSchema: {
    readonly properties: Readonly<Record<string, { readonly type?: string }>>
    readonly required?: readonly string[]
  }
  /** The ids of the server's imported calls running when it asked. */
  readonly calls: readonly string[]
  readonly signal: AbortSignal
}

/** The answer: `accept` with the form's values, `decline`, or `cancel`. */
export type ElicitationAnswer =
  | { action: 'accept'; content?: Record<string, string | number | boolean | string[]> }
  | { action: 'decline' | 'cancel' }

/** Options of `agent.elicitor` (Y2.35); `R` is the request type of the client that hands questions over. */
export interface ElicitationOptions<R extends ElicitationRequest = ElicitationRequest> {
  /**
   * Answers the questions itself (a person at a terminal, a form in a UI); without it the
   * agent's approver answers the questions it can (Y2.36).
   */
  answer?: (request: R) => ElicitationAnswer | Promise<ElicitationAnswer>
}

/** Answers a server's question. */
export type Elicitor<R extends ElicitationRequest = ElicitationRequest> = (
  request: R,
) => Promise<ElicitationAnswer>

type Answered = { answer: ElicitationAnswer; by: ElicitationRequestData['by']; reason?: string }

/** Checks `options` (throwing `INVALID_DEFINITION`) and builds the elicitor of Y2.35. */
export function agentElicitor<R extends ElicitationRequest>(
  ctx: LoopContext,
  options: ElicitationOptions<R> = {},
): Elicitor<R> {
  const { answer } = options
  return async (request) => {
    const site = requestSite(ctx, request.signal)
    if (typeof site === 'string') return { action: 'cancel' }
    let answered: Answered
    try {
      answered =
        answer === undefined
          ? await approverAnswer(ctx, request, site.signal)
          : { answer: await answer({ ...request, signal: site.signal }), by: 'handler' }
    } catch (error) {
      answered = {
        answer: { action: 'cancel' },
        by: 'handler',
        reason: `the handler failed: ${errorMessage(error)}`,
      }
    }
    const { action } = answered.answer
    const content = answered.answer.action === 'accept' ? (answered.answer.content ?? {}) : undefined
    const data: ElicitationRequestData = {
      ...site.where,
      kind: 'elicitation',
      server: request.server,
      calls: [...request.calls],
      message: request.message,
      fields: Object.keys(request.requestedSchema.properties),
      outcome: action,
      by: answered.by,
      ...(answered.reason === undefined ? {} : { reason: answered.reason }),
      ...(content === undefined ? {} : { answered: Object.keys(content) }),
    }
    try {
      await recordRequest(site, data)
    } catch {
      // An answer the session does not hold never reaches the server.
      return { action: 'cancel' }
    }
    return answered.answer
  }
}

/**
 * The approver's answer to a question with a yes/no shape (Y2.36): a form with no field, or with
 * one boolean field, is put to the approver as an approval; `allowed-once` accepts (the boolean
 * `true`), `rejected` declines, any other outcome cancels. A form asking for anything else is
 * cancelled without asking: the approver cannot fill it.
 */
async function approverAnswer(
  ctx: LoopContext,
  request: ElicitationRequest,
  signal: AbortSignal,
): Promise<Answered> {
  const fields = Object.entries(request.requestedSchema.properties)
  const yesNo = fields.length === 0 || (fields.length === 1 && fields[0]![1].type === 'boolean')
  if (!yesNo)
    return {
      answer: { action: 'cancel' },
      by: 'policy',
      reason: `the approver answers only yes or no, and this form asks for ${fields.map(([name]) => name).join(', ')}`,
    }
  const verdict = await askAgentApprover(
    ctx,
    {
      name: SERVER_REQUEST_NAMES.elicitation,
      arguments: { server: request.server, message: request.message },
      reason: `the MCP server "${request.server}" asks: ${request.message}`,
    },
    signal,
  )
  if (verdict.allowed) {
    const content = fields.length === 0 ? {} : { [fields[0]![0]]: true }
    return { answer: { action: 'accept', content }, by: 'approver' }
  }
  const action = verdict.outcome === 'rejected' ? 'decline' : 'cancel'
  return { answer: { action }, by: 'approver', reason: verdict.reason }
}
