import { errorMessage, type ToolError } from '../errors.js'
import { isFrozenSnapshot, isLosslessJson } from '../lossless-json.js'
import { constraintCheck } from './constraints.js'
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
 * Exact verdict on one value: true iff the matching `Check` would report nothing. It reports no
 * messages and may throw (a hostile getter or trap); the validator then asks the `Check` tree,
 * which turns every throw into a violation at the right path. Valid values only ever meet tests.
 */
type Test = (value: unknown) => boolean

/** Both compiled forms of one schema node. */
interface Compiled {
  readonly test: Test
  readonly check: Check
}

const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype

/**
 * True while the value under validation is a frozen snapshot (`isFrozenSnapshot`): every
 * container in it is already proven plain, dense and lossless and can no longer change, so
 * only the schema's own constraints are checked. Set per validation and restored afterwards,
 * so a getter of an untrusted value that validates something else cannot leak it.
 */
let trusted = false

/** Containers a fast lossless walk may visit before handing over to the exact, cycle-safe check. */
const FAST_WALK_BUDGET = 256

/** What is left of the current walk's budget; below zero when the walk gave up. */
let budget = 0

/** A finite JSON number: not `NaN`, not `±Infinity`, not `-0` (S4.3). */
function isJsonNumber(value: number): boolean {
  return value - value === 0 && (value !== 0 || 1 / value > 0)
}

function isJsonPrimitive(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return isJsonNumber(value)
    case 'object':
      return value === null
    default:
      return false
  }
}

/**
 * True iff `value` is lossless JSON (J1.1); may throw like a getter or trap it meets. Small
 * values are checked by a non-copying walk; one that outgrows the walk's budget (large, deep or
 * cyclic) is judged by `isLosslessJson`, the snapshot's own answer.
 */
function jsonTest(value: unknown): boolean {
  if (trusted) return true
  if (typeof value !== 'object' || value === null) return isJsonPrimitive(value)
  budget = FAST_WALK_BUDGET
  const verdict = walkJson(value)
  return budget < 0 ? isLosslessJson(value) : verdict
}

/** `jsonTest` made total: a throwing getter or trap means "not lossless". */
function lossless(value: unknown): boolean {
  try {
    return jsonTest(value)
  } catch {
    return false
  }
}

/** The recursive walk behind `jsonTest`; returns false (with `budget < 0`) when it gave up. */
function walkJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return isJsonPrimitive(value)
  if (--budget < 0) return false
  if (Array.isArray(value)) {
    if (!hasPlainArrayShape(value)) return false
    // A hole reads as `undefined`, which is not lossless either.
    for (let i = 0; i < value.length; i++) if (!walkJson(value[i])) return false
    return true
  }
  const proto = Object.getPrototypeOf(value)
  if (proto !== OBJECT_PROTO && proto !== null && !isPlainObject(value)) return false
  const inherited = proto !== null && hasEnumerableKeys(proto)
  let count = 0
  for (const key in value) {
    if (inherited && !Object.hasOwn(value, key)) continue
    if (!walkJson((value as Record<string, unknown>)[key])) return false
    count++
  }
  return hasOnlyEnumerableStringKeys(value, count)
}

/**
 * True iff `proto` (or its chain) has an enumerable key, so `for...in` over an object with this
 * prototype would also yield inherited keys. False for an unpolluted `Object.prototype`.
 */
function hasEnumerableKeys(proto: object): boolean {
  for (const _ in proto) return true
  return false
}

/**
 * True iff `object`, which has `enumerable` own enumerable string keys, has no other own key
 * (non-enumerable or symbol). Two cheap calls instead of `Reflect.ownKeys`, which is several
 * times slower on V8 for objects.
 */
function hasOnlyEnumerableStringKeys(object: object, enumerable: number): boolean {
  return (
    Object.getOwnPropertyNames(object).length === enumerable &&
    Object.getOwnPropertySymbols(object).length === 0
  )
}

/**
 * True iff an `Array.isArray` value has an intrinsic `Array.prototype` and no own property
 * besides `length` and its indices (so no hole either). For arrays one `Reflect.ownKeys` is
 * cheaper than names plus symbols.
 */
