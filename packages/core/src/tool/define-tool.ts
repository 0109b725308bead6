import type { ContentBlock } from '../contract/content.js'
import type { ToolDefinition, ToolOutput } from '../contract/definition.js'
import type { ToolEffect } from '../contract/effect.js'
import type { Execution, RunContext } from '../contract/execution.js'
import type { CallView, DurableResult, ResultView } from '../contract/presentation.js'
import type { ProvenanceSpec } from '../contract/provenance.js'
import type { ToolResult } from '../contract/result.js'
import { codedError, definitionError } from '../foundation/errors.js'
import type { JsonObject, JsonValue } from '../foundation/lossless-json.js'
import { checkProvenance } from '../provenance/label.js'
import type { ParametersSpec, ValueSpec } from '../schema/dsl.js'
import type { InferArgs, InferValue } from '../schema/infer.js'
import {
  outputContract,
  type ParseOutcome,
  parametersContract,
  type SchemaContract,
} from '../schema/source.js'
import type { StandardInput, StandardOutput, StandardSchemaV1 } from '../schema/standard.js'
import { argumentCheck, setArgumentCheck } from './argument-checks.js'
import {
  checkDescription,
  checkEffect,
  checkFunction,
  checkTimeoutMs,
  checkToolName,
} from './definition-checks.js'

/** What `parameters` may be (S1.4, S6.1, S6.4): a DSL property map, a Standard Schema or a JSON Schema object root. */
export type ParametersInput = ParametersSpec | StandardSchemaV1 | JsonSchemaObject

/** A plain JSON Schema for `parameters`: its root must be `type: "object"` (S6.4). */
export interface JsonSchemaObject {
  readonly type: 'object'
  readonly [keyword: string]: unknown
}

/** What `output.schema` may be (S1.1, S6.1, S6.4): a DSL node, a Standard Schema or a JSON Schema. */
export type OutputSchemaInput = ValueSpec | StandardSchemaV1 | { readonly [keyword: string]: unknown }

/** The arguments as they cross the wire and every hook, presenter and renderer sees them. */
export type ArgsOf<P> = P extends StandardSchemaV1
  ? StandardInput<P>
  : P extends { readonly type: 'object' }
    ? JsonObject
    : InferArgs<P>

/** The arguments `execute` receives: a Standard Schema's parsed output, the arguments otherwise. */
export type ParsedArgsOf<P> = P extends StandardSchemaV1 ? StandardOutput<P> : ArgsOf<P>

/** The success value a tool returns for `output.schema` `S`; `JsonValue` without one (S6.7). */
export type ValueOf<S> = S extends StandardSchemaV1
  ? StandardInput<S>
  : S extends ValueSpec
    ? InferValue<S>
    : JsonValue

/** `T` where it is a `JsonValue`, `JsonValue` otherwise (for `ToolDefinition`'s bound). */
type AsJson<T> = T extends JsonValue ? T : JsonValue

/**
 * What an author writes for `defineTool` (docs/architecture.md, "The four contracts of a tool"):
 * the definition members of `ToolDefinition` with `parameters` and `output.schema` in any
 * accepted form (S1, S6), the callbacks typed from them (S1.12, S6.6). `output` and each of its
 * members are optional (S6.7).
 */
export interface ToolSpec<P extends ParametersInput, S extends OutputSchemaInput> {
  readonly name: string
  readonly description: string
  readonly parameters: P
  readonly output?: {
    readonly schema?: S
    readonly render?: (args: ArgsOf<P>, value: ValueOf<S>) => ContentBlock[]
    readonly presentationMeta?: (args: ArgsOf<P>, value: ValueOf<S>) => JsonValue | undefined
  }
  readonly execute: (args: ParsedArgsOf<P>, run: RunContext) => ValueOf<S> | Promise<ValueOf<S>>
  readonly isConcurrencySafe?: (args: ArgsOf<P>) => boolean
  readonly timeoutMs?: number
  /** What running the body does to the world; absent means `'write'` (F1.1). */
  readonly effect?: ToolEffect
  /** The label of its results, or a function of arguments and value (H1.1). */
  readonly provenance?: ProvenanceSpec<ArgsOf<P>>
  readonly finalizeContent?: (exec: Execution, result: ToolResult) => ContentBlock[] | undefined
  readonly presentCall?: (args: ArgsOf<P>) => CallView | undefined
  readonly presentResult?: (args: ArgsOf<P>, result: DurableResult) => ResultView | undefined
}

/** The default `output.render` (S6.7): the value as one JSON text block. */
function renderJson(_args: unknown, value: JsonValue): ContentBlock[] {
  return [{ type: 'text', text: JSON.stringify(value) }]
}

/**
 * Validates `args` with the parameters of a `defineTool` definition, or of the registered copy
 * a view returns for it (A1.8): the verdict, possibly asynchronous (a Standard Schema), or
 * `undefined` for a definition `defineTool` did not build.
 */
export function checkToolArguments(
  def: object,
  args: unknown,
): ParseOutcome | Promise<ParseOutcome> | undefined {
  return argumentCheck(def)?.(args, 'arguments')
}

function nameOf(name: unknown): string {
  return typeof name === 'string' ? name : String(typeof name === 'symbol' ? name.description : name)
}

