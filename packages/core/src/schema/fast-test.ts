/**
 * The validator's fast test tree: an exact verdict on a value without messages. The report
 * (`report.ts`) names the violations when the verdict is "invalid" or the test threw.
 */
import { constraintCheck, type PatternEngine } from './constraints.js'
import type { DeclaredKeys } from './declared-keys.js'
import {
  hasEnumerableKeys,
  hasOnlyEnumerableStringKeys,
  hasPlainArrayShape,
  hasPlainPrototype,
  isJsonNumber,
  jsonTest,
} from './json-shape.js'
import type { SchemaNode } from './schema-node.js'

/**
 * Exact verdict on one value: true iff the node's report would name nothing. `trusted` says
 * the value is a frozen snapshot (its containers are already proven plain, dense and lossless).
 * It reports no messages and may throw (a hostile getter or trap); the validator then asks the
 * report, which turns every throw into a violation at the right path.
 */
export type Test = (value: unknown, trusted: boolean) => boolean

type ScalarNode = Extract<SchemaNode, { kind: 'scalar' }>

/** The type tests of scalar nodes, before their constraints, `enum` and `const`. */
const TYPE_TESTS: { readonly [T in ScalarNode['type']]: (value: unknown) => boolean } = {
  string: (value) => typeof value === 'string',
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
  number: (value) => typeof value === 'number' && isJsonNumber(value),
  integer: (value) => Number.isInteger(value) && (value !== 0 || 1 / (value as number) > 0),
}

/** The type test of a scalar node, before its constraints, `enum` and `const`. */
export function typeTest(type: ScalarNode['type']): (value: unknown) => boolean {
  return TYPE_TESTS[type]
}

/** The test of a scalar node: its type, constraints (`pattern` compiled by `patterns`), `enum` and `const`. */
export function scalarTest(node: ScalarNode, patterns: PatternEngine): Test {
  const typed = typeTest(node.type)
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints, patterns)
  const ofType = bounds === undefined ? typed : (value: unknown) => typed(value) && bounds(value).length === 0
  // Only a scalar reaches the enum and const checks, so identity is JSON equality here.
  const members = node.enum === undefined ? undefined : new Set<unknown>(node.enum)
  const hasConst = node.const !== undefined
  const constValue = node.const?.value
  if (members !== undefined && hasConst) {
    return (value) => ofType(value) && members.has(value) && value === constValue
  }
  if (members !== undefined) return (value) => ofType(value) && members.has(value)
  if (hasConst) return (value) => ofType(value) && value === constValue
  return ofType
}

/** The test of an array node whose `items` schema (if any) has the test `items`. */
export function arrayTest(node: Extract<SchemaNode, { kind: 'array' }>, items: Test | undefined): Test {
  const itemTest = items ?? jsonTest
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints)
  return (value, trusted) => {
    if (!Array.isArray(value) || !(trusted || hasPlainArrayShape(value))) return false
    // A hole reads as `undefined`, which no schema accepts.
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      if (item === undefined || !itemTest(item, trusted)) return false
    }
    return bounds === undefined || bounds(value).length === 0
  }
}

/** The test of an object node laid out as `layout`, its declared properties tested by `children`. */
export function objectTest(layout: DeclaredKeys, children: readonly Test[]): Test {
  const { isRequired, requiredIndex, indexOf, closed } = layout
  // One `for...in` pass reads every own enumerable key once: inherited keys are skipped only
  // when the prototype has enumerable keys; the key count then proves there is no other key.
  return (input, trusted) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return false
    const proto = Object.getPrototypeOf(input)
    if (!hasPlainPrototype(input, proto)) return false
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
        if (closed || !jsonTest(value, trusted)) return false
      } else {
        if (!children[i]!(value, trusted)) return false
        if (isRequired[i]) seen++
        next = i + 1
      }
      own++
    }
    return seen === requiredIndex.length && (trusted || hasOnlyEnumerableStringKeys(object, own))
  }
}

/** The test of a `oneOf` node whose branches have the tests `branches`: exactly one matches. */
export function oneOfTest(branches: readonly Test[]): Test {
  return (value, trusted) => {
    let matched = 0
    for (const test of branches) if (test(value, trusted)) matched++
    return matched === 1
  }
}
