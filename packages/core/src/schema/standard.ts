/**
 * Standard Schema v1 support (S6): any library implementing the interface (zod 4, valibot,
 * ArkType, …) can describe a tool's parameters or output. The types are an own copy of the
 * published interface, so core depends on no schema library; the model-facing JSON Schema
 * comes from the library's own Standard JSON Schema conversion (`~standard.jsonSchema`).
 */
import type { JsonSchema } from '../contract/definition.js'
import { codedError, errorMessage, type ToolError } from '../foundation/errors.js'
import { snapshotJson } from '../foundation/lossless-json.js'
import { isPlainDenseArray } from './containers.js'

/** One issue a Standard Schema reports (only the members tooltx reads). */
export interface StandardIssue {
  readonly message: string
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined
}

/** What `~standard.validate` returns: the parsed value, or issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] }

/** The Standard Schema v1 interface, as a library's schema object implements it. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
  }
}

/** The type a Standard Schema accepts. */
export type StandardInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']

/** The type a Standard Schema produces. */
export type StandardOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output']

/** A Standard Schema's props, read once (`undefined` when `value` is not a v1 Standard Schema). */
export function standardProps(value: unknown): StandardSchemaV1['~standard'] | undefined {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined
  try {
    const props = (value as Record<string, unknown>)['~standard'] as Record<string, unknown> | undefined
    if (props === null || typeof props !== 'object') return undefined
    return props.version === 1 && typeof props.validate === 'function'
      ? (props as unknown as StandardSchemaV1['~standard'])
      : undefined
  } catch {
    return undefined
  }
}

function schemaError(message: string): ToolError {
  return codedError('UNSUPPORTED_SCHEMA', message)
}

/**
 * The JSON Schema of a Standard Schema's `io` side (S6.2), from its Standard JSON Schema
 * conversion (target draft 2020-12), as frozen lossless JSON without the root `$schema`.
 * Throws `UNSUPPORTED_SCHEMA` naming `where` when the schema has no conversion, the library
 * refuses (a `Date`, a transform: tool values are JSON) or the result is not lossless JSON.
 */
export function standardJsonSchema(schema: object, io: 'input' | 'output', where: string): JsonSchema {
  const props = standardProps(schema)!
  let vendor = '"unknown"'
  let converter: Record<string, unknown> | undefined
  let convert: unknown
  try {
    vendor = JSON.stringify(String(props.vendor))
    converter = (props as { jsonSchema?: Record<string, unknown> }).jsonSchema
    convert = converter?.[io]
  } catch {}
  if (typeof convert !== 'function') {
    throw schemaError(
      `${where} is a Standard Schema from ${vendor} without a JSON Schema conversion (~standard.jsonSchema): ` +
        'wrap it with its library\'s Standard JSON Schema helper (valibot: toStandardJsonSchema from "@valibot/to-json-schema"), or pass a JSON Schema',
    )
  }
  let raw: unknown
  try {
    raw = convert.call(converter, { target: 'draft-2020-12' })
  } catch (error) {
    throw schemaError(
      `${where} cannot be converted to JSON Schema by ${vendor}: ${errorMessage(error)} ` +
        '(tool arguments and values are JSON: describe a date as a string with format "date-time", not as a Date)',
    )
  }
  let snap: ReturnType<typeof snapshotJson>
  try {
    // The root's own enumerable keys without `$schema`: zod also marks it with a hidden key.
    const root =
      raw !== null && typeof raw === 'object' && !Array.isArray(raw)
        ? Object.fromEntries(Object.entries(raw).filter(([key]) => key !== '$schema'))
        : raw
    snap = snapshotJson(root, { root: where, freeze: true })
  } catch (error) {
    throw schemaError(`${where}: reading the converted JSON Schema failed: ${errorMessage(error)}`)
  }
  if (!snap.ok || snap.value === null || typeof snap.value !== 'object' || Array.isArray(snap.value)) {
    throw schemaError(
      `${where}: ${vendor} converted it to something that is not a lossless JSON object${snap.ok ? '' : ` (${snap.reason})`}`,
    )
  }
  return snap.value as JsonSchema
}

/** Joins a Standard Schema issue path as S4.2 writes paths, starting at `root`. */
function issuePath(issue: StandardIssue, root: string): string {
  let path: readonly unknown[] = []
  try {
    if (isPlainDenseArray(issue.path)) path = issue.path
  } catch {}
  // A property of the argument root is written without the `arguments.` prefix (S4.2).
  let out = root === 'arguments' ? '' : root
  for (const segment of path) {
    const key = segment !== null && typeof segment === 'object' ? (segment as { key?: unknown }).key : segment
    if (typeof key === 'number') out = `${out === '' ? root : out}[${key}]`
    else out = out === '' ? String(key) : `${out}.${String(key)}`
  }
  return out === '' ? root : out
}

/**
 * The violations of a Standard Schema's issues (S6.3): `"<path>" <message>` each, paths as
 * S4.2 writes them; a library message is one line, never the issue JSON. Total.
 */
export function issueViolations(issues: unknown, root: string): string[] {
  const out: string[] = []
  try {
    const list = Array.isArray(issues) ? (issues as unknown[]) : []
    for (const issue of list) {
      const message =
        typeof (issue as StandardIssue)?.message === 'string'
          ? (issue as StandardIssue).message
          : 'is invalid'
      const line = `"${issuePath(issue as StandardIssue, root)}" ${message.replace(/\s+/g, ' ').trim()}`
      if (!out.includes(line)) out.push(line)
    }
  } catch {}
  return out.length > 0 ? out : [`"${root}" is invalid`]
}
