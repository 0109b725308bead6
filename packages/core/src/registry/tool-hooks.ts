/**
 * Per-tool hooks (P14): a pre-execute handler, guard or post-execute handler bound to one tool
 * definition sees that tool's calls only, with arguments that passed the tool's parameters, so
 * its types are true. Each becomes an ordinary global or scoped handler that steps aside
 * (`next()`, abstain) for other tools and for arguments that fail validation, which the body
 * then rejects as `INVALID_ARGS` anyway.
 */

import type { AnyToolDefinition, ToolDefinition } from '../contract/definition.js'
import type { Execution } from '../contract/execution.js'
import type {
  Guard,
  PostDecision,
  PostExecuteHandler,
  PreDecision,
  PreExecuteHandler,
} from '../contract/hooks.js'
import type { ToolFailure, ToolSuccess } from '../contract/result.js'
import { definitionError } from '../foundation/errors.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import { checkToolArguments } from '../tool/define-tool.js'

/** The execution of one call of a tool whose arguments are `Args` (P14.2). */
export type ToolExecution<Args> = Omit<Execution, 'arguments'> & { readonly arguments: Args }

/** A result of a tool whose success value is `Value` (P14.3). */
export type ToolResultOf<Value> = (Omit<ToolSuccess, 'value'> & { readonly value: Value }) | ToolFailure

/** A pre-execute handler bound to one tool (P14.1). */
export type ToolPreExecuteHandler<Args> = (
  exec: ToolExecution<Args>,
  next: () => Promise<PreDecision>,
) => PreDecision | Promise<PreDecision>

/** A guard bound to one tool (P14.1): a non-empty string denies, `undefined` abstains. */
export type ToolGuard<Args> = (exec: ToolExecution<Args>) => string | undefined

/** A post-execute handler bound to one tool (P14.1). */
export type ToolPostExecuteHandler<Args, Value> = (
  exec: ToolExecution<Args>,
  result: ToolResultOf<Value>,
  next: () => Promise<PostDecision>,
) => PostDecision | Promise<PostDecision>

/** Any tool definition, whatever its argument and value types. */
export type BindableTool<Args = any, Value extends JsonValue = any> = ToolDefinition<Args, Value>

/** The bound tool's name; throws `INVALID_DEFINITION` when `tool` is not a definition. */
function nameOf(tool: unknown, what: string): string {
  const name = tool !== null && typeof tool === 'object' ? (tool as { name?: unknown }).name : undefined
  if (typeof name !== 'string') throw definitionError(`${what} tool must be a tool definition`)
  return name
}

/**
 * Whether `exec` is a call of `tool` whose arguments validate: `true`, `false` or a promise of
 * either. A definition `defineTool` did not build validates nothing, so every call counts.
 */
function admits(tool: AnyToolDefinition, exec: Execution): boolean | Promise<boolean> {
  const outcome = checkToolArguments(tool, exec.arguments)
  if (outcome === undefined) return true
  if (outcome instanceof Promise) return outcome.then((o) => o.ok)
  return outcome.ok
}

/** `handler` for calls of `tool` only (P14.1, P14.2). */
export function bindPreExecute(tool: unknown, handler: unknown): PreExecuteHandler {
  const name = nameOf(tool, 'onPreExecute')
  if (typeof handler !== 'function') throw definitionError('onPreExecute handler must be a function')
  const fn = handler as PreExecuteHandler
  return async (exec, next) => {
    if (exec.name !== name) return next()
    return (await admits(tool as AnyToolDefinition, exec)) ? fn(exec, next) : next()
  }
}

/**
 * `guard` for calls of `tool` only (P14.1, P14.2). Guards are synchronous: when the arguments
 * can only be validated asynchronously the guard runs anyway, since a guard can only deny.
 */
export function bindGuard(tool: unknown, guard: unknown): Guard {
  const name = nameOf(tool, 'guard')
  if (typeof guard !== 'function') throw definitionError('guard handler must be a function')
  const fn = guard as Guard
  return (exec) => {
    if (exec.name !== name) return undefined
    const ok = admits(tool as AnyToolDefinition, exec)
    if (ok instanceof Promise) ok.catch(() => {})
    return ok === false ? undefined : fn(exec)
  }
}

/** `handler` for results of `tool` only (P14.1, P14.3). */
export function bindPostExecute(tool: unknown, handler: unknown): PostExecuteHandler {
  const name = nameOf(tool, 'onPostExecute')
  if (typeof handler !== 'function') throw definitionError('onPostExecute handler must be a function')
  const fn = handler as PostExecuteHandler
  return async (exec, result, next) => {
    if (exec.name !== name) return next()
    return (await admits(tool as AnyToolDefinition, exec)) ? fn(exec, result, next) : next()
  }
}
