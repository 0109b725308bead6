import { codedError, errorMessage, type ToolError } from '../foundation/errors.js'
import { isLosslessJson, type JsonValue } from '../foundation/lossless-json.js'
import {
  CONSTRAINTS,
  type ConstraintKey,
  type Constraints,
  familyOf,
  isConstraintKey,
} from './constraints.js'
import { isPlainDenseArray, isPlainObject } from './containers.js'

import type { ParsedSchema, ScalarType, SchemaNode } from './schema-node.js'

const INVALID: SchemaNode = Object.freeze({ kind: 'invalid' })

const TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'] as const
const SCALARS: ReadonlySet<string> = new Set<ScalarType>(['string', 'number', 'integer', 'boolean', 'null'])
const TYPE_LIST = TYPES.map((t) => JSON.stringify(t)).join(', ')

/** S3.1: the constraint keywords and annotations of the subset, in the order of their bits. */
const SUBSET_KEYWORDS = [
  'type',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'description',
  'title',
  'default',
  'examples',
] as const
type SubsetKeyword = (typeof SUBSET_KEYWORDS)[number]
/** The bit of each subset keyword in `Keywords.present`. */
const BIT = Object.freeze(Object.fromEntries(SUBSET_KEYWORDS.map((key, i) => [key, 1 << i]))) as Readonly<
  Record<SubsetKeyword, number>
>
const BIT_OF: ReadonlyMap<string, number> = new Map(Object.entries(BIT))

/** Keywords that belong to one type (S3.3, S3.4), with the requirement they state. */
const TYPED_KEYWORDS: readonly (readonly [SubsetKeyword, (type: string | undefined) => boolean, string])[] = [
  ['properties', (t) => t === 'object', 'requires type "object"'],
  ['required', (t) => t === 'object', 'requires type "object"'],
  ['additionalProperties', (t) => t === 'object', 'requires type "object"'],
  ['items', (t) => t === 'array', 'requires type "array"'],
  ['enum', (t) => t !== undefined && SCALARS.has(t), 'requires a scalar type'],
  ['const', (t) => t !== undefined && SCALARS.has(t), 'requires a scalar type'],
]

/** The keywords of one schema node, each read once; `present` has the bit of every key found. */
class Keywords {
  present = 0
  /** The value of each subset keyword found. */
  readonly value: { [K in SubsetKeyword]?: unknown } = {}
  /** The constraint keywords found (S3.9), in key order. */
  constraints: [ConstraintKey, unknown][] | undefined = undefined
  /** The value of a `$schema` key (allowed at the root only, S3.10). */
  dialect: unknown = undefined
  hasDialect = false
  /** Keys outside the subset (S3.1), in key order. */
  unknown: string[] | undefined = undefined
}

/** Stores one own entry of a schema node in `into`; a key outside the subset is remembered. */
function setKeyword(into: Keywords, key: string, value: unknown): void {
  const bit = BIT_OF.get(key)
  if (bit !== undefined) {
    into.present |= bit
    into.value[key as SubsetKeyword] = value
    return
  }
  switch (key) {
    case '$schema':
      into.hasDialect = true
      into.dialect = value
      return
    default:
      if (isConstraintKey(key)) {
        if (into.constraints === undefined) into.constraints = [[key, value]]
        else into.constraints.push([key, value])
        return
      }
      if (into.unknown === undefined) into.unknown = [key]
      else into.unknown.push(key)
  }
}

/**
 * Schemas built by the DSL compiler (`markVerifiedSchema`): deep-frozen lossless JSON by
 * construction (S2.4), so parsing one skips re-proving plainness and losslessness; only the
 * subset rules are checked. A frozen tree can never change, so the mark stays true.
 */
const verifiedSchemas = new WeakSet<object>()

/** One parse in progress: where its violations go, and whether its schema is verified. */
interface Parse {
  readonly out: string[]
  /** The schema is marked by `markVerifiedSchema`: plain, lossless and acyclic by construction. */
  readonly verified: boolean
}

