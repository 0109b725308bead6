/** A JSON value that survives `JSON.stringify` → `JSON.parse` unchanged (SPEC J1.1). */
import { isIntrinsicArrayPrototype, isIntrinsicObjectPrototype } from './intrinsics.js'
import { SnapshotMark } from './snapshot-mark.js'
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
  /**
   * With `freeze`: keep every frozen snapshot met in the value (`isFrozenSnapshot`) as it is,
   * shared by the copy instead of copied again (Q3.3); such a tree can never change.
   */
  share?: boolean
}

/** One container being copied: its source, its copy and the position of the walk inside it. */
interface Frame {
  source: any
  copy: any
  /** The own keys of an object; `null` for an array, whose slots are walked by index. */
  keys: string[] | null
  length: number
  /** The next key or slot to read; the one being processed is `index - 1`. */
  index: number
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

/** The path of the element being processed, e.g. `value.items[3].name` (built only on failure). */
function pathOf(stack: Frame[], depth: number, root: string): string {
  let path = root
  for (let i = 0; i < depth; i++) {
    const frame = stack[i]!
    const at = frame.index - 1
    path += frame.keys === null ? `[${at}]` : `.${frame.keys[at]!}`
  }
  return path
}

/**
 * Judges a container (the own keys it reports, its prototype) and returns the frame that will
 * copy it, or a failure reason for a container that is not plain. A throwing Proxy trap
 * propagates (J1.10).
 */
function openContainer(source: object): Frame | string {
  if (Array.isArray(source)) {
    if (!isIntrinsicArrayPrototype(Object.getPrototypeOf(source))) return 'is not a plain array'
    // Dense and nothing else: the enumerable keys are exactly 0..length-1 and the only other
    // own key is `length` (this rejects holes, extra, non-enumerable and symbol keys).
    const keys = Object.keys(source)
    const length: number = (source as unknown[]).length
    if (keys.length !== length || Reflect.ownKeys(source).length !== length + 1) {
      return 'is sparse or has extra properties'
    }
    for (let i = 0; i < length; i++) {
      if (keys[i] !== `${i}`) return 'is sparse or has extra properties'
    }
    return { source, copy: [], keys: null, length, index: 0 }
  }
  const proto = Object.getPrototypeOf(source)
  if (proto !== null && !isIntrinsicObjectPrototype(proto)) return 'is not a plain object'
  const keys = Object.keys(source)
  // Two cheap counts instead of `Reflect.ownKeys`, which is several times slower on V8.
  if (
    Object.getOwnPropertyNames(source).length !== keys.length ||
    Object.getOwnPropertySymbols(source).length > 0
  ) {
    return 'has non-enumerable or symbol keys'
  }
  return { source, copy: {}, keys, length: keys.length, index: 0 }
}

/** Depth from which ancestors are also tracked in a Set, so deep cycle checks stay O(1). */
const LINEAR_ANCESTOR_LIMIT = 32

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
  if (value === null || typeof value !== 'object') {
    const problem = primitiveProblem(value)
    return problem === undefined
      ? { ok: true, value: value as JsonValue }
      : { ok: false, reason: `${root} ${problem}` }
  }
  const share = freeze && options.share === true
  if (share && SnapshotMark.has(value)) return { ok: true, value: value as JsonValue }
  const first = openContainer(value)
  if (typeof first === 'string') return { ok: false, reason: `${root} ${first}` }
  const stack: Frame[] = [first]
  let depth = 1
  // Ancestors are found by scanning the stack while it is shallow (cheaper than hashing for
  // the common small argument object); a Set takes over for deep values (J1.3, J1.9).
  let ancestors: Set<object> | undefined
  while (depth > 0) {
    const frame = stack[depth - 1]!
    if (frame.index >= frame.length) {
      depth--
      if (ancestors !== undefined) ancestors.delete(frame.source)
      if (freeze) {
        if (depth === 0) new SnapshotMark(frame.copy)
        Object.freeze(frame.copy)
      }
      continue
    }
    const at = frame.index++
    const { keys } = frame
    // The single read of this property or slot (J1.5): the value checked is the value copied.
    // Arrays and objects read and write at separate sites, so each stays monomorphic in V8.
    const key = keys === null ? at : keys[at]!
    const child: unknown = keys === null ? frame.source[at] : frame.source[key]
    if (child === null || typeof child !== 'object') {
      const problem = primitiveProblem(child)
      if (problem !== undefined) return { ok: false, reason: `${pathOf(stack, depth, root)} ${problem}` }
      if (keys === null) frame.copy[at] = child
      else assign(frame.copy, key as string, child)
      continue
    }
    if (share && SnapshotMark.has(child)) {
      if (keys === null) frame.copy[at] = child
      else assign(frame.copy, key as string, child)
      continue
    }
    if (isAncestor(stack, depth, ancestors, child)) {
      return { ok: false, reason: `${pathOf(stack, depth, root)} is circular` }
    }
    const next = openContainer(child)
    if (typeof next === 'string') return { ok: false, reason: `${pathOf(stack, depth, root)} ${next}` }
    if (keys === null) frame.copy[at] = next.copy
    else assign(frame.copy, key as string, next.copy)
    stack[depth++] = next
    if (ancestors !== undefined) ancestors.add(child)
    else if (depth > LINEAR_ANCESTOR_LIMIT) {
      ancestors = new Set()
      for (let i = 0; i < depth; i++) ancestors.add(stack[i]!.source)
    }
  }
  return { ok: true, value: first.copy }
}

