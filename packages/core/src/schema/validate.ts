import { errorMessage, type ToolError } from '../errors.js'
import { isFrozenSnapshot, isLosslessJson } from '../lossless-json.js'
import { isPlainDenseArray, isPlainObject } from './containers.js'
import { parseSchema, type SchemaNode, unsupportedSchemaError } from './subset.js'

/** Where violation paths start: `value` for tool outputs, `arguments` for tool arguments (S4.2). */
export type ValidationRoot = 'value' | 'arguments'

/**
 * A compiled validator: returns the violations of `value` in order (S4.5), `[]` when valid.
 * Total: never throws, whatever `value` is (S4.1).
 */
export type CompiledValidator = (value: unknown, root: ValidationRoot) => string[]

/**
 * One compiled schema node. `parent` is the path of the container holding the value (`null`
 * for the root, `''` for a property of the argument root) and `key` its key or index, so the
 * path string is only built when a violation is reported or a container is entered.
 */
type Check = (value: unknown, parent: string | null, key: string | number, out: string[]) => void

function pathOf(parent: string | null, key: string | number): string {
  if (parent === null) return key as string
  if (typeof key === 'number') return `${parent}[${key}]`
  return parent === '' ? key : `${parent}.${key}`
}

/**
 * True while the value under validation is a frozen snapshot (`isFrozenSnapshot`): every
 * container in it is already proven plain, dense and lossless and can no longer change, so
 * only the schema's own constraints are checked. Set per validation and restored afterwards,
 * so a getter of an untrusted value that validates something else cannot leak it.
 */
let trusted = false

/** Nodes a fast lossless walk may visit before handing over to the exact, cycle-safe check. */
const FAST_WALK_BUDGET = 256

/**
 * True iff `value` is lossless JSON (J1.1); total (a throwing getter or trap means "not
 * lossless"). Small values are checked by a non-copying walk; one that outgrows the walk's
 * budget (large, deep or cyclic) is judged by `isLosslessJson`, the snapshot's own answer.
 */
function lossless(value: unknown): boolean {
  if (trusted) return true
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0)
    case 'object':
      if (value === null) return true
      try {
        const verdict = fastLossless(value)
        return verdict === undefined ? isLosslessJson(value) : verdict
      } catch {
        return false
      }
    default:
      return false
  }
}

/** The non-copying walk behind `lossless`; `undefined` when the budget ran out. */
function fastLossless(root: object): boolean | undefined {
  const work: unknown[] = [root]
  let budget = FAST_WALK_BUDGET
  while (work.length > 0) {
    if (--budget < 0) return undefined
    const value = work.pop()
    switch (typeof value) {
      case 'string':
      case 'boolean':
        continue
      case 'number':
        if (!Number.isFinite(value) || Object.is(value, -0)) return false
        continue
      case 'object':
        if (value === null) continue
        if (Array.isArray(value)) {
          if (!hasPlainArrayShape(value)) return false
          for (let i = 0; i < value.length; i++) work.push(value[i])
        } else {
          if (!isPlainObject(value)) return false
          const keys = Object.keys(value)
          if (!hasOnlyKeys(value, keys.length)) return false
          for (const key of keys) work.push(value[key])
        }
        continue
      default:
        return false
    }
  }
  return true
}

/** True iff `object`'s own keys are exactly its `enumerable` own enumerable string keys. */
function hasOnlyKeys(object: object, enumerable: number): boolean {
  if (trusted) return true
  // Cheaper than `Reflect.ownKeys`: names catch non-enumerable keys, symbols the rest.
  return (
    Object.getOwnPropertyNames(object).length === enumerable &&
    Object.getOwnPropertySymbols(object).length === 0
  )
}

/**
 * True iff an `Array.isArray` value has an intrinsic `Array.prototype` and no own property
 * besides `length` and its indices. Holes are found by the caller (a hole reads as `undefined`).
 */
function hasPlainArrayShape(array: unknown[]): boolean {
  if (trusted) return true
  const proto = Object.getPrototypeOf(array)
  if (proto !== Array.prototype && !isPlainDenseArray(array)) return false
  return (
    Object.getOwnPropertyNames(array).length === array.length + 1 &&
    Object.getOwnPropertySymbols(array).length === 0
  )
}

/** What a property read yields when its getter or Proxy trap threw. */
const THREW: unique symbol = Symbol('threw')

/** Reads an own property once; `undefined` when absent, `THREW` when a getter or trap threw. */
function readOwn(object: object, key: string): unknown {
  try {
    return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined
  } catch {
    return THREW
  }
}