/** Marks a deep-frozen, lossless JSON schema that the DSL compiler built; returns it. */
export function markVerifiedSchema<T extends object>(schema: T): T {
  verifiedSchemas.add(schema)
  return schema
}

/** `isLosslessJson`, known true inside a verified schema. */
function isLossless(value: unknown, parse: Parse): boolean {
  return parse.verified || isLosslessJson(value)
}

interface Task {
  value: unknown
  path: string
  set: (node: SchemaNode) => void
}

/** A marker popped after a node's subtree: the node leaves the ancestor path (cycle check). */
interface Exit {
  exit: object
}

/**
 * Reads an object's own entries once, handing each to `take`; false (plus a violation) when it
 * is not plain data or a read threw.
 */
function readEntries(
  value: unknown,
  { path, what }: { path: string; what: string },
  parse: Parse,
  take: (key: string, value: unknown) => void,
): boolean {
  const { out } = parse
  if (parse.verified) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      out.push(`${path} must be ${what}`)
      return false
    }
    for (const key of Object.keys(value)) take(key, (value as Record<string, unknown>)[key])
    return true
  }
  try {
    if (!isPlainObject(value)) {
      out.push(`${path} must be ${what}`)
      return false
    }
    const keys = Object.keys(value)
    // Two cheap counts instead of `Reflect.ownKeys`, which is several times slower on V8.
    if (
      Object.getOwnPropertyNames(value).length !== keys.length ||
      Object.getOwnPropertySymbols(value).length !== 0
    ) {
      out.push(`${path} must have only enumerable string keys`)
      return false
    }
    for (const key of keys) take(key, value[key])
    return true
  } catch (error) {
    out.push(`${path} could not be read (${errorMessage(error)})`)
    return false
  }
}

/** Reads a dense plain array's items once; `undefined` when it is not one or reading threw. */
function readArray(value: unknown, parse: Parse): unknown[] | undefined {
  if (parse.verified) return Array.isArray(value) ? value : undefined
  try {
    return isPlainDenseArray(value) ? value.slice() : undefined
  } catch {
    return undefined
  }
}

/**
 * Parses `schema` against the enforced subset (S3) without ever throwing: collects every
 * violation (paths start at `rootPath`) and builds the node tree the validator and the
 * TypeScript renderer use. Iterative, so depth never overflows the stack; a sub-schema object
 * may be shared by siblings, but one that contains itself is reported as circular.
 */
export function parseSchema(schema: unknown, rootPath = 'schema'): ParsedSchema {
  const verified = typeof schema === 'object' && schema !== null && verifiedSchemas.has(schema)
  // A verified schema is lossless JSON, so it has no cycle to track.
  const trackCycles = !verified
  const violations: string[] = []
  const parse: Parse = { out: violations, verified }
  const nodes: SchemaNode[] = []
  let root: SchemaNode = INVALID
  const onPath = new Set<object>()
  const work: (Task | Exit)[] = [{ value: schema, path: rootPath, set: (node) => (root = node) }]
  while (work.length > 0) {
    const item = work.pop()!
    if ('exit' in item) {
      onPath.delete(item.exit)
      continue
    }
    const { value, path } = item
    if (trackCycles && value !== null && typeof value === 'object' && onPath.has(value)) {
      violations.push(`${path} is circular`)
      item.set(INVALID)
      continue
    }
    const before = violations.length
    const children: Task[] = []
    const node = parseNode(value, path, parse, children)
    if (node !== INVALID && violations.length === before) {
      item.set(node)
      nodes.push(node)
    } else item.set(INVALID)
    if (trackCycles && value !== null && typeof value === 'object') {
      onPath.add(value)
      work.push({ exit: value })
    }
    for (let i = children.length - 1; i >= 0; i--) work.push(children[i]!)
  }
  return { root, nodes, violations }
}