function hasPlainArrayShape(array: unknown[]): boolean {
  const proto = Object.getPrototypeOf(array)
  if (proto !== ARRAY_PROTO && !isPlainDenseArray(array)) return false
  return Reflect.ownKeys(array).length === array.length + 1
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

/** The type test of a scalar node, before `enum` and `const`. */
function typeTest(type: Extract<SchemaNode, { kind: 'scalar' }>['type']): Test {
  switch (type) {
    case 'string':
      return (value) => typeof value === 'string'
    case 'boolean':
      return (value) => typeof value === 'boolean'
    case 'null':
      return (value) => value === null
    case 'number':
      return (value) => typeof value === 'number' && isJsonNumber(value)
    case 'integer':
      return (value) => Number.isInteger(value) && (value !== 0 || 1 / (value as number) > 0)
  }
}

const TYPE_TAILS = {
  string: '" must be a string',
  boolean: '" must be a boolean',
  null: '" must be null',
} as const

function scalarNode(node: Extract<SchemaNode, { kind: 'scalar' }>): Compiled {
  const members = node.enum === undefined ? undefined : new Set<unknown>(node.enum)
  // Messages are `"<path>` plus a tail precomputed here, so a violation costs two joins.
  const enumTail = node.enum === undefined ? '' : `" must be one of ${JSON.stringify(node.enum)}`
  const hasConst = node.const !== undefined
  const constValue = node.const?.value
  const constTail = hasConst ? `" must be ${JSON.stringify(constValue)}` : ''
  const typed = typeTest(node.type)
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints)
  const ofType: Test = bounds === undefined ? typed : (value) => typed(value) && bounds(value).length === 0
  // Only a scalar reaches the enum and const checks, so identity is JSON equality here.
  let test = ofType
  if (members !== undefined && hasConst) {
    test = (value) => ofType(value) && members.has(value) && value === constValue
  } else if (members !== undefined) test = (value) => ofType(value) && members.has(value)
  else if (hasConst) test = (value) => ofType(value) && value === constValue
  const literal = (value: unknown, parent: string | null, key: string | number, out: string[]) => {
    if (members !== undefined && !members.has(value)) out.push(`"${pathOf(parent, key)}${enumTail}`)
    if (hasConst && value !== constValue) out.push(`"${pathOf(parent, key)}${constTail}`)
    if (bounds !== undefined) for (const tail of bounds(value)) out.push(`"${pathOf(parent, key)}" ${tail}`)
  }
  const constrained = members !== undefined || hasConst || bounds !== undefined
  let check: Check
  switch (node.type) {
    case 'number':
    case 'integer': {
      const integer = node.type === 'integer'
      const typeTail = integer ? '" must be an integer' : '" must be a number'
      check = (value, parent, key, out) => {
        if (typeof value !== 'number') out.push(`"${pathOf(parent, key)}${typeTail}`)
        else if (!isJsonNumber(value)) out.push(`"${pathOf(parent, key)}" must be a finite JSON number`)
        else if (integer && !Number.isInteger(value)) out.push(`"${pathOf(parent, key)}" must be an integer`)
        else if (constrained) literal(value, parent, key, out)
      }
      break
    }
    default: {
      const typeTail = TYPE_TAILS[node.type]
      check = (value, parent, key, out) => {
        if (!typed(value)) out.push(`"${pathOf(parent, key)}${typeTail}`)
        else if (constrained) literal(value, parent, key, out)
      }
    }
  }
  return { test, check }
}

function anyNode(): Compiled {
  return {
    test: jsonTest,
    check: (value, parent, key, out) => {
      if (!lossless(value)) out.push(`"${pathOf(parent, key)}" must be a lossless JSON value`)
    },
  }
}

