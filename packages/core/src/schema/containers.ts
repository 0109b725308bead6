/** The plain-container tests of the validator (S4.8), on the snapshot's test of an intrinsic prototype (J1.11). */
import { isIntrinsicArrayPrototype, isIntrinsicObjectPrototype } from '../foundation/intrinsics.js'

/** `test(proto)`, with a hostile prototype whose traps throw counting as not plain. */
function intrinsic(test: (proto: object) => boolean, proto: object): boolean {
  try {
    return test(proto)
  } catch {
    return false
  }
}

/**
 * True iff `value` is a non-array object whose prototype is `null` or the intrinsic
 * `Object.prototype` of some realm (S4.8). May throw when `value` is a hostile Proxy.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === null || intrinsic(isIntrinsicObjectPrototype, proto)
}

/**
 * True iff `value` passes `Array.isArray`, has the intrinsic `Array.prototype` of some realm,
 * is dense and carries no own property besides its indices and `length` (S4.8). May throw when
 * `value` is a hostile Proxy.
 */
export function isPlainDenseArray(value: unknown): value is unknown[] {
  if (!Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  if (proto === null || !intrinsic(isIntrinsicArrayPrototype, proto)) return false
  const length = value.length
  if (Reflect.ownKeys(value).length !== length + 1) return false
  for (let i = 0; i < length; i++) if (!Object.hasOwn(value, i)) return false
  return true
}
