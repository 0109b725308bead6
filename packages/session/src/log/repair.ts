import type { ApprovalOutcome, JsonValue, ToolCallBlock } from '@tooltx/core'
import { approvalFailure, ERROR_NAMES } from '@tooltx/core/internal'
import type { NewSessionEvent, SessionEvent, StepRef } from './events.js'
import type { AssistantTurn } from './log-facts.js'
import { LogState } from './log-state.js'

/** Content of a repaired call that was logged but never answered (L9.2). */
export const OUTCOME_UNKNOWN_TEXT =
  'Error: tool call outcome is unknown: the session ended before its result was recorded, so the call may or may not have taken effect. Verify the external state before relying on it; retry only a read-only or idempotent tool.'

/**
 * Content of a repaired call whose body recorded receipts (F1.4): what already happened, so
 * the model neither repeats the effect nor reports it as unknown.
 */
export function effectRecordedText(receipts: readonly JsonValue[]): string {
  return `Error: the session ended before this tool call's result was recorded, but the call had already taken effect and recorded ${receipts.length === 1 ? 'this receipt' : 'these receipts'}: ${JSON.stringify(receipts.length === 1 ? receipts[0] : receipts)}. Do not run it again for the same purpose; treat the effect as done and verify the external state if you need more than the receipt.`
}

/** Content of a repaired call that never reached `tool/call` (L9.3). */
export const NOT_STARTED_TEXT = 'Error: tool call was not started before the session ended'

/**
 * The events that make the log valid again after a crash or a scheduler failure (L9.1–L9.4,
 * L5.6), in the order they must be appended: for each tool-call block of the latest turn's
 * latest `assistant/message` without a `tool/result`, in model order, a `TOOL_EFFECT_RECORDED`
 * result carrying the receipts (its body recorded `tool/effect`s, F1.4), a `TOOL_OUTCOME_UNKNOWN`
 * result (a `tool/call` exists) or a `tool/call` plus a `TOOL_NOT_STARTED` result (none exists);
 * then `approval/decided { outcome: 'cancelled' }` for every undecided `approval/asked`; then
 * `step/end` if a step is still open (L9.8); then `turn/end { reason: 'interrupted' }` if the
 * turn is still open. Empty for a valid log, so
 * applying it twice appends nothing the second time (L9.5), and empty for a suspended turn
 * (F2.3), which waits for a decision and an agent to resume it, not for a repair (L9.1) —
 * unless `closeSuspended`: a fork closes a suspended turn like any other (A2.6), so its
 * waiting call, decided or not, is answered without running and its ask is cancelled.
 * Deferred contexts are not recreated (L9.7).
 */
export function repairPlan(state: LogState, closeSuspended = false): NewSessionEvent[] {
  const plan: NewSessionEvent[] = []
  if (!closeSuspended && state.waiting() !== undefined) return plan
  const { turn, assistant } = state
  if (assistant !== undefined) {
    const { step } = assistant
    for (const block of state.unanswered()) {
      const called = assistant.called.has(block.id)
      const { receipts, decisions } = assistant
      plan.push(...repairCall({ turn, step }, block, called, receipts.get(block.id), decisions.get(block.id)))
    }
  }
  for (const asked of state.pendingApprovals.values()) {
    const { step, callId, name, argumentsDigest } = asked
    const decided = { turn, step, callId, name, outcome: 'cancelled' as const }
    plan.push({
      type: 'approval/decided',
      data: argumentsDigest === undefined ? decided : { ...decided, argumentsDigest },
    })
  }
  if (state.stepOpen) plan.push({ type: 'step/end', data: { turn, step: state.step } })
  if (state.turnOpen) plan.push({ type: 'turn/end', data: { turn, reason: 'interrupted' } })
  return plan
}

/**
 * The repair of one unanswered call (L9.2, L9.3, F1.4, F2.20): a `tool/call` first when none is
 * durable (`called` false), then a `TOOL_EFFECT_RECORDED` result carrying `receipts` when there
 * are some; else, when `decision` (the call's approval outcome, `decisions` of the log state)
 * refused it, the `DENIED` the pipeline gives for it (`approvalFailure`): a body runs only once
 * allowed (V1.2), so the call never ran; else `TOOL_OUTCOME_UNKNOWN` (a `tool/call` exists) or
 * `TOOL_NOT_STARTED` (none did).
 */
export function repairCall(
  where: StepRef,
  block: ToolCallBlock,
  called: boolean,
  receipts: readonly JsonValue[] | undefined,
  decision?: ApprovalOutcome,
): NewSessionEvent[] {
  const { turn, step } = where
  const { id: callId, name } = block
  const events: NewSessionEvent[] = []
  if (!called)
    events.push({ type: 'tool/call', data: { turn, step, callId, name, arguments: block.arguments } })
  const base = { turn, step, callId, name, isError: true } as const
  if (receipts !== undefined && receipts.length > 0) {
    const code = 'TOOL_EFFECT_RECORDED'
    events.push({
      type: 'tool/result',
      data: {
        ...base,
        content: [{ type: 'text', text: effectRecordedText(receipts) }],
        error: { name: ERROR_NAMES[code], code },
        meta: { receipts: receipts as JsonValue[] },
      },
    })
    return events
  }
  const refused = decision === undefined ? undefined : approvalFailure(name, decision)
  if (refused !== undefined) {
    const { content, error } = refused
    events.push({ type: 'tool/result', data: { ...base, content, error: error.info } })
    return events
  }
  const code = called ? 'TOOL_OUTCOME_UNKNOWN' : 'TOOL_NOT_STARTED'
  const text = called ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT
  events.push({
    type: 'tool/result',
    data: { ...base, content: [{ type: 'text', text }], error: { name: ERROR_NAMES[code], code } },
  })
  return events
}

/** A call of the latest assistant message whose `tool/call` is durable and whose result is not (F1.4). */
export interface InterruptedCall {
  readonly step: number
  readonly block: ToolCallBlock
  /** Its `tool/effect` receipts in append order; empty when the body recorded none. */
  readonly receipts: readonly JsonValue[]
  /**
   * Its approval outcome (`AssistantTurn.decisions`): the latest decision, `'allowed-once'` once
   * any allowed it; `undefined` when it was never asked. Any other outcome refused it (F2.20).
   */
  readonly decision: ApprovalOutcome | undefined
}

/** `block` of `assistant` as an interrupted call, with what the log recorded of it. */
export function interruptedCall(assistant: AssistantTurn, block: ToolCallBlock): InterruptedCall {
  const { step, receipts, decisions } = assistant
  return { step, block, receipts: receipts.get(block.id) ?? [], decision: decisions.get(block.id) }
}

/**
 * The calls an interrupted turn left with a `tool/call` and no `tool/result`, in model order
 * (F1.4): what an agent loop may re-run by effect class before the repair answers the rest.
 */
export function interruptedCalls(events: readonly SessionEvent[]): InterruptedCall[] {
  const state = new LogState()
  for (const event of events) state.apply(event)
  const { assistant } = state
  if (assistant === undefined) return []
  return state
    .unanswered()
    .filter((block) => assistant.called.has(block.id))
    .map((block) => interruptedCall(assistant, block))
}

/**
 * The repair `events` need, computed from scratch (the same plan `openSession` appends).
 * Throws nothing for any log `openSession` accepted.
 */
export function planRepair(events: readonly SessionEvent[]): NewSessionEvent[] {
  const state = new LogState()
  for (const event of events) state.apply(event)
  return repairPlan(state)
}
