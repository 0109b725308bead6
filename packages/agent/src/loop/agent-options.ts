import type { Approver, CodeRuntime, Elicitor, RuntimeScope } from '@tooltx/core'
import type { Session } from '@tooltx/session'
import type { ApprovalsOption } from '../approvals/durable-approvals.js'
import type { AgentRuntime } from '../base/agent-runtime.js'
import type { ContextOptions } from '../context/context-options.js'
import type { PrepareStep } from '../context/prepare-step.js'
import type { ModelAdapter, ModelStreamEvent } from '../model/model.js'

/** Options of `createAgent` (L3.1). */
export interface AgentOptions {
  runtime: AgentRuntime
  /** The scope whose view the model sees and whose tools it calls. */
  scope: RuntimeScope
  session: Session
  model: ModelAdapter
  /** The sandbox for `run_code` calls, passed in every call's input. */
  codeRuntime?: CodeRuntime
  /** How many concurrency-safe calls may run at once (default 10, L5.4). */
  maxParallelToolCalls?: number
  /** Decides `ask` decisions; every consultation is recorded in the session (L8). */
  approver?: Approver
  /**
   * `'durable'`: an `ask` is recorded in the session and its turn suspends until someone
   * calls `decideApproval` and an agent resumes it, in any process (F2.1); not with `approver`.
   */
  approvals?: ApprovalsOption
  /**
   * Answers the forms tool bodies ask with `run.elicit` (P8.15, P8.20), e.g. by asking the person;
   * passed in every call's input. None: a body's form is cancelled, saying no one can answer.
   * Nothing of a form or its answer is recorded in the session.
   */
  onElicit?: Elicitor
  /** The agent's own system prompt, sent before the surface instructions. */
  system?: string
  /** Sees every model stream event as it arrives (for live display); must not throw. */
  onModelEvent?: (event: ModelStreamEvent) => void
  /** Model requests (steps) per turn; default 100, `Infinity` for none (L13.1). */
  maxSteps?: number
  /** Tool calls started per turn; default 1000, `Infinity` for none (L13.1). */
  maxToolCalls?: number
  /** Wall-clock milliseconds per turn; default `Infinity` (none), since a turn may wait for a person (L13.1). */
  maxTurnMs?: number
  /** A token budget for each model request and how to shrink the history past it (T3.1). */
  context?: ContextOptions
  /** Called before each model call; may change the system prompt, narrow the tools, force a tool (T4.1). */
  prepareStep?: PrepareStep
  /** What follows a reply the provider cut while it held tool calls (T2.3); default `'end-turn'`. */
  onCutToolCalls?: 'end-turn' | 'tell-model'
}
