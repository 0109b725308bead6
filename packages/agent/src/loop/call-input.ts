import {
  type Approver,
  type CodeDispatchSink,
  parseToolArguments,
  type RuntimeScope,
  type ToolCallBlock,
  type ToolSurface,
} from '@tooltx/core'
import type { ApprovalDecidedData, StepRef } from '@tooltx/session'
import { decidedApprover, durableApprover } from '../approvals/durable-approvals.js'
import { recordingApprover } from '../approvals/recording-approver.js'
import type { ToolCallInput } from '../base/agent-runtime.js'
import type { Journal } from '../base/journal.js'
import { effectSink } from '../base/tool-events.js'
import type { LoopContext } from './loop-context.js'
import type { BatchHooks } from './scheduler.js'

/** Where the calls of one batch run and what they record into. */
export interface CallPlace {
  readonly journal: Journal
  readonly where: StepRef
  /** The turn signal. */
  readonly signal: AbortSignal
  /** The step's scope: the agent's, or the child `prepareStep` narrowed (T4.2). */
  readonly scope: RuntimeScope
  /** Decisions a resumed batch answers its asks with, by call id (F2.7). */
  readonly decisions?: Map<string, ApprovalDecidedData> | undefined
}

/**
 * The input builder of one batch's calls (L4.3), made once the batch hands over its hooks:
 * the approver (recording L8, durable F2.2, or answered from a recorded decision F2.7), the
 * agent's `onElicit` (P8.20), the effect sink (F1.3) and the Code Mode dispatch sink (X5.3) are built once per batch and
 * record into the place's journal; a failed write on a call's behalf goes to the batch's
 * `fail` (L5.5). Each input carries `provenance`, what the call's context holds (H2.2).
 */
export function callInputs(
  ctx: LoopContext,
  place: CallPlace,
): (hooks: BatchHooks) => (block: ToolCallBlock, args: unknown) => ToolCallInput {
  const { session, approver, codeRuntime, onElicit } = ctx.options
  const { journal, where, signal, scope, decisions } = place
  return (hooks) => {
    const { fail } = hooks
    let batchApprover: Approver | undefined
    if (approver !== undefined) batchApprover = recordingApprover(approver, journal, where, fail)
    if (ctx.durable !== undefined) {
      const { suspend, has } = hooks
      batchApprover = durableApprover({
        journal,
        settings: ctx.durable,
        where,
        isBatchCall: has,
        suspend,
        fail,
      })
    }
    // A resumed batch answers its waiting call from the decision in the log (F2.7).
    if (decisions !== undefined && decisions.size > 0)
      batchApprover = decidedApprover(decisions, batchApprover)
    const onCodeDispatch = codeDispatchSink(journal, where, fail)
    return (block, args) => {
      const input: ToolCallInput = { callId: block.id, name: block.name, arguments: args, signal, scope }
      // The key derives from the session, the call id and the arguments: the same on resume (F1.2).
      input.idempotencyScope = session.id
      input.onEffect = effectSink(journal, where, block, fail)
      // A later owner of the session has a larger epoch: an external system can refuse us (F1.9).
      input.fencingToken = session.epoch
      if (batchApprover !== undefined) input.approver = batchApprover
      if (codeRuntime !== undefined) input.codeRuntime = codeRuntime
      if (onElicit !== undefined) input.elicit = onElicit
      input.onCodeDispatch = onCodeDispatch
      // What the call's context holds and where its arguments came from (H2.2, H3.1).
      const provenance = ctx.provenance.of(args)
      if (provenance !== undefined) input.provenance = provenance
      return input
    }
  }
}

/**
 * The input builder of calls run outside any batch, one at a time (crash recovery, F1.4; the
 * interrupted calls of a resumed turn, F2.7), in turn `turn` of `place`: a failed write on a
 * call's behalf goes to that call's `fail`, which recovery rethrows once the call settles
 * (L5.5). Nothing here may throw: an approval that waits on its write would never settle.
 */
export function recoveryInput(
  ctx: LoopContext,
  place: Omit<CallPlace, 'where'> & { readonly turn: number; readonly tools: ToolSurface['tools'] },
): (block: ToolCallBlock, step: number, fail: (error: unknown) => void) => ToolCallInput {
  const { turn, tools, ...rest } = place
  return (block, step, fail) => {
    const hooks: BatchHooks = { fail, suspend: () => {}, has: () => false }
    const input = callInputs(ctx, { ...rest, where: { turn, step } })(hooks)
    return input(block, parsedArguments(ctx, block, tools))
  }
}

/** A call's arguments as the model adapter parses them (Z1.4), else L4.1. */
function parsedArguments(ctx: LoopContext, block: ToolCallBlock, tools: ToolSurface['tools']): unknown {
  const { model } = ctx.options
  return model.parseArguments === undefined
    ? parseToolArguments(block.arguments)
    : model.parseArguments(block, tools)
}

/** Records Code Mode dispatch events with the batch's turn and step (X5.3). */
function codeDispatchSink(
  journal: Journal,
  where: StepRef,
  fail: (error: unknown) => void,
): CodeDispatchSink {
  const { turn, step } = where
  // A lost dispatch event is a failed write like any other: it fails the batch.
  return (event) => {
    if (event.type === 'start') {
      const { type, ...start } = event
      return journal.record('tool/code-dispatch-start', { turn, step, ...start }).then(() => undefined, fail)
    }
    const { type, ...settle } = event
    return journal.record('tool/code-dispatch', { turn, step, ...settle }).then(() => undefined, fail)
  }
}
