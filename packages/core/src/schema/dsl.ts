import type { JsonSchema } from '../contract/definition.js'
import { codedError, errorMessage, type ToolError } from '../foundation/errors.js'
import { deepFreeze, type JsonValue, snapshotJson } from '../foundation/lossless-json.js'
import { CONSTRAINTS, type Constraints, isConstraintKey } from './constraints.js'
import type { Format } from './formats.js'
import { markVerifiedSchema } from './subset.js'

/** Annotations every DSL node may carry (S1.2); they never take part in validation. */
export interface Annotations {
  readonly description?: string
  readonly title?: string
  /** Documentation only: defaults are never filled in (S1.2, S4.11). */
  readonly default?: JsonValue
  readonly examples?: readonly JsonValue[]
}

/** A scalar node of `type` whose `enum` members and `const` are values `V` (S1.1, S1.3). */
export interface ScalarSpecOf<T extends string, V extends JsonValue> extends Annotations {
  readonly type: T
  readonly enum?: readonly V[]
  readonly const?: V
}

/** Bounds of a `number` or `integer` node (S1.13). */
export type NumberBounds = Pick<
  Constraints,
  'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'multipleOf'
>

/** A `string` node, optionally with `minLength`, `maxLength`, `pattern` and `format` (S1.13). */
export interface StringSpec extends ScalarSpecOf<'string', string> {
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly format?: Format
}

/** A `number` node: any finite JSON number. */
export interface NumberSpec extends ScalarSpecOf<'number', number>, NumberBounds {}

/** An `integer` node: a finite JSON number without a fractional part. */
export interface IntegerSpec extends ScalarSpecOf<'integer', number>, NumberBounds {}

/** A `boolean` node. */
export type BooleanSpec = ScalarSpecOf<'boolean', boolean>

/** A `null` node. */
export type NullSpec = ScalarSpecOf<'null', null>

/** An `array` node; without `items` any lossless JSON items are accepted. */
export interface ArraySpec extends Annotations {
  readonly type: 'array'
  readonly items?: ValueSpec
  readonly minItems?: number
  readonly maxItems?: number
  readonly uniqueItems?: boolean
}

/** An `object` node: `additionalProperties` is mandatory (S1.6); properties may be `required`. */
export interface ObjectSpec extends Annotations {
  readonly type: 'object'
  readonly additionalProperties: boolean
  readonly properties?: { readonly [key: string]: PropertySpec }
}

/** A `json` node: any lossless JSON value (S1.1, S2.1). */
export interface JsonSpec extends Annotations {
  readonly type: 'json'
}

/** A `oneOf` node: exactly one of at least two branches must match (S1.1, S4.9). */
export interface OneOfSpec extends Annotations {
  readonly oneOf: readonly [ValueSpec, ValueSpec, ...ValueSpec[]]
}

/** A value schema in the author DSL (S1.1); `output.schema` is one. */
export type ValueSpec =
  | StringSpec
  | NumberSpec
  | IntegerSpec
  | BooleanSpec
  | NullSpec
  | ArraySpec
  | ObjectSpec
  | JsonSpec
  | OneOfSpec

/** A property of `parameters` or of an `object`'s `properties`: a node that may be `required` (S1.4, S1.5). */
export type PropertySpec = ValueSpec & { readonly required?: true }

/** The `parameters` of `defineTool`: a property map that becomes an open object root (S1.4, S2.2). */
export interface ParametersSpec {
  readonly [key: string]: PropertySpec
}

const DSL_TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object', 'json'] as const
const DSL_TYPE_LIST = DSL_TYPES.map((t) => JSON.stringify(t)).join(', ')
const ANNOTATIONS = ['description', 'title', 'default', 'examples'] as const
const SCALAR_KEYS = ['enum', 'const']
const NUMBER_KEYS = [
  ...SCALAR_KEYS,
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]
const KIND_KEYS: Readonly<Record<string, readonly string[]>> = {
  string: [...SCALAR_KEYS, 'minLength', 'maxLength', 'pattern', 'format'],
  number: NUMBER_KEYS,
  integer: NUMBER_KEYS,
  boolean: SCALAR_KEYS,
  null: SCALAR_KEYS,
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['additionalProperties', 'properties'],
  json: [],
  oneOf: [],
}
const SCALAR_CHECKS: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
}

