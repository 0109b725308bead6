/** A JSON value that survives `JSON.stringify` → `JSON.parse` unchanged (SPEC J1.1). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject

/** A JSON object: string keys, lossless JSON values. */
export interface JsonObject {
  [key: string]: JsonValue
}

/** The outcome of `snapshotJson`: a fresh copy, or why the value is not lossless JSON. */
export type SnapshotResult = { ok: true; value: JsonValue } | { ok: false; reason: string }

/** Options of `snapshotJson`. */
export interface SnapshotOptions {
  /** Freeze every copied container as it is completed (equivalent to `deepFreeze` of the copy). */
  freeze?: boolean
  /** Path name of the root used in `reason` strings; `value` when omitted. */
  root?: string
}

const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype
const fnToString = Function.prototype.toString
const NATIVE_OBJECT_SOURCE = fnToString.call(Object)

/** Foreign-realm `Object.prototype`s already recognised (they are real intrinsics, so caching is safe). */
const knownObjectPrototypes = new WeakSet<object>()

/**
 * True iff `proto` is the intrinsic `Object.prototype` of this or another realm (a `node:vm`
 * context, an iframe). An object that merely imitates it fails: the intrinsic has a null
 * prototype and a `constructor` that is that realm's native `Object` pointing back at it.
 */
function isIntrinsicObjectPrototype(proto: object): boolean {
  if (proto === OBJECT_PROTO || knownObjectPrototypes.has(proto)) return true
  if (Object.getPrototypeOf(proto) !== null) return false
  const ctor = Reflect.getOwnPropertyDescriptor(proto, 'constructor')
  if (ctor === undefined || !('value' in ctor) || typeof ctor.value !== 'function') return false
  const fn = ctor.value as Function
  const protoOfCtor = Reflect.getOwnPropertyDescriptor(fn, 'prototype')
  if (protoOfCtor === undefined || protoOfCtor.value !== proto) return false
  if (fnToString.call(fn) !== NATIVE_OBJECT_SOURCE) return false
  knownObjectPrototypes.add(proto)
  return true
}

/** True iff `proto` is the intrinsic `Array.prototype` of some realm (array subclasses fail). */
function isIntrinsicArrayPrototype(proto: object | null): boolean {
  if (proto === ARRAY_PROTO) return true
  if (proto === null || !Array.isArray(proto)) return false
  const parent = Object.getPrototypeOf(proto)
  return parent !== null && isIntrinsicObjectPrototype(parent)
}

interface Frame {
  source: any
  copy: any
  keys: string[]
  index: number
  isArray: boolean
}

class NotLossless {
  constructor(readonly reason: string) {}
}

/** Checks a primitive; returns a failure reason or `undefined` when it is lossless. */
function primitiveProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      if (!Number.isFinite(value)) return 'is not a finite number'
      return Object.is(value, -0) ? 'is -0' : undefined
    case 'undefined':
      return 'is undefined'
    case 'bigint':
      return 'is a BigInt'
    case 'symbol':
      return 'is a symbol'
    case 'function':
      return 'is a function'
    default:
      return value === null ? undefined : 'is not JSON'
  }
}

/**
 * Judges a container (the own keys it reports, its prototype) and returns the frame that
 * will copy it. Throws `NotLossless` for a container that is not plain; lets a throwing
 * Proxy trap propagate (J1.10).
 */
function openContainer(source: object, describe: () => string): Frame {
  if (Array.isArray(source)) {
    if (!isIntrinsicArrayPrototype(Object.getPrototypeOf(source))) {
      throw new NotLossless(`${describe()} is not a plain array`)
    }
    const keys = Object.keys(source)
    const all = Reflect.ownKeys(source)
    const length = (source as unknown[]).length
    if (all.length !== keys.length + 1 || keys.length !== length) {
      throw new NotLossless(`${describe()} is sparse or has extra properties`)
    }
    for (let i = 0; i < length; i++) {
      if (keys[i] !== `${i}`) throw new NotLossless(`${describe()} is sparse or has extra properties`)
    }
    return { source, copy: new Array(length), keys, index: 0, isArray: true }
  }
  const proto = Object.getPrototypeOf(source)
  if (proto !== null && !isIntrinsicObjectPrototype(proto)) {
    throw new NotLossless(`${describe()} is not a plain object`)
  }
  const keys = Object.keys(source)
  if (Reflect.ownKeys(source).length !== keys.length) {
    throw new NotLossless(`${describe()} has non-enumerable or symbol keys`)
  }
  return { source, copy: {}, keys, index: 0, isArray: false }
}