/**
 * True iff `value` is the root of a frozen snapshot made by `snapshotJson(v, { freeze: true })`
 * or `parseFrozenJson`, or a container the pipeline froze around checked parts (a result, say).
 * Such a tree can never change (every container is frozen, so neither keys nor prototypes can),
 * which lets a validator skip re-proving that it is lossless JSON.
 */
export function isFrozenSnapshot(value: unknown): boolean {
  return typeof value === 'object' && value !== null && SnapshotMark.has(value)
}

/**
 * Parses JSON `text` straight into a frozen snapshot (Q3.2): the tree `JSON.parse` builds is
 * checked and frozen in place and its root marked as `snapshotJson(v, { freeze: true })` marks
 * its copies, so `execute` and the validator take it as is (Q3.1) and the text is copied into a
 * tree once. `JSON.parse` only builds plain, dense, acyclic trees of its own realm's intrinsics
 * whose keys are enumerable strings (a `__proto__` key an own data property, J1.8), so the walk
 * checks only what JSON text can hold and J1 rejects: a number that overflows to ±Infinity, and
 * `-0`. Text that is not JSON, or not lossless, gives `{ ok: false, reason }` (J1.2's reason).
 */
export function parseFrozenJson(text: string, root = 'value'): SnapshotResult {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return { ok: false, reason: `${root} is not valid JSON: ${(error as Error).message}` }
  }
  if (parsed === null || typeof parsed !== 'object') {
    const problem = primitiveProblem(parsed)
    return problem === undefined
      ? { ok: true, value: parsed as JsonValue }
      : { ok: false, reason: `${root} ${problem}` }
  }
  if (!freezeParsed(parsed)) {
    // Only the reason is wanted: the snapshot walk names the first offending path.
    const snap = snapshotJson(parsed, { root })
    return snap.ok ? { ok: false, reason: `${root} is not lossless JSON` } : snap
  }
  return { ok: true, value: parsed as JsonValue }
}

/**
 * Marks the root of a tree `JSON.parse` just built and freezes every container of it; false
 * when a number is not finite or is `-0` (the tree is then dropped). Iterative (J1.9).
 */
function freezeParsed(root: object): boolean {
  new SnapshotMark(root)
  const work: any[] = [root]
  while (work.length > 0) {
    const current = Object.freeze(work.pop())
    const keys = Array.isArray(current) ? null : Object.keys(current)
    const length: number = keys === null ? current.length : keys.length
    for (let i = 0; i < length; i++) {
      const child = keys === null ? current[i] : current[keys[i]!]
      if (typeof child === 'object') {
        if (child !== null) work.push(child)
      } else if (typeof child === 'number' && (!Number.isFinite(child) || Object.is(child, -0))) return false
    }
  }
  return true
}

function isAncestor(
  stack: Frame[],
  depth: number,
  ancestors: Set<object> | undefined,
  child: object,
): boolean {
  if (ancestors !== undefined) return ancestors.has(child)
  for (let i = 0; i < depth; i++) if (stack[i]!.source === child) return true
  return false
}

function assign(copy: any, key: string, value: unknown): void {
  if (key === '__proto__') {
    // Keep `__proto__` as an own data property instead of setting the prototype (J1.8).
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true })
  } else copy[key] = value
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

/** One container being written by `stringifyJson`: its keys (`null` for an array) and the next slot. */
interface WriteFrame {
  readonly value: any
  readonly keys: string[] | null
  index: number
}

/**
 * `JSON.stringify(value)` for a lossless JSON value (J1.12): the same text, byte for byte, at
 * any depth. V8's `JSON.stringify` recurses and throws `RangeError` from about 4,000 levels,
 * below the 5,000 the snapshot accepts (J1.9), so a value it cannot write is written again
 * with an explicit work stack. The native call stays first because it is several times faster
 * for the shallow values every append writes.
 */
export function stringifyJson(value: JsonValue): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
  }
  return stringifyDeep(value)
}

/** The iterative writer behind `stringifyJson`; strings, numbers and keys go through `JSON.stringify`. */
function stringifyDeep(root: JsonValue): string {
  let out = ''
  const stack: WriteFrame[] = []
  let next: JsonValue | undefined = root
  for (;;) {
    if (next !== undefined) {
      if (next === null || typeof next !== 'object') out += JSON.stringify(next)
      else if (Array.isArray(next)) {
        out += '['
        stack.push({ value: next, keys: null, index: 0 })
      } else {
        out += '{'
        stack.push({ value: next, keys: Object.keys(next), index: 0 })
      }
      next = undefined
    }
    const frame = stack[stack.length - 1]
    if (frame === undefined) return out
    const { keys } = frame
    const length: number = keys === null ? frame.value.length : keys.length
    if (frame.index === length) {
      out += keys === null ? ']' : '}'
      stack.pop()
      continue
    }
    const at = frame.index++
    if (at > 0) out += ','
    if (keys === null) next = frame.value[at]
    else {
      out += `${JSON.stringify(keys[at])}:`
      next = frame.value[keys[at]!]
    }
  }
}