const unreadable = (path: string) => `"${path}" must be a lossless JSON value`

const TYPE_MESSAGES = {
  string: 'must be a string',
  boolean: 'must be a boolean',
  null: 'must be null',
} as const

function scalarCheck(node: Extract<SchemaNode, { kind: 'scalar' }>): Check {
  const members = node.enum === undefined ? undefined : new Set<unknown>(node.enum)
  const enumMessage = node.enum === undefined ? '' : `must be one of ${JSON.stringify(node.enum)}`
  const hasConst = node.const !== undefined
  const constValue = node.const?.value
  const constMessage = hasConst ? `must be ${JSON.stringify(constValue)}` : ''
  // Only a scalar reaches the enum and const checks, so identity is JSON equality here.
  const literal = (value: unknown, parent: string | null, key: string | number, out: string[]) => {
    if (members !== undefined && !members.has(value)) out.push(`"${pathOf(parent, key)}" ${enumMessage}`)
    if (hasConst && value !== constValue) out.push(`"${pathOf(parent, key)}" ${constMessage}`)
  }
  const constrained = members !== undefined || hasConst
  switch (node.type) {
    case 'number':
    case 'integer': {
      const integer = node.type === 'integer'
      const typeMessage = integer ? 'must be an integer' : 'must be a number'
      return (value, parent, key, out) => {
        if (typeof value !== 'number') out.push(`"${pathOf(parent, key)}" ${typeMessage}`)
        else if (!Number.isFinite(value) || Object.is(value, -0)) {
          out.push(`"${pathOf(parent, key)}" must be a finite JSON number`)
        } else if (integer && !Number.isInteger(value))
          out.push(`"${pathOf(parent, key)}" must be an integer`)
        else if (constrained) literal(value, parent, key, out)
      }
    }
    default: {
      const type = node.type
      const typeMessage = TYPE_MESSAGES[type]
      const matches =
        type === 'null' ? (value: unknown) => value === null : (value: unknown) => typeof value === type
      return (value, parent, key, out) => {
        if (!matches(value)) out.push(`"${pathOf(parent, key)}" ${typeMessage}`)
        else if (constrained) literal(value, parent, key, out)
      }
    }
  }
}

function anyCheck(): Check {
  return (value, parent, key, out) => {
    if (!lossless(value)) out.push(`"${pathOf(parent, key)}" must be a lossless JSON value`)
  }
}

