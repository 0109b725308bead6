/**
 * OpenAI strict-mode tool schemas (Z1): the strict form of a tool's parameters, and the mapping
 * that turns the nulls strict mode makes a model send for absent optional properties back into
 * absent keys, so validation and the tool see what the tool's own schema says.
 */
import { type JsonObject, type JsonValue, validateValue } from '@tooltx/core'

/** Deeper schemas are sent non-strict, so both walks below stay far from the stack limit. */
const MAX_DEPTH = 64
/** Annotations strict mode keeps; `default` and `examples` are left out (they never validate, S1.2). */
const KEPT_ANNOTATIONS = ['description', 'title'] as const
const LEFT_OUT = new Set(['default', 'examples'])
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'null'])

/**
 * The strict-mode form of a tool's `parameters` (Z1.1), or `undefined` when strict mode cannot
 * express them (Z1.2): every object closed with all its properties required, in declaration
 * order; an optional property that does not accept `null` becomes `anyOf: [<it>, { type: 'null' }]`;
 * `oneOf` becomes `anyOf`; `default` and `examples` are left out. Never throws.
 */
export function strictParameters(parameters: JsonObject): JsonObject | undefined {
  // The root is an implicit open object (S2.2); strict mode closes it like every other.
  return strictNode(parameters, 0, true)
}

/**
 * `value` with every `null` removed that stands for an absent optional property (Z1.3): at a
 * declared property of an object node that is not required and whose schema does not accept
 * `null`, through declared properties, array items and the first `oneOf` branch the mapped value
 * satisfies. Everything else, undeclared keys included, is kept as it is. Never throws, and
 * never changes `value` itself.
 */
export function restoreOptional(parameters: JsonObject, value: JsonValue): JsonValue {
  return restore(parameters, value, 0)
}

function strictNode(node: JsonValue | undefined, depth: number, root = false): JsonObject | undefined {
  if (!isObject(node) || depth > MAX_DEPTH) return undefined
  const out: JsonObject = {}
  for (const key of KEPT_ANNOTATIONS) if (typeof node[key] === 'string') out[key] = node[key]
  const known = new Set<string>([...KEPT_ANNOTATIONS, ...LEFT_OUT])
  if (Array.isArray(node.oneOf)) {
    const branches = node.oneOf.map((branch) => strictNode(branch, depth + 1))
    if (branches.some((branch) => branch === undefined)) return undefined
    out.anyOf = branches as JsonObject[]
    known.add('oneOf')
  } else if (node.type === 'object') {
    const properties = isObject(node.properties) ? node.properties : {}
    const keys = Object.keys(properties)
    // A free-form map (an open object declaring nothing) has no closed form the model could fill.
    if (!root && keys.length === 0 && node.additionalProperties !== false) return undefined
    const required = new Set(Array.isArray(node.required) ? node.required : [])
    const strict: JsonObject = {}
    for (const key of keys) {
      const property = strictNode(properties[key], depth + 1)
      if (property === undefined) return undefined
      const optional = !required.has(key) && !acceptsNull(properties[key])
      define(strict, key, optional ? { anyOf: [property, { type: 'null' }] } : property)
    }
    Object.assign(out, { type: 'object', properties: strict, required: keys, additionalProperties: false })
    for (const key of ['type', 'properties', 'required', 'additionalProperties']) known.add(key)
  } else if (node.type === 'array') {
    const items = strictNode(node.items, depth + 1)
    if (items === undefined) return undefined
    Object.assign(out, { type: 'array', items })
    for (const key of ['type', 'items']) known.add(key)
  } else if (typeof node.type === 'string' && SCALARS.has(node.type)) {
    out.type = node.type
    for (const key of ['enum', 'const'] as const) if (node[key] !== undefined) out[key] = node[key]
    for (const key of ['type', 'enum', 'const']) known.add(key)
  } else {
    // No type: a node that accepts any JSON value, which strict mode cannot say.
    return undefined
  }
  return Object.keys(node).every((key) => known.has(key)) ? out : undefined
}

function restore(node: JsonValue | undefined, value: JsonValue, depth: number): JsonValue {
  if (!isObject(node) || depth > MAX_DEPTH) return value
  if (Array.isArray(node.oneOf)) {
    for (const branch of node.oneOf) {
      const mapped = restore(branch, value, depth + 1)
      if (validateValue(branch, mapped, 'arguments').length === 0) return mapped
    }
    return value
  }
  if (node.type === 'array' && Array.isArray(value)) {
    return value.map((item) => restore(node.items, item, depth + 1))
  }
  if (node.type !== 'object' || !isObject(value)) return value
  const properties = isObject(node.properties) ? node.properties : {}
  const required = new Set(Array.isArray(node.required) ? node.required : [])
  const out: JsonObject = {}
  for (const [key, item] of Object.entries(value)) {
    if (!Object.hasOwn(properties, key)) define(out, key, item)
    else if (item !== null || required.has(key) || acceptsNull(properties[key]))
      define(out, key, restore(properties[key], item, depth + 1))
  }
  return out
}

function acceptsNull(schema: JsonValue | undefined): boolean {
  return validateValue(schema, null, 'value').length === 0
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// An own data property even for the key `__proto__`, which plain assignment would not create.
function define(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