/** Rejects with `INVALID_ARGS` (S4.13) unless `outcome` is valid; returns the value the body gets. */
function argumentsOrThrow(outcome: ParseOutcome): unknown {
  if (!outcome.ok) throw codedError('INVALID_ARGS', `invalid arguments: ${outcome.violations.join('; ')}`)
  return outcome.value
}

/** A synchronous verdict of `parse`, or `false` when it is still pending (fail closed). */
function isValidNow(parse: SchemaContract['parse'], args: unknown): boolean {
  const outcome = parse(args, 'arguments')
  if (outcome instanceof Promise) {
    outcome.catch(() => {})
    return false
  }
  return outcome.ok
}

/**
 * Builds a frozen `ToolDefinition` from a spec (D3). At definition time it checks the name
 * (D2.1, D2.2), `description`, `timeoutMs` and the callbacks, throwing `INVALID_DEFINITION` with
 * messages starting `defineTool(<name>): ` (D3.2), and compiles `parameters` and `output.schema`
 * in whichever form they come (DSL, Standard Schema, JSON Schema), throwing `UNSUPPORTED_SCHEMA`
 * for author errors (D3.1, S1.10, S6). Without `output`, the tool returns any lossless JSON value
 * rendered as JSON text (S6.7).
 *
 * The result validates arguments before the author's code sees them: `execute` rejects with
 * `INVALID_ARGS` (`invalid arguments: …`, S4.13) without calling the body (D3.3),
 * `isConcurrencySafe` answers `false` (D3.4), and `presentCall`/`presentResult` return
 * `undefined` (D3.5). Members the author omitted stay absent (D3.6).
 */
export function defineTool<
  const P extends ParametersInput,
  const S extends OutputSchemaInput = { type: 'json' },
>(spec: ToolSpec<P, S>): ToolDefinition<ArgsOf<P>, AsJson<ValueOf<S>>> {
  type Args = ArgsOf<P>
  type Value = AsJson<ValueOf<S>>
  const name: unknown = spec.name
  const prefix = `defineTool(${nameOf(name)}): `
  checkToolName(name, prefix)
  const description: unknown = spec.description
  checkDescription(description, prefix)
  const timeoutMs: unknown = spec.timeoutMs
  checkTimeoutMs(timeoutMs, prefix)
  const effect: unknown = spec.effect
  checkEffect(effect, prefix)
  const provenance = checkProvenance(spec.provenance, prefix)
  const output: unknown = spec.output ?? {}
  if (output === null || typeof output !== 'object') {
    throw definitionError(`${prefix}output must be absent or { schema?, render?, presentationMeta? }`)
  }
  const { render = renderJson, presentationMeta } = output as Partial<ToolOutput>
  checkFunction(render, { label: 'output.render', prefix, optional: false })
  checkFunction(presentationMeta, { label: 'output.presentationMeta', prefix, optional: true })
  const { execute: body, isConcurrencySafe, finalizeContent, presentCall, presentResult } = spec
  checkFunction(body, { label: 'execute', prefix, optional: false })
  const optional = { isConcurrencySafe, finalizeContent, presentCall, presentResult }
  for (const [label, member] of Object.entries(optional))
    checkFunction(member, { label, prefix, optional: true })

  const params = parametersContract(spec.parameters)
  const result = outputContract((output as { schema?: unknown }).schema)
  const parameters = params.jsonSchema
  const schema = result.jsonSchema
  const parse = params.parse
  const isValid = (args: Args) => isValidNow(parse, args)
  const outputMembers: Record<string, unknown> = { schema, render }
  if (presentationMeta !== undefined) outputMembers.presentationMeta = presentationMeta
  // A schema the JSON Schema cannot decide alone brings its validator (D1.5).
  if (!result.exact) {
    const validateValue = result.parse
    outputMembers.validate = (value: JsonValue) => {
      const outcome = validateValue(value, 'value')
      if (!(outcome instanceof Promise)) return outcome.ok ? [] : outcome.violations
      outcome.catch(() => {})
      return [
        '"value" cannot be validated synchronously: output.schema validates asynchronously (remove async refinements from it)',
      ]
    }
  }

  const definition: {
    -readonly [K in keyof ToolDefinition<Args, Value>]: ToolDefinition<Args, Value>[K]
  } = {
    name,
    description,
    parameters,
    output: Object.freeze(outputMembers) as unknown as ToolOutput<Args, Value>,
    // Validation comes first: on any violation the author's body never runs (D3.3).
    execute: async (args, run) => {
      const outcome = parse(args, 'arguments')
      const parsed = argumentsOrThrow(outcome instanceof Promise ? await outcome : outcome)
      return (body as (args: unknown, run: RunContext) => Value | Promise<Value>)(parsed, run)
    },
  }
  if (isConcurrencySafe !== undefined) {
    // Fail closed: arguments that do not validate never run in parallel (D3.4).
    definition.isConcurrencySafe = (args) => isValid(args) && isConcurrencySafe(args)
  }
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs
  if (effect !== undefined) definition.effect = effect
  if (provenance !== undefined) definition.provenance = provenance
  if (finalizeContent !== undefined) definition.finalizeContent = finalizeContent
  if (presentCall !== undefined) {
    definition.presentCall = (args) => (isValid(args) ? presentCall(args) : undefined)
  }
  if (presentResult !== undefined) {
    definition.presentResult = (args, result) => (isValid(args) ? presentResult(args, result) : undefined)
  }
  const frozen = Object.freeze(definition)
  setArgumentCheck(frozen, parse)
  return frozen
}
