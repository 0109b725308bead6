import type { ModelMessage, RuntimeScope, ToolRuntime } from '@tooltx/core'
import { definitionError } from '@tooltx/core/internal'
import type { PreparedStep, ToolChoice } from '@tooltx/session'

/** What `prepareStep` is shown before a model call (T4.1). */
export interface StepState {
  readonly turn: number
  readonly step: number
  /** The messages the request will carry (`session.messages()`). */
  readonly messages: readonly ModelMessage[]
  /** The names of the tools the agent's scope offers the model now, in surface order. */
  readonly tools: readonly string[]
}

/** What `prepareStep` may change for one step (T4.1); every field is optional. */
export interface StepPreparation {
  /** Replaces the agent's `system` prompt for this step. */
  system?: string
  /** The tools this step may see and call; the rest are restricted away (T4.2). */
  tools?: readonly string[]
  /** Which tool the model may or must call in this step. */
  toolChoice?: ToolChoice
}

/** Called before each model call; must not throw (a throw ends the turn with `error`). */
export type PrepareStep = (
  state: StepState,
) => StepPreparation | undefined | Promise<StepPreparation | undefined>

/** One step's prepared request: the scope it reads and dispatches through, and what changed. */
export interface PreparedRequest {
  readonly scope: RuntimeScope
  readonly system: string | undefined
  readonly toolChoice: ToolChoice | undefined
  /** What to record on the step's `assistant/message` and `step/end` (T4.3, T4.4); undefined when nothing changed. */
  readonly prepared: PreparedStep | undefined
  /** True for a tool the agent's scope offers and the step's narrowing keeps out (T4.5). */
  hides(name: string): boolean
  /** Disposes the step's scope, if one was made. */
  dispose(): void
}

/** The part of a runtime a step's preparation uses: a child scope and its view. */
export type StepRuntime = Pick<ToolRuntime, 'scope' | 'view'>

const KEYS = new Set(['system', 'tools', 'toolChoice'])
// The Code Mode tool: the view synthesizes it from the mode, so no restriction can name it (R3.6).
const RUN_CODE_NAME = 'run_code'

/**
 * Runs `prepare` for one step and applies its answer (T4.1–T4.3). Narrowed tools become a child
 * scope of `scope` with a restriction allowing exactly those names, so the prompt, classification
 * and dispatch of the step all read that one view and a call to a hidden tool fails
 * `UNKNOWN_TOOL` (R4.2); `run_code` follows the scope's mode and cannot be named. Throws
 * `INVALID_DEFINITION` for an answer that is not `{ system?, tools?, toolChoice? }` or that
 * forces a tool the step does not offer.
 */
export async function prepareRequest(
  prepare: PrepareStep,
  state: StepState,
  context: { runtime: StepRuntime; scope: RuntimeScope; system: string | undefined },
): Promise<PreparedRequest> {
  const answer = await prepare(state)
  const { runtime, scope } = context
  if (answer === undefined) return requestOf(runtime, scope, scope, context.system, undefined)
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw definitionError('prepareStep must return { system?, tools?, toolChoice? } or undefined')
  }
  const extra = Object.keys(answer).filter((key) => !KEYS.has(key))
  if (extra.length > 0) {
    throw definitionError(
      `prepareStep returned unknown key(s) ${extra.map((k) => JSON.stringify(k)).join(', ')}`,
    )
  }
  const { system, tools, toolChoice } = answer
  if (system !== undefined && typeof system !== 'string')
    throw definitionError('prepareStep system must be a string')
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((name) => typeof name !== 'string'))) {
    throw definitionError('prepareStep tools must be an array of tool names')
  }
  if (toolChoice !== undefined) checkChoice(toolChoice)
  const prepared: { -readonly [K in keyof PreparedStep]: PreparedStep[K] } = {}
  if (system !== undefined) prepared.system = system
  if (toolChoice !== undefined) prepared.toolChoice = toolChoice
  let stepScope = scope
  if (tools !== undefined) {
    const allow = [...new Set(tools)].filter((name) => name !== RUN_CODE_NAME)
    stepScope = narrowed(runtime, scope, allow)
    prepared.tools = allow
  }
  const offered = runtime
    .view(stepScope)
    .surface()
    .tools.map((tool) => tool.name)
  if (typeof toolChoice === 'object' && !offered.includes(toolChoice.tool)) {
    if (stepScope !== scope) stepScope.dispose()
    throw definitionError(
      `prepareStep forces tool ${JSON.stringify(toolChoice.tool)}, which the step does not offer; it offers ${offered.join(', ') || '(none)'}`,
    )
  }
  const changed = Object.keys(prepared).length === 0 ? undefined : prepared
  return requestOf(runtime, scope, stepScope, system ?? context.system, changed)
}

/**
 * The request of a step rebuilt from what its `prepareStep` changed, as recorded (T4.4), without
 * calling `prepareStep` again (T4.5): the same system prompt, tool choice and narrowing. A
 * recorded name the scope no longer offers is left out, so a rebuilt step never offers more than
 * the step did. `undefined` rebuilds the agent's own step.
 */
export function restoreRequest(
  prepared: PreparedStep | undefined,
  context: { runtime: StepRuntime; scope: RuntimeScope; system: string | undefined },
): PreparedRequest {
  const { runtime, scope } = context
  const system = prepared?.system ?? context.system
  if (prepared?.tools === undefined) return requestOf(runtime, scope, scope, system, prepared)
  const view = runtime.view(scope)
  const allow = prepared.tools.filter((name) => view.get(name) !== undefined)
  return requestOf(runtime, scope, narrowed(runtime, scope, allow), system, prepared)
}

/** A child scope of `scope` restricted to exactly the names `allow` (T4.2). */
function narrowed(runtime: StepRuntime, scope: RuntimeScope, allow: readonly string[]): RuntimeScope {
  const child = runtime.scope({ parent: scope })
  try {
    child.restrict({ allow: [...allow] })
  } catch (error) {
    child.dispose()
    throw error
  }
  return child
}

/** The request of a step that reads `stepScope`: the agent's `scope` itself, or a child it owns and disposes. */
function requestOf(
  runtime: StepRuntime,
  scope: RuntimeScope,
  stepScope: RuntimeScope,
  system: string | undefined,
  prepared: PreparedStep | undefined,
): PreparedRequest {
  return {
    scope: stepScope,
    system,
    toolChoice: prepared?.toolChoice,
    prepared,
    hides: (name) =>
      stepScope !== scope &&
      runtime.view(stepScope).get(name) === undefined &&
      runtime.view(scope).get(name) !== undefined,
    dispose: () => {
      if (stepScope !== scope) stepScope.dispose()
    },
  }
}

function checkChoice(choice: unknown): void {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return
  const tool = (choice as { tool?: unknown } | null)?.tool
  if (
    typeof choice === 'object' &&
    choice !== null &&
    typeof tool === 'string' &&
    Object.keys(choice).length === 1
  )
    return
  throw definitionError(
    `prepareStep toolChoice must be "auto", "none", "required" or { tool: <name> }, got ${JSON.stringify(choice) ?? String(choice)}`,
  )
}