/**
 * Checks one node's own keywords, queues its sub-schemas in `children` (their `set` fills the
 * slots of the node returned here) and returns the node, or `INVALID` when it is not readable.
 */
function parseNode(value: unknown, path: string, parse: Parse, children: Task[]): SchemaNode {
  const { out } = parse
  const entries = new Keywords()
  const where = { path, what: 'a JSON Schema object' }
  if (!readEntries(value, where, parse, (key, v) => setKeyword(entries, key, v))) return INVALID
  if (entries.unknown !== undefined) {
    for (const key of entries.unknown) out.push(`${path}.${key} is not a supported keyword`)
  }
  const present = entries.present

  let type: string | undefined
  if ((present & BIT.type) !== 0) {
    const raw = entries.value.type
    if (Array.isArray(raw)) out.push(`${path}.type must be a single type name, not an array of types`)
    else if (typeof raw !== 'string' || !(TYPES as readonly string[]).includes(raw)) {
      out.push(`${path}.type must be one of ${TYPE_LIST}`)
    } else type = raw
  }
  let branches: unknown[] | undefined
  if ((present & BIT.oneOf) !== 0) {
    if ((present & BIT.type) !== 0) out.push(`${path} must not combine type and oneOf`)
    branches = readArray(entries.value.oneOf, parse)
    if (branches === undefined || branches.length < 2) {
      out.push(`${path}.oneOf must be an array of at least two schemas`)
      branches = undefined
    }
  }
  for (const [key, allowed, requirement] of TYPED_KEYWORDS) {
    if ((present & BIT[key]) !== 0 && !allowed(type)) out.push(`${path}.${key} ${requirement}`)
  }

  const description = checkAnnotations(entries, path, parse)
  if (entries.hasDialect && (path.includes('.') || typeof entries.dialect !== 'string')) {
    out.push(`${path}.$schema must be a string on the root schema only`)
  }
  const constraints = readConstraints(entries, type, path, out)
  const documented =
    (present & BIT.default) !== 0 && isLossless(entries.value.default, parse)
      ? { value: entries.value.default as JsonValue }
      : undefined

  let properties: { key: string; schema: SchemaNode }[] | undefined
  if ((present & BIT.properties) !== 0) {
    const slots: { key: string; schema: SchemaNode }[] = []
    const queued: Task[] = []
    const where = { path: `${path}.properties`, what: 'an object of schemas' }
    const read = readEntries(entries.value.properties, where, parse, (key, child) => {
      const slot = { key, schema: INVALID }
      slots.push(slot)
      queued.push({ value: child, path: `${path}.properties.${key}`, set: (node) => (slot.schema = node) })
    })
    if (read) {
      properties = slots
      for (const task of queued) children.push(task)
    }
  }
  let required: string[] = []
  if ((present & BIT.required) !== 0)
    required = checkRequired(entries.value.required, properties, path, parse)
  const additional = entries.value.additionalProperties
  if ((present & BIT.additionalProperties) !== 0 && typeof additional !== 'boolean') {
    out.push(`${path}.additionalProperties must be a boolean`)
  }
  let enumValues: unknown[] | undefined
  if ((present & BIT.enum) !== 0) {
    enumValues = readArray(entries.value.enum, parse)
    if (enumValues === undefined || enumValues.length === 0 || !isLossless(enumValues, parse)) {
      out.push(`${path}.enum must be a non-empty array of lossless JSON values`)
    }
  }
  const constValue = entries.value.const
  if ((present & BIT.const) !== 0 && !isLossless(constValue, parse))
    out.push(`${path}.const must be lossless JSON`)

  if (branches !== undefined) {
    const node = { kind: 'oneOf' as const, branches: branches.map(() => INVALID), description }
    branches.forEach((branch, i) => {
      children.push({ value: branch, path: `${path}.oneOf[${i}]`, set: (n) => (node.branches[i] = n) })
    })
    return node
  }
  if (type === undefined) return { kind: 'any', description }
  if (type === 'array') {
    const node: SchemaNode = {
      kind: 'array',
      items: undefined,
      constraints,
      default: documented,
      description,
    }
    if ((present & BIT.items) !== 0) {
      children.push({ value: entries.value.items, path: `${path}.items`, set: (n) => (node.items = n) })
    }
    return node
  }
  if (type === 'object') {
    return { kind: 'object', properties, required, closed: additional === false, description }
  }
  return {
    kind: 'scalar',
    type: type as ScalarType,
    enum: enumValues as JsonValue[] | undefined,
    const: (present & BIT.const) !== 0 ? { value: constValue as JsonValue } : undefined,
    constraints,
    default: documented,
    description,
  }
}

