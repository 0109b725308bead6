import type { ContentBlock } from './content.js'
import { RUN_CODE, TOOL_NAME_PATTERN, type ToolDefinition, type ToolOutput } from './definition.js'
import { codedError, definitionError } from './errors.js'
import type { Execution, RunContext } from './execution.js'
import type { JsonValue } from './lossless-json.js'
import type { CallView, DurableResultView, ResultView } from './presentation.js'
import type { ToolResult } from './result.js'
import { compileParameters, compileValueSchema, type ParametersSpec, type ValueSpec } from './schema/dsl.js'
import type { InferArgs, InferValue } from './schema/infer.js'
import { compileValidator } from './schema/validate.js'

/**
 * What an author writes for `defineTool` (DESIGN.md): the definition members of `ToolDefinition`
 * with `parameters` and `output.schema` in the DSL (S1), the callbacks typed from them (S1.12).
 */
export interface ToolSpec<P extends ParametersSpec, S extends ValueSpec> {
  readonly name: string
  readonly description: string
  readonly parameters: P
  readonly output: {
    readonly schema: S
    readonly render: (args: InferArgs<P>, value: InferValue<S>) => ContentBlock[]
    readonly presentationMeta?: (args: InferArgs<P>, value: InferValue<S>) => JsonValue | undefined
  }
  readonly execute: (args: InferArgs<P>, run: RunContext) => InferValue<S> | Promise<InferValue<S>>
  readonly isConcurrencySafe?: (args: InferArgs<P>) => boolean
  readonly timeoutMs?: number
  readonly finalizeContent?: (exec: Execution, result: ToolResult) => ContentBlock[] | undefined
  readonly presentCall?: (args: InferArgs<P>) => CallView | undefined
  readonly presentResult?: (args: InferArgs<P>, result: DurableResultView) => ResultView | undefined
}

function nameOf(name: unknown): string {
  return typeof name === 'string' ? name : String(typeof name === 'symbol' ? name.description : name)
}

function requireFunction(value: unknown, label: string, prefix: string, optional: boolean): void {
  if (optional && value === undefined) return
  if (typeof value !== 'function') {
    throw definitionError(`${prefix}${label} must be ${optional ? 'absent or ' : ''}a function`)
  }
}

/**
 * Builds a frozen `ToolDefinition` from a DSL spec (D3). At definition time it checks the name
 * (D2.1, D2.2), `description`, `timeoutMs` and the callbacks, throwing `INVALID_DEFINITION` with
 * messages starting `defineTool(<name>): ` (D3.2), and compiles `parameters` and `output.schema`,
 * throwing `UNSUPPORTED_SCHEMA` for author errors (D3.1, S1.10).
 *
 * The result validates arguments before the author's code sees them: `execute` rejects with
 * `INVALID_ARGS` (`invalid arguments: …`, S4.13) without calling the body (D3.3),
 * `isConcurrencySafe` answers `false` (D3.4), and `presentCall`/`presentResult` return
 * `undefined` (D3.5). Members the author omitted stay absent (D3.6).
 */
export function defineTool<const P extends ParametersSpec, const S extends ValueSpec>(
  spec: ToolSpec<P, S>,
): ToolDefinition<InferArgs<P>, InferValue<S>> {
  type Args = InferArgs<P>
  type Value = InferValue<S>
  const name: unknown = spec.name
  const prefix = `defineTool(${nameOf(name)}): `
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw definitionError(
      `${prefix}tool name ${JSON.stringify(nameOf(name))} must match ${TOOL_NAME_PATTERN}`,
    )
  }
  if (name === RUN_CODE) {
    throw definitionError(`${prefix}tool name "${RUN_CODE}" is reserved for the Code Mode transport`)
  }
  const description: unknown = spec.description
  if (typeof description !== 'string') throw definitionError(`${prefix}description must be a string`)
  const timeoutMs: unknown = spec.timeoutMs
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)
  ) {
    throw definitionError(`${prefix}timeoutMs must be a positive finite number`)
  }
  const output: unknown = spec.output
  if (output === null || typeof output !== 'object') {
    throw definitionError(`${prefix}output must be { schema, render, presentationMeta? }`)
  }
  const { render, presentationMeta } = output as Partial<ToolOutput>
  requireFunction(render, 'output.render', prefix, false)
  requireFunction(presentationMeta, 'output.presentationMeta', prefix, true)
  const { execute: body, isConcurrencySafe, finalizeContent, presentCall, presentResult } = spec
  requireFunction(body, 'execute', prefix, false)
  requireFunction(isConcurrencySafe, 'isConcurrencySafe', prefix, true)
  requireFunction(finalizeContent, 'finalizeContent', prefix, true)
  requireFunction(presentCall, 'presentCall', prefix, true)
  requireFunction(presentResult, 'presentResult', prefix, true)

  const parameters = compileParameters(spec.parameters)
  const schema = compileValueSchema((output as { schema?: unknown }).schema)
  const check = compileValidator(parameters)
  const isValid = (args: Args) => check(args, 'arguments').length === 0

  const definition: {
    -readonly [K in keyof ToolDefinition<Args, Value>]: ToolDefinition<Args, Value>[K]
  } = {
    name,
    description,
    parameters,
    output: Object.freeze(
      presentationMeta === undefined
        ? { schema, render: render! }
        : { schema, render: render!, presentationMeta },
    ),
    // Validation comes first: on any violation the author's body never runs (D3.3).
    execute: async (args, run) => {
      const violations = check(args, 'arguments')
      if (violations.length > 0)
        throw codedError('INVALID_ARGS', `invalid arguments: ${violations.join('; ')}`)
      return body(args, run)
    },
  }
  if (isConcurrencySafe !== undefined) {
    // Fail closed: arguments that do not validate never run in parallel (D3.4).
    definition.isConcurrencySafe = (args) => isValid(args) && isConcurrencySafe(args)
  }
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs
  if (finalizeContent !== undefined) definition.finalizeContent = finalizeContent
  if (presentCall !== undefined) {
    definition.presentCall = (args) => (isValid(args) ? presentCall(args) : undefined)
  }
  if (presentResult !== undefined) {
    definition.presentResult = (args, result) => (isValid(args) ? presentResult(args, result) : undefined)
  }
  return Object.freeze(definition)
}
