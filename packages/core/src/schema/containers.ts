import { snapshotJson } from '../lossless-json.js'

const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype

/** Prototypes already judged, so the probe below runs once per foreign realm. */
const objectProtos = new WeakMap<object, boolean>()
const arrayProtos = new WeakMap<object, boolean>()

/**
 * Asks the snapshot (J1) whether an empty container with prototype `proto` is lossless JSON, so
 * "plain" means exactly what it means at every other boundary (J1.11): the intrinsic prototype
 * of any realm, never an imitation. A hostile prototype whose traps throw counts as not plain.
 */
function probe(proto: object, cache: WeakMap<object, boolean>, make: () => object): boolean {
  const known = cache.get(proto)
  if (known !== undefined) return known
  let plain = false
  try {
    const empty = make()
    Object.setPrototypeOf(empty, proto)
    plain = snapshotJson(empty).ok
  } catch {
    plain = false
  }
  cache.set(proto, plain)
  return plain
}

/**
 * True iff `value` is a non-array object whose prototype is `null` or the intrinsic
 * `Object.prototype` of some realm (S4.8). May throw when `value` is a hostile Proxy.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === null || proto === OBJECT_PROTO || probe(proto, objectProtos, () => ({}))
}

/**
 * True iff `value` passes `Array.isArray`, has the intrinsic `Array.prototype` of some realm,
 * is dense and carries no own property besides its indices and `length` (S4.8). May throw when
 * `value` is a hostile Proxy.
 */
export function isPlainDenseArray(value: unknown): value is unknown[] {
  if (!Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  if (proto !== ARRAY_PROTO && (proto === null || !probe(proto, arrayProtos, () => []))) return false
  const length = value.length
  if (Reflect.ownKeys(value).length !== length + 1) return false
  for (let i = 0; i < length; i++) if (!Object.hasOwn(value, i)) return false
  return true
}