type Node = Record<string, unknown>

interface Task {
  spec: unknown
  path: string
  /** Whether the node sits in a property position, where `required: true` is allowed (S1.5). */
  property: boolean
  /** The compiled schema object to fill (created empty by the parent, in key order). */
  out: Record<string, unknown>
}

function schemaError(message: string): ToolError {
  return codedError('UNSUPPORTED_SCHEMA', message)
}

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function own(node: Node, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined
}

/** Sets a key as an own data property, so `__proto__` is an ordinary key (S1.8). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Takes a lossless snapshot of the author's spec (S1.8: plain objects, dense plain arrays, own
 * enumerable string keys, cycles rejected as `<path> is circular`), so compilation reads plain
 * data once and no getter can answer differently twice.
 */
function snapshotSpec(spec: unknown, root: string): unknown {
  let result: ReturnType<typeof snapshotJson>
  try {
    result = snapshotJson(spec, { root })
  } catch (error) {
    throw schemaError(`${root} could not be read: ${errorMessage(error)}`)
  }
  if (!result.ok) throw schemaError(result.reason)
  return result.value
}

/**
 * Reads `required` of each property of `properties` (S1.4): only `true` is accepted, and the
 * names marked required are returned in declaration order.
 */
function requiredKeys(properties: Node, path: string): string[] {
  const names: string[] = []
  for (const key of Object.keys(properties)) {
    const property = properties[key]
    if (!isNode(property) || !Object.hasOwn(property, 'required')) continue
    if (property.required !== true) throw schemaError(`${path}.${key}.required must be true when present`)
    names.push(key)
  }
  return names
}

/** Queues one task per property, each with an empty output object already placed in key order. */
function queueProperties(properties: Node, path: string, out: Record<string, unknown>, work: Task[]): void {
  const tasks: Task[] = []
  for (const key of Object.keys(properties)) {
    const child: Record<string, unknown> = {}
    put(out, key, child)
    tasks.push({ spec: properties[key], path: `${path}.${key}`, property: true, out: child })
  }
  for (let i = tasks.length - 1; i >= 0; i--) work.push(tasks[i]!)
}

/** Compiles one node into `task.out` and queues its children; throws on the first author error. */
function compileNode(task: Task, work: Task[]): void {
  const { spec, path, out } = task
  if (!isNode(spec)) throw schemaError(`${path} must be a DSL node object`)
  const isOneOf = Object.hasOwn(spec, 'oneOf')
  if (isOneOf && Object.hasOwn(spec, 'type')) throw schemaError(`${path}.type cannot be combined with oneOf`)
  const kind = isOneOf ? 'oneOf' : own(spec, 'type')
  if (typeof kind !== 'string' || !Object.hasOwn(KIND_KEYS, kind)) {
    throw schemaError(`${path}.type must be one of ${DSL_TYPE_LIST} (or use oneOf)`)
  }
  const allowed = new Set<string>(['type', 'oneOf', ...ANNOTATIONS, ...KIND_KEYS[kind]!])
  if (task.property) allowed.add('required')
  for (const key of Object.keys(spec)) {
    if (!allowed.has(key)) throw schemaError(`${path}.${key} is not supported by the value schema DSL`)
  }
  for (const key of ['description', 'title']) {
    if (Object.hasOwn(spec, key) && typeof spec[key] !== 'string')
      throw schemaError(`${path}.${key} must be a string`)
  }
  if (Object.hasOwn(spec, 'examples') && !Array.isArray(spec.examples)) {
    throw schemaError(`${path}.examples must be an array`)
  }

  if (kind !== 'oneOf' && kind !== 'json') out.type = kind
  for (const key of ['description', 'title']) if (Object.hasOwn(spec, key)) out[key] = spec[key]

  switch (kind) {
    case 'object':
      compileObject(spec, path, out, work)
      break
    case 'array':
      if (Object.hasOwn(spec, 'items')) {
        const items: Record<string, unknown> = {}
        out.items = items
        work.push({ spec: spec.items, path: `${path}.items`, property: false, out: items })
      }
      break
    case 'oneOf': {
      const branches = spec.oneOf
      if (!Array.isArray(branches) || branches.length < 2) {
        throw schemaError(`${path}.oneOf must be an array of at least two DSL nodes`)
      }
      const compiled = branches.map(() => ({}) as Record<string, unknown>)
      out.oneOf = compiled
      for (let i = branches.length - 1; i >= 0; i--) {
        work.push({ spec: branches[i], path: `${path}.oneOf[${i}]`, property: false, out: compiled[i]! })
      }
      break
    }
    case 'json':
      break
    default:
      compileScalar(spec, kind, path, out)
  }
  for (const key of Object.keys(spec)) {
    if (!isConstraintKey(key)) continue
    const [, wellFormed, what] = CONSTRAINTS[key]
    if (!wellFormed(spec[key])) throw schemaError(`${path}.${key} must be ${what}`)
    out[key] = spec[key]
  }
  for (const key of ['default', 'examples']) if (Object.hasOwn(spec, key)) out[key] = spec[key]
}

