import type { JsonObject, JsonValue } from '../foundation/lossless-json.js'
import type { ContentBlock } from './content.js'
import type { ToolEffect } from './effect.js'
import type { Execution, RunContext } from './execution.js'
import type { CallView, DurableResult, ResultView } from './presentation.js'
import type { ProvenanceSpec } from './provenance.js'
import type { ToolResult } from './result.js'

/** A JSON Schema in the enforced subset (S3), as plain lossless JSON. */
export type JsonSchema = JsonObject

/** The output contract (D1.1, D1.3): the value schema and its two projections. */
export interface ToolOutput<Args = any, Value extends JsonValue = JsonValue> {
  /** The schema every success value must satisfy (S3 subset; any root). */
  readonly schema: JsonSchema
  /** Projects the frozen arguments and validated, frozen value to model-facing content. */
  readonly render: (args: Args, value: Value) => ContentBlock[]
  /** Optionally projects them to replayable UI JSON; `undefined` means no meta. */
  readonly presentationMeta?: (args: Args, value: Value) => JsonValue | undefined
  /**
   * Optionally decides instead of `schema` (D1.5): the violations of a snapshotted value, `[]`
   * when valid. `defineTool` sets it for a Standard Schema or a JSON Schema outside the subset,
   * whose `schema` then only documents the value. Called once per value; a throw is a violation.
   */
  readonly validate?: (value: JsonValue) => readonly string[]
}

/**
 * A tool definition with its four contracts (D1.1): model (`name`, `description`,
 * `parameters`), execution (`execute`, `isConcurrencySafe`, `timeoutMs`), output (`output`,
 * `finalizeContent`) and UI (`presentCall`, `presentResult`). `defineTool` builds one from the
 * DSL; a raw definition carries a JSON Schema in `parameters` and validates nothing (D2.13).
 */
export interface ToolDefinition<Args = any, Value extends JsonValue = JsonValue> {
  /** Matches /^[A-Za-z0-9_-]{1,64}$/; `run_code` is reserved (D2.1, D2.2). */
  readonly name: string
  readonly description: string
  /** The model-facing JSON Schema of the arguments. */
  readonly parameters: JsonSchema
  readonly output: ToolOutput<Args, Value>
  /** Resolves to the canonical JSON value only, never to content (D1.2). */
  readonly execute: (args: Args, run: RunContext) => Value | Promise<Value>
  /** Only an exact `true` lets the call run in parallel (M3.7). */
  readonly isConcurrencySafe?: (args: Args) => boolean
  /** Enforced by the built-in timeout wrapper (P7.2). */
  readonly timeoutMs?: number
  /** What running the body does to the world; absent means `'write'` (F1.1). */
  readonly effect?: ToolEffect
  /** How far its results can be trusted and how confidential they are (H1.1); absent: no label. */
  readonly provenance?: ProvenanceSpec<Args>
  /** Replaces the content of the final result, exactly once per call (P11.3–P11.6). */
  readonly finalizeContent?: (exec: Execution, result: ToolResult) => ContentBlock[] | undefined
  /** The call card from the arguments parsed as the loop parses them (U1.3). */
  readonly presentCall?: (args: Args) => CallView | undefined
  /** The result card from durable data only (U1.4). */
  readonly presentResult?: (args: Args, result: DurableResult) => ResultView | undefined
}

/** A tool definition of unknown argument and value types, as stored in a registry. */
export type AnyToolDefinition = ToolDefinition<any, any>

/** The reserved name of the Code Mode transport (D2.2, R2.5). */
export const RUN_CODE = 'run_code'

/** The pattern a tool name must match (D2.1). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
