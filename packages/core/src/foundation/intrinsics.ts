/**
 * Recognises the intrinsic `Object.prototype` and `Array.prototype` of any realm (J1.11), the one
 * test of "plain" shared by the snapshot and the validator. May throw on a hostile Proxy.
 */
const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype
const fnToString = Function.prototype.toString
const NATIVE_OBJECT_SOURCE = fnToString.call(Object)
const NATIVE_ARRAY_SOURCE = fnToString.call(Array)

/** Foreign-realm intrinsic prototypes already recognised (real intrinsics, so caching is safe). */
const knownPrototypes = new WeakSet<object>()

/**
 * True iff `proto` has an own data property `constructor` holding that realm's native
 * `constructorName` function whose own `prototype` is `proto`. An imitation fails: the intrinsic
 * `prototype` of a native constructor cannot be reassigned, and a user function does not print
 * as native code.
 */
function isOwnNativeConstructorOf(proto: object, nativeSource: string): boolean {
  const ctor = Reflect.getOwnPropertyDescriptor(proto, 'constructor')
  if (ctor === undefined || !('value' in ctor) || typeof ctor.value !== 'function') return false
  const fn = ctor.value as Function
  const protoOfCtor = Reflect.getOwnPropertyDescriptor(fn, 'prototype')
  if (protoOfCtor === undefined || protoOfCtor.value !== proto) return false
  return fnToString.call(fn) === nativeSource
}

/**
 * True iff `proto` is the intrinsic `Object.prototype` of this or another realm (a `node:vm`
 * context, an iframe). An object that merely imitates it fails: the intrinsic has a null
 * prototype and a `constructor` that is that realm's native `Object` pointing back at it.
 */
export function isIntrinsicObjectPrototype(proto: object): boolean {
  if (proto === OBJECT_PROTO || knownPrototypes.has(proto)) return true
  if (Object.getPrototypeOf(proto) !== null || !isOwnNativeConstructorOf(proto, NATIVE_OBJECT_SOURCE)) {
    return false
  }
  knownPrototypes.add(proto)
  return true
}

/**
 * True iff `proto` is the intrinsic `Array.prototype` of some realm: an array exotic object whose
 * `constructor` is that realm's native `Array` and whose own prototype is that realm's
 * `Object.prototype`. Array subclasses and arrays posing as `Array.prototype` fail.
 */
export function isIntrinsicArrayPrototype(proto: object | null): boolean {
  if (proto === ARRAY_PROTO) return true
  if (proto === null) return false
  if (knownPrototypes.has(proto)) return true
  if (!Array.isArray(proto) || !isOwnNativeConstructorOf(proto, NATIVE_ARRAY_SOURCE)) return false
  const parent = Object.getPrototypeOf(proto)
  if (parent === null || !isIntrinsicObjectPrototype(parent)) return false
  knownPrototypes.add(proto)
  return true
}
