import type { RuntimeScope, ToolSurface, ToolView } from '@tooltx/core'
import type { Session, StepRef } from '@tooltx/session'
import type { AgentRuntime } from '../base/agent-runtime.js'
import type { Journal } from '../base/journal.js'
import { type ModelAdapter, type ModelRequest, systemPrompt } from '../model/model.js'
import type { ContextBudget } from './context-budget.js'
import { type PreparedRequest, type PrepareStep, prepareRequest, restoreRequest } from './prepare-step.js'

/** What building one step's request needs from the loop. */
export interface StepRequestContext extends StepRef {
  readonly runtime: AgentRuntime
  readonly scope: RuntimeScope
  readonly session: Session
  /** Where the `context/compacted` of a compaction is recorded (T3.5). */
  readonly journal: Journal
  readonly model: ModelAdapter
  readonly signal: AbortSignal
  readonly system: string | undefined
  readonly prepareStep: PrepareStep | undefined
  readonly budget: ContextBudget | undefined
}

/** One step's model request and the view its calls run in (L3.3, T3, T4). */
export interface StepRequest {
  readonly request: ModelRequest
  readonly view: ToolView
  readonly tools: ToolSurface['tools']
  /** The step's scope and what `prepareStep` changed; dispose it when the step ends. */
  readonly prepared: PreparedRequest
  /** The budget's count of `request`, for `budget.observe`; 0 without a budget. */
  readonly measured: number
}

/**
 * Builds one step's request: `prepareStep` applied (T4), the surface read from the step's view
 * at request time (L3.3), and, with a budget, the history compacted first when the request would
 * exceed it (T3) — the `context/compacted` event is durable before the model is asked, and the
 * request carries the messages derived after it. On a failure the step's scope is disposed.
 */
export async function stepRequest(ctx: StepRequestContext): Promise<StepRequest> {
  const { runtime, scope, session, turn, step } = ctx
  const prepared =
    ctx.prepareStep === undefined
      ? restoreRequest(undefined, { runtime, scope, system: ctx.system })
      : await prepareRequest(
          ctx.prepareStep,
          { turn, step, messages: session.messages(), tools: toolNames(runtime.view(scope)) },
          { runtime, scope, system: ctx.system },
        )
  try {
    const view = runtime.view(prepared.scope)
    const surface = view.surface()
    const request: ModelRequest = {
      ...(prepared.system !== undefined ? { system: prepared.system } : {}),
      instructions: surface.instructions,
      tools: [...surface.tools],
      messages: session.history(),
      ...(prepared.toolChoice !== undefined ? { toolChoice: prepared.toolChoice } : {}),
    }
    const measured = ctx.budget === undefined ? 0 : await fit(ctx, ctx.budget, request, surface.tools)
    return { request, view, tools: surface.tools, prepared, measured }
  } catch (error) {
    prepared.dispose()
    throw error
  }
}

/** Compacts the history when `request` is over budget (T3.5); returns the request's count after. */
async function fit(
  ctx: StepRequestContext,
  budget: ContextBudget,
  request: ModelRequest,
  // The surface's own array: while the view is unchanged the budget recounts no schema.
  tools: ToolSurface['tools'],
): Promise<number> {
  const system = systemPrompt(request)
  const { turn, step, model, signal, session, journal } = ctx
  const compacted = await budget.compaction({
    turn,
    step,
    system,
    tools,
    messages: request.messages,
    model,
    signal,
  })
  if (compacted !== undefined) {
    await journal.record('context/compacted', compacted)
    request.messages = session.history()
  }
  return budget.measure(system, tools)
}

function toolNames(view: ToolView): string[] {
  return view.surface().tools.map((tool) => tool.name)
}
