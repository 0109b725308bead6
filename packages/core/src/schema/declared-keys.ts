import type { SchemaNode } from './schema-node.js'

/** The declared properties of one object node, laid out for the validator's two trees. */
export interface DeclaredKeys {
  /** The declared keys in declaration order. */
  readonly keys: readonly string[]
  /** Whether each declared key is required, parallel to `keys`. */
  readonly isRequired: readonly boolean[]
  /** The declared indices of the required keys, in `required` order. */
  readonly requiredIndex: readonly number[]
  /**
   * The declared index of `key`, or `undefined`. Inputs usually list their keys in declaration
   * order, perhaps skipping optional ones, so the next few declared keys from `expected` on are
   * compared (property keys are interned: a pointer comparison) before asking a map.
   */
  readonly indexOf: (key: string, expected: number) => number | undefined
  /** No undeclared key is allowed (`additionalProperties: false`). */
  readonly closed: boolean
}

type ObjectNode = Extract<SchemaNode, { kind: 'object' }>

/** The `DeclaredKeys` of `node`; `node.required` names only declared keys (checked by the parser). */
export function declaredKeys(node: ObjectNode): DeclaredKeys {
  const declared = node.properties ?? []
  const count = declared.length
  const keys: string[] = new Array(count)
  const index = new Map<string, number>()
  // Filled in the loop, not with `Array.prototype.fill`: V8's `fill` builtin checks the array
  // against the `Array.prototype` of every live realm, so each call costs time linear in the
  // number of `node:vm` contexts the process holds (BENCHMARKS.md, "Hot-path figures").
  const isRequired: boolean[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const key = declared[i]!.key
    keys[i] = key
    isRequired[i] = false
    index.set(key, i)
  }
  const requiredIndex = node.required.map((name) => index.get(name)!)
  for (const i of requiredIndex) isRequired[i] = true
  const indexOf = (key: string, expected: number): number | undefined => {
    const end = Math.min(expected + 4, count)
    for (let i = expected; i < end; i++) if (keys[i] === key) return i
    return index.get(key)
  }
  return { keys, isRequired, requiredIndex, indexOf, closed: node.closed }
}
