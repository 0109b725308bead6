/**
 * Deep-frozen lossless JSON: the mark on containers the pipeline builds from checked parts
 * (`vouchFreeze`) and the check that a value is deep-frozen lossless JSON (V1.3).
 */
import { codedError, errorMessage, type ToolErrorCode } from './errors.js'
import { isFrozenSnapshot, type JsonValue, snapshotJson } from './lossless-json.js'
import { SnapshotMark } from './snapshot-mark.js'

/**
 * Freezes `value`, a container the pipeline just built from deep-frozen lossless parts (frozen
 * literals around checked snapshots), records that it is deep-frozen lossless JSON, and returns
 * it. The V1.3 walk then skips its subtree, as it skips roots of `snapshotJson(…, { freeze: true })`.
 * `value` must not be frozen yet: the mark is stamped first.
 */
export function vouchFreeze<T extends object>(value: T): Readonly<T> {
  new SnapshotMark(value)
  return Object.freeze(value)
}

/** True iff the V1.3 walk may skip `value`: a frozen snapshot root or a vouched container. */
const trusted = isFrozenSnapshot

const OBJECT_PROTO = Object.prototype
const ARRAY_PROTO = Array.prototype

/** Why `value` is not deep-frozen lossless JSON, or `undefined` when it is. Iterative, total on our own data. */
export function frozenJsonProblem(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && trusted(value)) return undefined
  const work: unknown[] = [value]
  while (work.length > 0) {
    const v = work.pop()
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue
      case 'number':
        if (!Number.isFinite(v) || Object.is(v, -0)) return 'holds a number that is not finite JSON'
        continue
      case 'object': {
        if (v === null || trusted(v)) continue
        if (!Object.isFrozen(v)) return 'holds an object that is not frozen'
        const proto = Object.getPrototypeOf(v)
        const isArray = Array.isArray(v)
        if (isArray ? proto !== ARRAY_PROTO : proto !== OBJECT_PROTO && proto !== null) {
          return 'holds an object that is not plain'
        }
        const keys = Object.keys(v)
        // Names and symbols counted apart: `Reflect.ownKeys` is several times slower on V8.
        if (
          Object.getOwnPropertyNames(v).length !== keys.length + (isArray ? 1 : 0) ||
          Object.getOwnPropertySymbols(v).length > 0
        ) {
          return 'holds an object with hidden keys'
        }
        for (const key of keys) work.push((v as Record<string, unknown>)[key])
        continue
      }
      default:
        return `holds a value of type ${typeof v}`
    }
  }
  return undefined
}

/** Options of `frozenSnapshotOrThrow`: the error code and the two messages. */
export interface SnapshotFailure {
  /** The root's name in the snapshot's reasons. */
  readonly root: string
  readonly code: ToolErrorCode
  /** The message when reading the value threw, given the thrown error's message. */
  readonly unreadable: (message: string) => string
  /** The message when the value is not lossless JSON, given the reason. */
  readonly notLossless: (reason: string) => string
}

/** A frozen snapshot of `value`; throws a `ToolError` with `code` when it cannot be read or is not lossless. */
export function frozenSnapshotOrThrow(value: unknown, failure: SnapshotFailure): JsonValue {
  let snap: ReturnType<typeof snapshotJson>
  try {
    snap = snapshotJson(value, { freeze: true, root: failure.root })
  } catch (error) {
    throw codedError(failure.code, failure.unreadable(errorMessage(error)))
  }
  if (!snap.ok) throw codedError(failure.code, failure.notLossless(snap.reason))
  return snap.value
}