function arrayCheck(items: Check | undefined): Check {
  return (value, parent, key, out) => {
    let self: string | undefined
    try {
      if (!Array.isArray(value)) {
        out.push(`"${pathOf(parent, key)}" must be an array`)
        return
      }
      self = pathOf(parent, key)
      const length = value.length
      let dense = hasPlainArrayShape(value)
      for (let i = 0; dense && i < length; i++) {
        const item = value[i]
        // A hole reads as `undefined`, which is never lossless either.
        if (item === undefined) dense = false
        else if (items !== undefined) items(item, self, i, out)
        else if (!lossless(item)) dense = false
      }
      if (!dense) out.push(`"${self}" must be a dense lossless JSON array`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
}

function objectCheck(node: Extract<SchemaNode, { kind: 'object' }>, checks: Map<SchemaNode, Check>): Check {
  const declared = node.properties ?? []
  const keys = declared.map((p) => p.key)
  const children = declared.map((p) => checks.get(p.schema)!)
  const count = keys.length
  const requiredIndex = node.required.map((name) => keys.indexOf(name))
  const declaredSet = new Set(keys)
  const closed = node.closed
  return (input, parent, key, out) => {
    let self: string | undefined
    try {
      const value = input as Record<string, unknown>
      const isObject = trusted
        ? typeof input === 'object' && input !== null && !Array.isArray(input)
        : isPlainObject(input)
      if (!isObject) {
        out.push(`"${pathOf(parent, key)}" must be an object`)
        return
      }
      self = pathOf(parent, key)
      // Properties of the argument root are written without the `arguments.` prefix (S4.2).
      const childParent = parent === null && key === 'arguments' ? '' : self
      const before = out.length
      // Each declared own property (S4.7) is read once, so the requiredness check and the
      // recursion see the same value; a present `undefined` counts as missing and is not
      // validated (S4.6).
      const values = new Array<unknown>(count)
      for (let i = 0; i < count; i++) values[i] = readOwn(value, keys[i]!)
      for (const index of requiredIndex) {
        if (values[index] === undefined)
          out.push(`missing required property "${pathOf(childParent, keys[index]!)}"`)
      }
      let present = 0
      let holdsUndefined = false
      for (let i = 0; i < count; i++) {
        const child = values[i]
        if (child === THREW) out.push(unreadable(pathOf(childParent, keys[i]!)))
        else if (child !== undefined) {
          present++
          children[i]!(child, childParent, keys[i]!, out)
        } else if (!holdsUndefined && Object.hasOwn(value, keys[i]!)) holdsUndefined = true
      }
      // A frozen snapshot's undeclared keys need no look unless the object is closed.
      if (trusted && !closed) return
      const own = Object.keys(value)
      if (closed && own.length !== present) {
        for (const name of own) {
          if (!declaredSet.has(name)) {
            out.push(
              `"${pathOf(childParent, name)}" is not a declared property (additionalProperties: false)`,
            )
          }
        }
      }
      if (out.length !== before) return
      // The declared children have proved their own values lossless; what is left is the
      // object's own shape and the values no child schema looked at (S4.5).
      let isLossless = !holdsUndefined && hasOnlyKeys(value, own.length)
      if (isLossless && own.length !== present) {
        for (const name of own) {
          if (!declaredSet.has(name) && !lossless(value[name])) {
            isLossless = false
            break
          }
        }
      }
      if (!isLossless) out.push(`"${self}" must be a lossless JSON object`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
}

function oneOfCheck(branches: Check[]): Check {
  return (value, parent, key, out) => {
    let matched = 0
    const scratch: string[] = []
    for (const branch of branches) {
      scratch.length = 0
      branch(value, parent, key, scratch)
      if (scratch.length === 0) matched++
    }
    if (matched !== 1) {
      out.push(`"${pathOf(parent, key)}" must match exactly one oneOf branch (matched ${matched})`)
    }
  }
}

/** Builds the closure tree children-first, iterating the pre-order node list backwards. */
function build(root: SchemaNode, nodes: readonly SchemaNode[]): Check {
  const checks = new Map<SchemaNode, Check>()
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!
    switch (node.kind) {
      case 'any':
        checks.set(node, anyCheck())
        break
      case 'scalar':
        checks.set(node, scalarCheck(node))
        break
      case 'array':
        checks.set(node, arrayCheck(node.items === undefined ? undefined : checks.get(node.items)!))
        break
      case 'object':
        checks.set(node, objectCheck(node, checks))
        break
      case 'oneOf':
        checks.set(node, oneOfCheck(node.branches.map((b) => checks.get(b)!)))
        break
      case 'invalid':
        break
    }
  }
  return checks.get(root)!
}

/**
 * Compiles a subset schema (S3) into a reusable validator: a closure tree built once, without
 * code generation, iteratively (a 5,000-deep schema compiles). Throws the `SchemaError` of
 * `assertSupportedSchema` when `schema` is outside the subset. The validator reflects the schema
 * as it was when compiled; treat schemas as immutable.
 */
export function compileValidator(schema: unknown): CompiledValidator {
  const parsed = parseSchema(schema, 'schema')
  if (parsed.violations.length > 0) throw unsupportedSchemaError(parsed.violations)
  const check = build(parsed.root, parsed.nodes)
  return (value, root) => {
    const out: string[] = []
    const outer = trusted
    trusted = isFrozenSnapshot(value)
    try {
      check(value, null, root, out)
    } catch (error) {
      // Only a stack overflow on an extremely deep schema gets here; stay total (S4.1).
      out.push(`"${root}" could not be validated (${errorMessage(error)})`)
    } finally {
      trusted = outer
    }
    return out
  }
}

const cache = new WeakMap<object, CompiledValidator | ToolError>()

/**
 * The violations of `value` against `schema` (S4), in order, `[]` when valid; paths start at
 * `root` (S4.2). Total: never throws (S4.1). The compiled validator is cached per schema object;
 * a schema outside the subset yields the single violation `"<root>" cannot be validated: <why>`.
 */
export function validateValue(schema: unknown, value: unknown, root: ValidationRoot): string[] {
  let compiled: CompiledValidator | ToolError | undefined
  const cacheable = schema !== null && typeof schema === 'object'
  if (cacheable) compiled = cache.get(schema)
  if (compiled === undefined) {
    try {
      compiled = compileValidator(schema)
    } catch (error) {
      compiled = error as ToolError
    }
    if (cacheable) cache.set(schema, compiled)
  }
  if (typeof compiled !== 'function') return [`"${root}" cannot be validated: ${errorMessage(compiled)}`]
  return compiled(value, root)
}
