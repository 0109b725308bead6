/**
 * The lossless-JSON shape predicates (J1.1, S4.8) shared by the validator's fast test tree and
 * its report. Each takes `trusted` (the value is a frozen snapshot: every container in it is
 * already proven plain, dense and lossless) where that lets it skip work.
 */
import { isLosslessJson } from '../foundation/lossless-json.js'
import { isPlainDenseArray, isPlainObject } from './containers.js'

const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype

/** Containers a fast lossless walk may visit before handing over to the exact, cycle-safe check. */
const FAST_WALK_BUDGET = 256

/** What `walkJson` returns instead of the budget left: the value is not lossless. */
const NOT_LOSSLESS = -1

/** What `walkJson` returns instead of the budget left: it visited its budget of containers. */
const GAVE_UP = -2

/** A finite JSON number: not `NaN`, not `±Infinity`, not `-0` (S4.3). */
export function isJsonNumber(value: number): boolean {
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
 * True iff `object`, whose prototype is `proto`, has a plain prototype: `null` or an intrinsic
 * `Object.prototype` (S4.8). May throw when `object` is a hostile Proxy.
 */
export function hasPlainPrototype(object: object, proto: object | null): boolean {
  return proto === OBJECT_PROTO || proto === null || isPlainObject(object)
}

/**
 * True iff `value` is lossless JSON (J1.1), always when `trusted`; may throw like a getter or
 * trap it meets. Small values are checked by a non-copying walk; one that outgrows the walk's
 * budget (large, deep or cyclic) is judged by `isLosslessJson`, the snapshot's own answer.
 */
export function jsonTest(value: unknown, trusted: boolean): boolean {
  if (trusted) return true
  if (typeof value !== 'object' || value === null) return isJsonPrimitive(value)
  const left = walkJson(value, FAST_WALK_BUDGET)
  return left === GAVE_UP ? isLosslessJson(value) : left >= 0
}

/** `jsonTest` made total: a throwing getter or trap means "not lossless". */
export function lossless(value: unknown, trusted: boolean): boolean {
  try {
    return jsonTest(value, trusted)
  } catch {
    return false
  }
}

/**
 * The walk behind `jsonTest`: the budget left after visiting `value` when it is lossless,
 * `NOT_LOSSLESS` when it is not, `GAVE_UP` when it would visit more containers than `budget`.
 */
function walkJson(value: unknown, budget: number): number {
  if (typeof value !== 'object' || value === null) return isJsonPrimitive(value) ? budget : NOT_LOSSLESS
  if (budget === 0) return GAVE_UP
  let left = budget - 1
  if (Array.isArray(value)) {
    if (!hasPlainArrayShape(value)) return NOT_LOSSLESS
    // A hole reads as `undefined`, which is not lossless either.
    for (let i = 0; i < value.length && left >= 0; i++) left = walkJson(value[i], left)
    return left
  }
  const proto = Object.getPrototypeOf(value)
  if (!hasPlainPrototype(value, proto)) return NOT_LOSSLESS
  const inherited = proto !== null && hasEnumerableKeys(proto)
  let count = 0
  for (const key in value) {
    if (inherited && !Object.hasOwn(value, key)) continue
    left = walkJson((value as Record<string, unknown>)[key], left)
    if (left < 0) return left
    count++
  }
  return hasOnlyEnumerableStringKeys(value, count) ? left : NOT_LOSSLESS
}

/**
 * True iff `proto` (or its chain) has an enumerable key, so `for...in` over an object with this
 * prototype would also yield inherited keys. False for an unpolluted `Object.prototype`.
 */
export function hasEnumerableKeys(proto: object): boolean {
  for (const _ in proto) return true
  return false
}

/**
 * True iff `object`, which has `enumerable` own enumerable string keys, has no other own key
 * (non-enumerable or symbol). Two cheap calls instead of `Reflect.ownKeys`, which is several
 * times slower on V8 for objects.
 */
export function hasOnlyEnumerableStringKeys(object: object, enumerable: number): boolean {
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
export function hasPlainArrayShape(array: unknown[]): boolean {
  const proto = Object.getPrototypeOf(array)
  if (proto !== ARRAY_PROTO && !isPlainDenseArray(array)) return false
  return Reflect.ownKeys(array).length === array.length + 1
}