function arrayNode(node: Extract<SchemaNode, { kind: 'array' }>, items: Compiled | undefined): Compiled {
  const itemTest = items === undefined ? jsonTest : items.test
  const itemCheck = items?.check
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints)
  const test: Test = (value) => {
    if (!Array.isArray(value) || !(trusted || hasPlainArrayShape(value))) return false
    // A hole reads as `undefined`, which no schema accepts.
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      if (item === undefined || !itemTest(item)) return false
    }
    return bounds === undefined || bounds(value).length === 0
  }
  const check: Check = (value, parent, key, out) => {
    let self: string | undefined
    try {
      if (!Array.isArray(value)) {
        out.push(`"${pathOf(parent, key)}" must be an array`)
        return
      }
      self = pathOf(parent, key)
      const length = value.length
      let dense = trusted || hasPlainArrayShape(value)
      for (let i = 0; dense && i < length; i++) {
        const item = value[i]
        if (item === undefined) dense = false
        else if (itemCheck !== undefined) itemCheck(item, self, i, out)
        else if (!lossless(item)) dense = false
      }
      if (!dense) out.push(`"${self}" must be a dense lossless JSON array`)
      else if (bounds !== undefined) for (const tail of bounds(value)) out.push(`"${self}" ${tail}`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
  return { test, check }
}

function objectNode(
  node: Extract<SchemaNode, { kind: 'object' }>,
  compiled: Map<SchemaNode, Compiled>,
): Compiled {
  const declared = node.properties ?? []
  const count = declared.length
  const keys: string[] = new Array(count)
  const tests: Test[] = new Array(count)
  const checks: Check[] = new Array(count)
  const index = new Map<string, number>()
  // Filled in the loop, not with `Array.prototype.fill`: V8's `fill` builtin checks the array
  // against the `Array.prototype` of every live realm, so each call costs time linear in the
  // number of `node:vm` contexts the process holds (BENCHMARKS.md, "Hot-path figures").
  const isRequired: boolean[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const { key, schema } = declared[i]!
    const child = compiled.get(schema)!
    keys[i] = key
    tests[i] = child.test
    checks[i] = child.check
    isRequired[i] = false
    index.set(key, i)
  }
  const requiredIndex = node.required.map((name) => index.get(name)!)
  for (const i of requiredIndex) isRequired[i] = true
  const requiredCount = requiredIndex.length
  const closed = node.closed

  /**
   * The declared index of own key `key`. Inputs usually list their keys in declaration order,
   * perhaps skipping optional ones, so the next few declared keys after the previous match are
   * compared (property keys are interned: a pointer comparison) before asking the map.
   */
  const indexOf = (key: string, expected: number): number | undefined => {
    const end = Math.min(expected + 4, count)
    for (let i = expected; i < end; i++) if (keys[i] === key) return i
    return index.get(key)
  }

  // One `for...in` pass reads every own enumerable key once: inherited keys are skipped only
  // when the prototype has enumerable keys; the key count then proves there is no other key.
  const test: Test = (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return false
    const proto = Object.getPrototypeOf(input)
    if (proto !== OBJECT_PROTO && proto !== null && !isPlainObject(input)) return false
    const inherited = proto !== null && hasEnumerableKeys(proto)
    const object = input as Record<string, unknown>
    let own = 0
    let seen = 0
    let next = 0
    for (const key in object) {
      if (inherited && !Object.hasOwn(object, key)) continue
      // An own `undefined` is a missing required key or a losslessness failure (S4.6).
      const value = object[key]
      if (value === undefined) return false
      const i = indexOf(key, next)
      if (i === undefined) {
        if (closed || !jsonTest(value)) return false
      } else {
        if (!tests[i]!(value)) return false
        if (isRequired[i]) seen++
        next = i + 1
      }
      own++
    }
    return seen === requiredCount && (trusted || hasOnlyEnumerableStringKeys(object, own))
  }

  const check: Check = (input, parent, key, out) => {
    let self: string | undefined
    try {
      const object = input as Record<string, unknown>
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
      // validated (S4.6). One `for...in` pass reads them; it is `exact` when it provably saw
      // every own key (no non-enumerable one, no throwing getter or trap).
      const values = new Array<unknown>(count)
      let undeclared: string[] | undefined
      let own = 0
      let holdsUndefined = false
      let exact = true
      try {
        const proto = Object.getPrototypeOf(object)
        const inherited = proto !== null && hasEnumerableKeys(proto)
        let next = 0
        for (const name in object) {
          if (inherited && !Object.hasOwn(object, name)) continue
          own++
          const i = indexOf(name, next)
          if (i === undefined) {
            if (undeclared === undefined) undeclared = [name]
            else undeclared.push(name)
          } else {
            const child = object[name]
            if (child === undefined) holdsUndefined = true
            values[i] = child
            next = i + 1
          }
        }
        exact = trusted || Object.getOwnPropertyNames(object).length === own
      } catch {
        exact = false
      }
      // Otherwise the declared keys are read one by name, a throwing read becoming `THREW`.
      if (!exact) for (let i = 0; i < count; i++) values[i] = readOwn(object, keys[i]!)
      for (let r = 0; r < requiredCount; r++) {
        const i = requiredIndex[r]!
        if (values[i] === undefined) out.push(`missing required property "${pathOf(childParent, keys[i]!)}"`)
      }
      for (let i = 0; i < count; i++) {
        const child = values[i]
        if (child === undefined) {
          if (!exact && !holdsUndefined && Object.hasOwn(object, keys[i]!)) holdsUndefined = true
        } else if (child === THREW) out.push(unreadable(pathOf(childParent, keys[i]!)))
        else checks[i]!(child, childParent, keys[i]!, out)
      }
      if (!exact) {
        const names = Object.keys(object)
        own = names.length
        undeclared = names.filter((name) => !index.has(name))
      }
      if (closed && undeclared !== undefined) {
        for (const name of undeclared) {
          out.push(`"${pathOf(childParent, name)}" is not a declared property (additionalProperties: false)`)
        }
      }
      if (out.length !== before || trusted) return
      // The declared children have proved their own values lossless; what is left is the
      // object's own shape and the values no child schema looked at (S4.5).
      let isLossless =
        !holdsUndefined &&
        (exact ? Object.getOwnPropertySymbols(object).length === 0 : hasOnlyEnumerableStringKeys(object, own))
      if (undeclared !== undefined) {
        for (let i = 0; isLossless && i < undeclared.length; i++)
          isLossless = lossless(object[undeclared[i]!])
      }
      if (!isLossless) out.push(`"${self}" must be a lossless JSON object`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
  return { test, check }
}

function oneOfNode(branches: Compiled[]): Compiled {
  const tests = branches.map((b) => b.test)
  const checks = branches.map((b) => b.check)
  const tails = Array.from(
    { length: branches.length + 1 },
    (_, matched) => `" must match exactly one oneOf branch (matched ${matched})`,
  )
  return {
    test: (value) => {
      let matched = 0
      for (const test of tests) if (test(value)) matched++
      return matched === 1
    },
    check: (value, parent, key, out) => {
      let matched = 0
      for (let i = 0; i < tests.length; i++) {
        let ok: boolean
        try {
          ok = tests[i]!(value)
        } catch {
          // Only the exact walk knows whether a throwing read fails this branch.
          const scratch: string[] = []
          checks[i]!(value, parent, key, scratch)
          ok = scratch.length === 0
        }
        if (ok) matched++
      }
      if (matched !== 1) {
        out.push(`"${pathOf(parent, key)}${tails[matched]}`)
      }
    },
  }
}

/** Builds the closure trees children-first, iterating the pre-order node list backwards. */
function build(root: SchemaNode, nodes: readonly SchemaNode[]): Compiled {
  const compiled = new Map<SchemaNode, Compiled>()
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!
    switch (node.kind) {
      case 'any':
        compiled.set(node, anyNode())
        break
      case 'scalar':
        compiled.set(node, scalarNode(node))
        break
      case 'array':
        compiled.set(node, arrayNode(node, node.items === undefined ? undefined : compiled.get(node.items)!))
        break
      case 'object':
        compiled.set(node, objectNode(node, compiled))
        break
      case 'oneOf':
        compiled.set(node, oneOfNode(node.branches.map((b) => compiled.get(b)!)))
        break
      case 'invalid':
        break
    }
  }
  return compiled.get(root)!
}

/**
 * Compiles a subset schema (S3) into a reusable validator: a closure tree built once, without
 * code generation, iteratively (a 5,000-deep schema compiles). Throws the `SchemaError` of
 * `assertSupportedSchema` when `schema` is outside the subset. The validator reflects the schema
 * as it was when compiled; treat schemas as immutable.
 */
export function compileValidator(schema: unknown): CompiledValidator {
  const { test, check } = compileTrees(schema)
  return (value, root) => {
    const outer = trusted
    trusted = isFrozenSnapshot(value)
    try {
      // Fast path: an exact verdict without messages. Anything wrong, or a throw, takes the
      // exact walk that names every violation at its path.
      try {
        if (test(value)) return []
      } catch {}
      return report(check, value, root)
    } finally {
      trusted = outer
    }
  }
}

/** Both closure trees of a subset schema; throws the `SchemaError` of `assertSupportedSchema`. */
function compileTrees(schema: unknown): Compiled {
  const parsed = parseSchema(schema, 'schema')
  if (parsed.violations.length > 0) throw unsupportedSchemaError(parsed.violations)
  return build(parsed.root, parsed.nodes)
}

/** The violations the `Check` tree reports for `value`; total (S4.1). */
function report(check: Check, value: unknown, root: ValidationRoot): string[] {
  const out: string[] = []
  try {
    check(value, null, root, out)
  } catch (error) {
    // Only a stack overflow on an extremely deep schema gets here; stay total (S4.1).
    out.push(`"${root}" could not be validated (${errorMessage(error)})`)
  }
  return out
}

/**
 * Internal, for the S4.16 property test (not exported from the package): the fast test's
 * verdict on `value` (`'threw'` when it threw) and the report, computed apart, each the way
 * the validator computes it (trusted iff `value` is a frozen snapshot).
 */
export function fastAndReport(
  schema: unknown,
  value: unknown,
): { fast: boolean | 'threw'; report: string[] } {
  const { test, check } = compileTrees(schema)
  const outer = trusted
  trusted = isFrozenSnapshot(value)
  try {
    let fast: boolean | 'threw'
    try {
      fast = test(value)
    } catch {
      fast = 'threw'
    }
    return { fast, report: report(check, value, 'value') }
  } finally {
    trusted = outer
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