function compileObject(spec: Node, path: string, out: Record<string, unknown>, work: Task[]): void {
  const additional = own(spec, 'additionalProperties')
  if (typeof additional !== 'boolean') {
    throw schemaError(`${path}.additionalProperties must be explicitly true or false`)
  }
  if (Object.hasOwn(spec, 'properties')) {
    const properties = spec.properties
    if (!isNode(properties)) throw schemaError(`${path}.properties must be an object of DSL nodes`)
    const compiled: Record<string, unknown> = {}
    out.properties = compiled
    const required = requiredKeys(properties, `${path}.properties`)
    if (required.length > 0) out.required = required
    queueProperties(properties, `${path}.properties`, compiled, work)
  }
  out.additionalProperties = additional
}

function compileScalar(spec: Node, kind: string, path: string, out: Record<string, unknown>): void {
  const fits = SCALAR_CHECKS[kind]!
  const hasEnum = Object.hasOwn(spec, 'enum')
  const hasConst = Object.hasOwn(spec, 'const')
  if (hasEnum) {
    const members = spec.enum
    if (!Array.isArray(members) || members.length === 0 || !members.every(fits)) {
      throw schemaError(`${path}.enum must be a non-empty array of ${kind} values`)
    }
    out.enum = members
  }
  if (hasConst) {
    if (!fits(spec.const)) throw schemaError(`${path}.const must be a ${kind} value`)
    if (hasEnum && !(spec.enum as unknown[]).includes(spec.const)) {
      throw schemaError(`${path}.const must be one of the enum values`)
    }
    out.const = spec.const
  }
}

function run(first: Task[]): void {
  const work = first
  while (work.length > 0) compileNode(work.pop()!, work)
}

/**
 * Compiles `parameters` (S1.4) to the object-rooted JSON Schema
 * `{ type: 'object', properties, required? }` (S2.2): open (no `additionalProperties`),
 * `required` in declaration order and omitted when empty. The result is frozen lossless JSON,
 * identical for identical input (S2.4). Author errors throw `SchemaError` (`UNSUPPORTED_SCHEMA`)
 * with paths starting at `parameters.<property>` (S1.9, S1.10). Iterative (S1.11).
 */
export function compileParameters(spec: unknown): JsonSchema {
  const copy = snapshotSpec(spec, 'parameters')
  if (!isNode(copy)) throw schemaError('parameters must be an object mapping property names to DSL nodes')
  const properties: Record<string, unknown> = {}
  const root: Record<string, unknown> = { type: 'object', properties }
  const required = requiredKeys(copy, 'parameters')
  if (required.length > 0) root.required = required
  const work: Task[] = []
  queueProperties(copy, 'parameters', properties, work)
  run(work)
  return markVerifiedSchema(deepFreeze(root)) as JsonSchema
}

/**
 * Compiles a value DSL node (`output.schema`, S1.1) to a subset JSON Schema (S2): frozen
 * lossless JSON, identical for identical input. Author errors throw `SchemaError`
 * (`UNSUPPORTED_SCHEMA`) with paths starting at `output.schema` (S1.9). Iterative (S1.11).
 */
export function compileValueSchema(spec: unknown): JsonSchema {
  const copy = snapshotSpec(spec, 'output.schema')
  const root: Record<string, unknown> = {}
  run([{ spec: copy, path: 'output.schema', property: false, out: root }])
  return markVerifiedSchema(deepFreeze(root)) as JsonSchema
}
