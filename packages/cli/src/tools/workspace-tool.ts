import {
  type AnyToolDefinition,
  type ArgsOf,
  defineTool,
  type JsonObject,
  type JsonValue,
  type ParametersSpec,
  type ParsedArgsOf,
  type RunContext,
  type ToolDefinition,
  type ToolSpec,
  type ValueOf,
  type ValueSpec,
} from '@tooltx/core'
import type { Workspace } from './workspace.js'

/** A field of a workspace tool's value: a scalar type's name, or a whole DSL node. */
export type ValueField = 'string' | 'integer' | 'number' | 'boolean' | ValueSpec

/** The DSL object node `workspaceTool` builds from `fields`: closed, every field required. */
export type ClosedObject<F extends Readonly<Record<string, ValueField>>> = {
  readonly type: 'object'
  readonly additionalProperties: false
  readonly properties: {
    readonly [K in keyof F]: (F[K] extends string ? { readonly type: F[K] } : F[K]) & {
      readonly required: true
    }
  }
}

/** The success value of a workspace tool whose value has `fields`. */
type FieldsValue<F extends Readonly<Record<string, ValueField>>> = ValueOf<ClosedObject<F>>

/** The closed DSL object node of `fields`: every field required, no other key allowed. */
export function closedObject<const F extends Readonly<Record<string, ValueField>>>(
  fields: F,
): ClosedObject<F> {
  const properties: Record<string, ValueSpec & { required: true }> = {}
  for (const [key, field] of Object.entries(fields as Record<string, ValueField>)) {
    properties[key] =
      typeof field === 'string' ? { type: field, required: true } : { ...field, required: true }
  }
  return { type: 'object', additionalProperties: false, properties } as unknown as ClosedObject<F>
}

/**
 * What a workspace tool's author writes: a `defineTool` spec whose value is the closed object
 * of `fields`, shown to the model as the one text block `text` returns (with `meta` as its
 * presentation meta; `'value'`: the value itself), and whose `execute` also gets the workspace
 * the tool is bound to. `readOnly` tools run in parallel (`isConcurrencySafe`). `freeText` names
 * the arguments that are text by contract (a pattern, a note's body), never a path, which the
 * CLI's boundary guard therefore does not read as one (K1.8).
 */
export interface WorkspaceToolSpec<P extends ParametersSpec, F extends Readonly<Record<string, ValueField>>>
  extends Omit<ToolSpec<P, ClosedObject<F>>, 'output' | 'execute' | 'isConcurrencySafe'> {
  readonly fields: F
  readonly text: (args: ArgsOf<P>, value: FieldsValue<F>) => string
  readonly meta?: 'value' | ((args: ArgsOf<P>, value: FieldsValue<F>) => JsonValue | undefined)
  readonly readOnly?: true
  readonly freeText?: readonly (keyof P & string)[]
  readonly execute: (
    args: ParsedArgsOf<P>,
    run: RunContext,
    workspace: Workspace,
  ) => FieldsValue<F> | Promise<FieldsValue<F>>
}

/** The options a workspace tool takes besides its workspace: a deadline overriding the spec's. */
export interface WorkspaceToolOptions {
  readonly timeoutMs?: number
}

// Keyed by the definition `workspaceTool` built, before any registry copies it.
const freeTexts = new WeakMap<AnyToolDefinition, readonly string[]>()

/** The arguments a workspace tool's spec declared free text (`freeText`); none for any other tool. */
export function freeTextArguments(def: AnyToolDefinition): readonly string[] {
  return freeTexts.get(def) ?? []
}

/**
 * A workspace tool: a function binding `spec` to a workspace, returning the frozen definition
 * `defineTool` builds from it (so every `defineTool` check and guarantee holds). Members the spec
 * leaves out stay absent from the definition.
 */
export function workspaceTool<
  const P extends ParametersSpec,
  const F extends Readonly<Record<string, ValueField>>,
>(
  spec: WorkspaceToolSpec<P, F>,
): (workspace: Workspace, options?: WorkspaceToolOptions) => ToolDefinition<ArgsOf<P>, FieldsValue<F>> {
  const { fields, text, meta, readOnly, freeText = [], execute, timeoutMs, ...rest } = spec
  const schema = closedObject(fields)
  const presentationMeta = meta === 'value' ? (_args: unknown, value: JsonObject) => ({ ...value }) : meta
  return (workspace, options = {}) => {
    const def = defineTool({
      ...rest,
      output: {
        schema,
        render: (args: ArgsOf<P>, value: FieldsValue<F>) => [{ type: 'text', text: text(args, value) }],
        presentationMeta,
      },
      isConcurrencySafe: readOnly ? () => true : undefined,
      timeoutMs: options.timeoutMs ?? timeoutMs,
      execute: (args: ParsedArgsOf<P>, run: RunContext) => execute(args, run, workspace),
    } as never) as unknown as ToolDefinition<ArgsOf<P>, FieldsValue<F>>
    freeTexts.set(def as AnyToolDefinition, freeText)
    return def
  }
}
