import { ERROR_NAMES } from '@tooltx/core'
import type { NewSessionEvent, SessionEvent } from './events.js'
import { LogState } from './log-state.js'

/** Content of a repaired call that was logged but never answered (L9.2). */
export const OUTCOME_UNKNOWN_TEXT =
  'Error: tool call outcome is unknown: the session ended before its result was recorded, so the call may or may not have taken effect. Verify the external state before relying on it; retry only a read-only or idempotent tool.'

/** Content of a repaired call that never reached `tool/call` (L9.3). */
export const NOT_STARTED_TEXT = 'Error: tool call was not started before the session ended'

/**
 * The events that make the log valid again after a crash or a scheduler failure (L9.1–L9.4,
 * L5.6), in the order they must be appended: for each tool-call block of the latest turn's
 * latest `assistant/message` without a `tool/result`, in model order, a `TOOL_OUTCOME_UNKNOWN`
 * result (a `tool/call` exists) or a `tool/call` plus a `TOOL_NOT_STARTED` result (none exists);
 * then `approval/decided { outcome: 'cancelled' }` for every undecided `approval/asked`; then
 * `step/end` if a step is still open (L9.8); then `turn/end { reason: 'interrupted' }` if the
 * turn is still open. Empty for a valid log, so
 * applying it twice appends nothing the second time (L9.5). Deferred contexts are not
 * recreated (L9.7).
 */
export function repairPlan(state: LogState): NewSessionEvent[] {
  const plan: NewSessionEvent[] = []
  const { turn, assistant } = state
  if (assistant !== undefined) {
    const { step } = assistant
    for (const block of state.unanswered()) {
      const { id: callId, name } = block
      if (!assistant.called.has(callId)) {
        plan.push({ type: 'tool/call', data: { turn, step, callId, name, arguments: block.arguments } })
      }
      const code = assistant.called.has(callId) ? 'TOOL_OUTCOME_UNKNOWN' : 'TOOL_NOT_STARTED'
      const text = code === 'TOOL_OUTCOME_UNKNOWN' ? OUTCOME_UNKNOWN_TEXT : NOT_STARTED_TEXT
      plan.push({
        type: 'tool/result',
        data: {
          turn,
          step,
          callId,
          name,
          content: [{ type: 'text', text }],
          isError: true,
          error: { name: ERROR_NAMES[code], code },
        },
      })
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
 * The repair `events` need, computed from scratch (the same plan `openSession` appends).
 * Throws nothing for any log `openSession` accepted.
 */
export function planRepair(events: readonly SessionEvent[]): NewSessionEvent[] {
  const state = new LogState()
  for (const event of events) state.apply(event)
  return repairPlan(state)
}
