/**
 * The validator's report: the check tree that names every violation of a value at its path
 * (S4.2, S4.5), in order. The validator asks it only when the fast test (`fast-test.ts`) said
 * "invalid" or threw.
 */
import { errorMessage } from '../foundation/errors.js'
import { constraintCheck, type PatternEngine } from './constraints.js'
import { isPlainObject } from './containers.js'
import type { DeclaredKeys } from './declared-keys.js'
import { type Test, typeTest } from './fast-test.js'
import {
  hasEnumerableKeys,
  hasOnlyEnumerableStringKeys,
  hasPlainArrayShape,
  isJsonNumber,
  lossless,
} from './json-shape.js'
import type { SchemaNode } from './schema-node.js'

/** Where violation paths start: `value` for tool outputs, `arguments` for tool arguments (S4.2). */
export type ValidationRoot = 'value' | 'arguments'

/** One report in progress: where violations go, and whether the value is a frozen snapshot. */
interface Report {
  readonly out: string[]
  /** The value is a frozen snapshot: its containers are already proven plain, dense and lossless. */
  readonly trusted: boolean
}

/**
 * One node of the check tree. `parent` is the path of the container holding the value (`null`
 * for the root, `''` for a property of the argument root) and `key` its key or index, so the
 * path string is only built when a violation is reported or a container is entered.
 */
export type Check = (value: unknown, parent: string | null, key: string | number, report: Report) => void

function pathOf(parent: string | null, key: string | number): string {
  if (parent === null) return key as string
  if (typeof key === 'number') return `${parent}[${key}]`
  return parent === '' ? key : `${parent}.${key}`
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

const TYPE_TAILS = {
  string: '" must be a string',
  boolean: '" must be a boolean',
  null: '" must be null',
} as const

/** The check of a scalar node: its type, then its `enum`, `const` and constraints (`pattern` compiled by `patterns`). */
export function scalarCheck(node: Extract<SchemaNode, { kind: 'scalar' }>, patterns: PatternEngine): Check {
  const members = node.enum === undefined ? undefined : new Set<unknown>(node.enum)
  // Messages are `"<path>` plus a tail precomputed here, so a violation costs two joins.
  const enumTail = node.enum === undefined ? '' : `" must be one of ${JSON.stringify(node.enum)}`
  const hasConst = node.const !== undefined
  const constValue = node.const?.value
  const constTail = hasConst ? `" must be ${JSON.stringify(constValue)}` : ''
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints, patterns)
  const literal = (value: unknown, parent: string | null, key: string | number, out: string[]) => {
    if (members !== undefined && !members.has(value)) out.push(`"${pathOf(parent, key)}${enumTail}`)
    if (hasConst && value !== constValue) out.push(`"${pathOf(parent, key)}${constTail}`)
    if (bounds !== undefined) for (const tail of bounds(value)) out.push(`"${pathOf(parent, key)}" ${tail}`)
  }
  const constrained = members !== undefined || hasConst || bounds !== undefined
  switch (node.type) {
    case 'number':
    case 'integer': {
      const integer = node.type === 'integer'
      const typeTail = integer ? '" must be an integer' : '" must be a number'
      return (value, parent, key, { out }) => {
        if (typeof value !== 'number') out.push(`"${pathOf(parent, key)}${typeTail}`)
        else if (!isJsonNumber(value)) out.push(`"${pathOf(parent, key)}" must be a finite JSON number`)
        else if (integer && !Number.isInteger(value)) out.push(`"${pathOf(parent, key)}" must be an integer`)
        else if (constrained) literal(value, parent, key, out)
      }
    }
    default: {
      const typed = typeTest(node.type)
      const typeTail = TYPE_TAILS[node.type]
      return (value, parent, key, { out }) => {
        if (!typed(value)) out.push(`"${pathOf(parent, key)}${typeTail}`)
        else if (constrained) literal(value, parent, key, out)
      }
    }
  }
}