const FAMILY_REQUIREMENT = {
  number: 'requires type "number" or "integer"',
  string: 'requires type "string"',
  array: 'requires type "array"',
} as const

/** S3.9: each constraint sits on a node of its type family and has a well-formed value. */
function readConstraints(
  entries: Keywords,
  type: string | undefined,
  path: string,
  out: string[],
): Constraints | undefined {
  if (entries.constraints === undefined) return undefined
  const family = familyOf(type)
  const read: Record<string, unknown> = {}
  for (const [key, value] of entries.constraints) {
    const [needs, wellFormed, what] = CONSTRAINTS[key]
    if (needs !== family) out.push(`${path}.${key} ${FAMILY_REQUIREMENT[needs]}`)
    else if (!wellFormed(value)) out.push(`${path}.${key} must be ${what}`)
    else read[key] = value
  }
  return read
}

/** S3.5 for the annotations; returns the description when it is a string. */
function checkAnnotations(entries: Keywords, path: string, parse: Parse): string | undefined {
  const { out } = parse
  const present = entries.present
  if ((present & BIT.description) !== 0 && typeof entries.value.description !== 'string') {
    out.push(`${path}.description must be a string`)
  }
  if ((present & BIT.title) !== 0 && typeof entries.value.title !== 'string')
    out.push(`${path}.title must be a string`)
  if ((present & BIT.default) !== 0 && !isLossless(entries.value.default, parse)) {
    out.push(`${path}.default must be lossless JSON`)
  }
  if ((present & BIT.examples) !== 0) {
    const examples = entries.value.examples
    if (!Array.isArray(examples) || !isLossless(examples, parse)) {
      out.push(`${path}.examples must be an array of lossless JSON values`)
    }
  }
  const description = entries.value.description
  return typeof description === 'string' ? description : undefined
}

/** S3.5: `required` is an array of unique strings, each an own key of `properties`. */
function checkRequired(
  raw: unknown,
  properties: { key: string }[] | undefined,
  path: string,
  parse: Parse,
): string[] {
  const { out } = parse
  const names = readArray(raw, parse)
  if (
    names === undefined ||
    names.some((n) => typeof n !== 'string') ||
    new Set(names).size !== names.length
  ) {
    out.push(`${path}.required must be an array of unique strings`)
    return []
  }
  const declared = new Set(properties?.map((p) => p.key))
  for (const name of names as string[]) {
    if (!declared.has(name))
      out.push(`${path}.required names ${JSON.stringify(name)}, which is not in properties`)
  }
  return names as string[]
}

/** The `SchemaError` (`UNSUPPORTED_SCHEMA`) carrying collected subset violations (S3.7). */
export function unsupportedSchemaError(violations: readonly string[]): ToolError {
  return codedError('UNSUPPORTED_SCHEMA', `unsupported JSON schema: ${violations.join('; ')}`)
}

/**
 * Throws one `SchemaError` (code `UNSUPPORTED_SCHEMA`) listing every way `schema` leaves the
 * enforced subset (S3), each violation qualified by a path starting at `schema`; returns
 * normally when the schema is inside it. Never throws anything else, whatever `schema` is.
 */
export function assertSupportedSchema(schema: unknown): void {
  const { violations } = parseSchema(schema, 'schema')
  if (violations.length > 0) throw unsupportedSchemaError(violations)
}