/** The path of `key` in the top frame, e.g. `value.items[3].name` (built only on failure). */
function pathOf(stack: Frame[], root: string, key: string): string {
  let path = root
  for (let i = 0; i < stack.length; i++) {
    const frame = stack[i]!
    // Lower frames have already advanced past the key that leads to the frame above them.
    const segment = i === stack.length - 1 ? key : frame.keys[frame.index - 1]!
    path += frame.isArray ? `[${segment}]` : `.${segment}`
  }
  return path
}

function assign(frame: Frame, key: string, value: unknown): void {
  if (frame.isArray) frame.copy[Number(key)] = value
  else if (key === '__proto__') {
    // Keep `__proto__` as an own data property instead of setting the prototype (J1.8).
    Object.defineProperty(frame.copy, key, { value, enumerable: true, writable: true, configurable: true })
  } else frame.copy[key] = value
}

/**
 * Copies `value` if it is lossless JSON (J1). Returns `{ ok: true, value }` with a fresh
 * tree that shares no object with the input, or `{ ok: false, reason }` naming the first
 * offending path. Each property and array slot is read exactly once and the value read is
 * the value checked and copied (J1.5); a throwing getter or Proxy trap propagates its
 * exception (J1.6, J1.10). `toJSON` is ignored; the walk is iterative (J1.9).
 */
export function snapshotJson(value: unknown, options: SnapshotOptions = {}): SnapshotResult {
  const root = options.root ?? 'value'
  const freeze = options.freeze === true
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    const problem = primitiveProblem(value)
    return problem === undefined
      ? { ok: true, value: value as JsonValue }
      : { ok: false, reason: `${root} ${problem}` }
  }
  if (typeof value === 'function') return { ok: false, reason: `${root} is a function` }
  const stack: Frame[] = []
  const onPath = new Set<object>()
  try {
    const first = openContainer(value, () => root)
    stack.push(first)
    onPath.add(value)
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      if (frame.index >= frame.keys.length) {
        stack.pop()
        onPath.delete(frame.source)
        if (freeze) Object.freeze(frame.copy)
        continue
      }
      const key = frame.keys[frame.index]!
      const child: unknown = frame.source[key]
      if (child === null || typeof child !== 'object') {
        const problem = primitiveProblem(child)
        if (problem !== undefined) return { ok: false, reason: `${pathOf(stack, root, key)} ${problem}` }
        assign(frame, key, child)
        frame.index++
        continue
      }
      if (onPath.has(child)) return { ok: false, reason: `${pathOf(stack, root, key)} is circular` }
      const next = openContainer(child, () => pathOf(stack, root, key))
      assign(frame, key, next.copy)
      frame.index++
      stack.push(next)
      onPath.add(child)
    }
    return { ok: true, value: first.copy }
  } catch (error) {
    if (error instanceof NotLossless) return { ok: false, reason: error.reason }
    throw error
  }
}

/**
 * True iff `value` is lossless JSON (J1.1–J1.2). Total: a throwing getter or Proxy trap
 * makes it `false` (J1.6).
 */
export function isLosslessJson(value: unknown): value is JsonValue {
  try {
    return snapshotJson(value).ok
  } catch {
    return false
  }
}

/** Objects that `deepFreeze` leaves unfrozen when it meets them (J2.2). */
const unfreezable = new WeakSet<object>()

/** Marks an object (a scope, say) that `deepFreeze` must never freeze. */
export function markUnfreezable(object: object): void {
  unfreezable.add(object)
}

function skipFreeze(value: object): boolean {
  return unfreezable.has(value) || (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal)
}

/**
 * Freezes `value` and every own enumerable string-keyed descendant reachable through data
 * properties, iteratively and cycle-safely, and returns `value` itself (J2.1). `AbortSignal`s
 * and scope objects are left unfrozen (J2.2); getters are never invoked.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value
  const seen = new Set<object>()
  const work: object[] = [value as object]
  while (work.length > 0) {
    const current = work.pop()!
    if (seen.has(current) || skipFreeze(current)) continue
    seen.add(current)
    Object.freeze(current)
    for (const key of Object.keys(current)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(current, key)
      if (descriptor === undefined || !('value' in descriptor)) continue
      const child: unknown = descriptor.value
      if (child !== null && (typeof child === 'object' || typeof child === 'function'))
        work.push(child as object)
    }
  }
  return value
}
