/** What a scope shows the model and the scheduler (R4, M2, M3.7): the tool view and its surface. */
import type { AnyToolDefinition } from './definition.js'
import type { ModelToolSchema } from './messages.js'

/** How the scheduler may run a call (M3.7). */
export type ExecutionMode = 'parallel' | 'exclusive'

/** What the model is offered by a view (M2.1). */
export interface ToolSurface {
  /** Model-facing schemas sorted by name, deep-frozen (Q2.1). */
  readonly tools: readonly ModelToolSchema[]
  /** Empty in `native` mode; the code-only rule and/or the SDK otherwise. */
  readonly instructions: string
}

/** The live view of one scope (or of the global layer). */
export interface ToolView {
  /** The definition `name` resolves to, or `undefined` (R4.2). */
  get(name: string): AnyToolDefinition | undefined
  /** Every visible definition in first-insertion order, `run_code` last (R2.3). */
  list(): AnyToolDefinition[]
  /** `list()` projected to `{ name, description, parameters }`, parameters copied per call (S5.6). */
  schemas(): ModelToolSchema[]
  /** `'parallel'` only when the visible definition's `isConcurrencySafe` returns exactly `true` (M3.7, M3.8). */
  executionMode(input: { name: string; arguments: unknown; parent?: symbol }): ExecutionMode
  /**
   * The tools and instructions a model request carries (M2): the same frozen object until the
   * registry changes, then rebuilt on the next read (Q2.1, Q2.2).
   */
  surface(): ToolSurface
}