/** The check of an `any` node: the value is lossless JSON. */
export const anyCheck: Check = (value, parent, key, { out, trusted }) => {
  if (!lossless(value, trusted)) out.push(`"${pathOf(parent, key)}" must be a lossless JSON value`)
}

/** The check of an array node whose `items` schema (if any) has the check `items`. */
export function arrayCheck(node: Extract<SchemaNode, { kind: 'array' }>, items: Check | undefined): Check {
  const bounds = node.constraints === undefined ? undefined : constraintCheck(node.constraints)
  return (value, parent, key, report) => {
    const { out, trusted } = report
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
        else if (items !== undefined) items(item, self, i, report)
        else if (!lossless(item, trusted)) dense = false
      }
      if (!dense) out.push(`"${self}" must be a dense lossless JSON array`)
      else if (bounds !== undefined) for (const tail of bounds(value)) out.push(`"${self}" ${tail}`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
}

/** The check of an object node laid out as `layout`, its declared properties checked by `children`. */
export function objectCheck(layout: DeclaredKeys, children: readonly Check[]): Check {
  const { keys, requiredIndex, indexOf, closed } = layout
  const count = keys.length
  return (input, parent, key, report) => {
    const { out, trusted } = report
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
      for (let r = 0; r < requiredIndex.length; r++) {
        const i = requiredIndex[r]!
        if (values[i] === undefined) out.push(`missing required property "${pathOf(childParent, keys[i]!)}"`)
      }
      for (let i = 0; i < count; i++) {
        const child = values[i]
        if (child === undefined) {
          if (!exact && !holdsUndefined && Object.hasOwn(object, keys[i]!)) holdsUndefined = true
        } else if (child === THREW) out.push(unreadable(pathOf(childParent, keys[i]!)))
        else children[i]!(child, childParent, keys[i]!, report)
      }
      if (!exact) {
        const names = Object.keys(object)
        own = names.length
        undeclared = names.filter((name) => indexOf(name, 0) === undefined)
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
          isLossless = lossless(object[undeclared[i]!], trusted)
      }
      if (!isLossless) out.push(`"${self}" must be a lossless JSON object`)
    } catch {
      out.push(unreadable(self ?? pathOf(parent, key)))
    }
  }
}

/**
 * The check of a `oneOf` node whose branches have the tests `tests` and the checks `checks`
 * (a branch's check decides only when its test threw).
 */
export function oneOfCheck(tests: readonly Test[], checks: readonly Check[]): Check {
  const tails = Array.from(
    { length: tests.length + 1 },
    (_, matched) => `" must match exactly one oneOf branch (matched ${matched})`,
  )
  return (value, parent, key, { out, trusted }) => {
    let matched = 0
    for (let i = 0; i < tests.length; i++) {
      let ok: boolean
      try {
        ok = tests[i]!(value, trusted)
      } catch {
        // Only the exact walk knows whether a throwing read fails this branch.
        const scratch: string[] = []
        checks[i]!(value, parent, key, { out: scratch, trusted })
        ok = scratch.length === 0
      }
      if (ok) matched++
    }
    if (matched !== 1) out.push(`"${pathOf(parent, key)}${tails[matched]}`)
  }
}

/** How `report` reads a value: where its paths start, and whether it is a frozen snapshot. */
export interface ReportOptions {
  /** Where violation paths start (S4.2). */
  root: ValidationRoot
  /** True iff the value is a frozen snapshot (`isFrozenSnapshot`). */
  trusted: boolean
}

/** The violations `check` names for `value`, in order (S4.5). Total (S4.1). */
export function report(check: Check, value: unknown, { root, trusted }: ReportOptions): string[] {
  const out: string[] = []
  try {
    check(value, null, root, { out, trusted })
  } catch (error) {
    // Only a stack overflow on an extremely deep schema gets here; stay total (S4.1).
    out.push(`"${root}" could not be validated (${errorMessage(error)})`)
  }
  return out
}
