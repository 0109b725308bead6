/**
 * What the requests an MCP server makes of the agent's host share, sampling or elicitation
 * (Y2.30–Y2.36): the turn in progress they are recorded in, and the ask through the agent's
 * approver — the same approver that decides tool calls.
 */
import { randomUUID } from 'node:crypto'
import { argumentsDigest, type JsonValue } from '@tooltx/core'
import { askApprover } from '@tooltx/core/internal'
import type { ServerRequestData, StepRef } from '@tooltx/session'
import type { LoopContext, TurnInProgress } from './loop/loop-context.js'

/**
 * The names an approver sees a server's request under (Y2.32): MCP's method names, which hold
 * a `/` and so are never a tool's name.
 */
export const SERVER_REQUEST_NAMES = Object.freeze({
  sampling: 'sampling/createMessage',
  elicitation: 'elicitation/create',
} as const)

/** Where a server's request is recorded: the turn in progress and its open step. */
export interface RequestSite {
  readonly turn: TurnInProgress
  readonly where: StepRef
  /** Aborts when the server cancels the request or the turn is aborted. */
  readonly signal: AbortSignal
}

/**
 * The site of a request arriving now under `signal`, or why it has none: a request is recorded
 * in the open step of the turn in progress, so outside a turn nothing can record it (Y2.30).
 */
export function requestSite(ctx: LoopContext, signal: AbortSignal): RequestSite | string {
  const turn = ctx.turnInProgress
  if (turn === undefined || turn.openStep === undefined)
    return 'the agent has no turn in progress to record it in'
  return {
    turn,
    where: { turn: turn.turn, step: turn.openStep },
    signal: AbortSignal.any([signal, turn.signal]),
  }
}

/** How the approver answered: allowed, or not, with the outcome it gave and why. */
export type AskVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly outcome: string; readonly reason: string }

/** What an ask puts to the approver. */
export interface ServerAsk {
  readonly name: string
  readonly arguments: JsonValue
  readonly reason: string
}

/**
 * Asks the agent's approver about a server's request (Y2.32). Durable approvals cannot answer
 * while the server waits on its connection, and an agent without an approver has no one to
 * ask: both refuse at once, saying so, instead of waiting.
 */
export async function askAgentApprover(
  ctx: LoopContext,
  ask: ServerAsk,
  signal: AbortSignal,
): Promise<AskVerdict> {
  if (ctx.durable !== undefined)
    return {
      allowed: false,
      outcome: 'unavailable',
      reason:
        "the agent's approvals are durable, and a server's request cannot wait in the session for a decision (the server waits on its connection); allow it by policy instead",
    }
  const approver = ctx.options.approver
  if (approver === undefined)
    return { allowed: false, outcome: 'unavailable', reason: 'the agent has no approver to ask' }
  const callId = `${ask.name}#${randomUUID()}`
  const outcome = await askApprover(approver, {
    callId,
    rootCallId: callId,
    name: ask.name,
    arguments: ask.arguments,
    argumentsDigest: await argumentsDigest(ask.arguments),
    reason: ask.reason,
    signal,
  })
  return outcome === 'allowed-once'
    ? { allowed: true }
    : { allowed: false, outcome, reason: `the approver answered ${outcome}` }
}

/** Records `data` in the site's open step; resolves once it is durable (L1.10). */
export async function recordRequest(site: RequestSite, data: ServerRequestData): Promise<void> {
  await site.turn.journal.record('server/request', data)
}
