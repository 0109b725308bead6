import type { EffectSink, ToolCallBlock, ToolFailure, ToolResult } from '@tooltx/core'
import { ERROR_NAMES } from '@tooltx/core/internal'
import type { NewSessionEvent, StepRef, ToolResultData } from '@tooltx/session'
import type { Journal } from './journal.js'

/** The `tool/call` of a block: its raw argument string, as the model sent it (L4.4). */
export function toolCallEvent(where: StepRef, block: ToolCallBlock): NewSessionEvent {
  const { turn, step } = where
  return {
    type: 'tool/call',
    data: { turn, step, callId: block.id, name: block.name, arguments: block.arguments },
  }
}

/** The `tool/result` of a block: content, isError, error info and meta only (O2.1–O2.3). */
export function toolResultEvent(where: StepRef, block: ToolCallBlock, result: ToolResult): NewSessionEvent {
  const data: { -readonly [K in keyof ToolResultData]: ToolResultData[K] } = {
    turn: where.turn,
    step: where.step,
    callId: block.id,
    name: block.name,
    content: result.content,
    isError: result.isError,
  }
  if (result.isError) data.error = result.error.info
  if (result.meta !== undefined) data.meta = result.meta
  if (result.provenance !== undefined) data.provenance = result.provenance
  return { type: 'tool/result', data }
}

/** Why a call of the batch never started. */
export type NotStartedReason = 'aborted' | 'limited' | 'cut'

const NOT_STARTED: Readonly<Record<NotStartedReason, string>> = {
  aborted: 'tool call aborted before dispatch',
  limited: 'tool call not started: the turn reached its maxToolCalls limit',
  cut:
    'tool call not started: the provider cut the reply while this call was written, so its arguments ' +
    'may be incomplete. Call it again with smaller arguments, or split the work.',
}

/**
 * The `tool/call` + `tool/result` of a call that never started: kept back by the abort (L6.3)
 * by the turn's `maxToolCalls` (L13.1), or by a cut reply (T2.3). The result is the runtime's own
 * `ABORTED_BEFORE_DISPATCH` failure, with the message saying which.
 */
export function notStartedEvents(
  where: StepRef,
  block: ToolCallBlock,
  reason: NotStartedReason,
): NewSessionEvent[] {
  const message = NOT_STARTED[reason]
  const code = 'ABORTED_BEFORE_DISPATCH'
  const failure: ToolFailure = {
    isError: true,
    error: { message, info: { name: ERROR_NAMES[code], code } },
    content: [{ type: 'text', text: `Error: ${message}` }],
  }
  return [toolCallEvent(where, block), toolResultEvent(where, block, failure)]
}

/**
 * The effect sink of one call (F1.3): records each receipt as `tool/effect` of `block` in
 * `journal`, so it is durable before the call's result, and resolves when it is. A failed write
 * goes to `fail` (it fails the batch, L5.5) and rejects the body's `recordEffect`.
 */
export function effectSink(
  journal: Journal,
  where: StepRef,
  block: ToolCallBlock,
  fail: (error: unknown) => void,
): EffectSink {
  const { turn, step } = where
  return ({ receipt }) =>
    journal.record('tool/effect', { turn, step, callId: block.id, name: block.name, receipt }).then(
      () => undefined,
      (error: unknown) => {
        fail(error)
        throw error
      },
    )
}
