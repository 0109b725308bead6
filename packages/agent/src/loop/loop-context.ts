import { definitionError } from '@tooltx/core/internal'
import { type DurableApprovals, resolveApprovals } from '../approvals/durable-approvals.js'
import type { Journal } from '../base/journal.js'
import { ContextBudget } from '../context/context-budget.js'
import { resolveContext } from '../context/context-options.js'
import { ContextProvenanceTracker } from '../context/context-provenance.js'
import type { AgentOptions } from './agent-options.js'
import { InputQueue } from './input-queue.js'
import { resolveBounds, type TurnBounds } from './turn-bounds.js'

/** The turn that runs, as a server's request made during it sees it (Y2.30). */
export interface TurnInProgress {
  readonly turn: number
  /** The step whose `step/start` is durable and whose `step/end` is not. */
  readonly openStep: number | undefined
  readonly signal: AbortSignal
  readonly journal: Journal
}

/** What every turn of one agent reads: its checked options and its input queue. */
export interface LoopContext {
  readonly options: AgentOptions
  readonly maxParallel: number
  readonly bounds: TurnBounds
  /** Follows the session's messages when `context` is set (T3). */
  readonly budget: ContextBudget | undefined
  /** The durable-approval settings (F2.1); `undefined` for in-process approvals. */
  readonly durable: DurableApprovals | undefined
  readonly queue: InputQueue
  /** The labelled results in the model's context, following the session, for `exec.provenance` (H2). */
  readonly provenance: ContextProvenanceTracker
  /** Set by `runTurn` while a turn runs, for the requests of MCP servers (Y2.30). */
  turnInProgress: TurnInProgress | undefined
}

/**
 * Checks `createAgent`'s options and builds what its turns share. Throws `INVALID_DEFINITION`
 * for a `maxParallelToolCalls` that is not a positive integer (L5.4), for bounds that are
 * neither positive integers nor `Infinity` (L13.2), for a malformed `context` (T3.1), a
 * `prepareStep` or `onElicit` that is not a function (T4.1, P8.20), an unknown `onCutToolCalls` (T2.3), and
 * malformed `approvals` or `approvals` with an `approver` (F2.1).
 */
export function loopContext(options: AgentOptions): LoopContext {
  const maxParallel = options.maxParallelToolCalls ?? 10
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw definitionError(`maxParallelToolCalls must be a positive integer, got ${String(maxParallel)}`)
  }
  if (options.prepareStep !== undefined && typeof options.prepareStep !== 'function') {
    throw definitionError('prepareStep must be a function (state) => { system?, tools?, toolChoice? }')
  }
  if (options.onElicit !== undefined && typeof options.onElicit !== 'function') {
    throw definitionError('onElicit must be a function (request) => { action, content? }')
  }
  const cut = options.onCutToolCalls
  if (cut !== undefined && cut !== 'end-turn' && cut !== 'tell-model') {
    throw definitionError(
      `onCutToolCalls must be 'end-turn' or 'tell-model', got ${JSON.stringify(cut) ?? String(cut)}`,
    )
  }
  const context = options.context === undefined ? undefined : resolveContext(options.context)
  const durable = resolveApprovals(options.approvals, options.approver)
  const bounds = resolveBounds(options)
  const { session, runtime, scope } = options
  const budget =
    context === undefined
      ? undefined
      : new ContextBudget(context, session, (name) => runtime.view(scope).get(name))
  // Rebuilt from the log, then kept current by a listener: it reads the session, never appends (H2.4).
  const provenance = ContextProvenanceTracker.following(session, session.events())
  return {
    options,
    maxParallel,
    bounds,
    budget,
    durable,
    queue: new InputQueue(),
    provenance,
    turnInProgress: undefined,
  }
}
