import type { JsonValue } from '../foundation/lossless-json.js'
import type { Constraints } from './constraints.js'

/** The scalar `type` names (S3.4: the only types that may carry `enum` and `const`). */
export type ScalarType = 'string' | 'number' | 'integer' | 'boolean' | 'null'

/**
 * One node of a schema that passed its own subset checks, read once from the author's object.
 * `invalid` stands for a node with violations of its own (or a cycle); its subtree is unusable.
 */
export type SchemaNode =
  | { readonly kind: 'invalid' }
  | { readonly kind: 'any'; readonly description: string | undefined }
  | {
      readonly kind: 'scalar'
      readonly type: ScalarType
      readonly enum: readonly JsonValue[] | undefined
      readonly const: { readonly value: JsonValue } | undefined
      readonly constraints: Constraints | undefined
      /** The documented `default`, never applied (S1.2); shown in the SDK text (S6.8). */
      readonly default: { readonly value: JsonValue } | undefined
      readonly description: string | undefined
    }
  | {
      readonly kind: 'array'
      items: SchemaNode | undefined
      readonly constraints: Constraints | undefined
      readonly default: { readonly value: JsonValue } | undefined
      readonly description: string | undefined
    }
  | {
      readonly kind: 'object'
      readonly properties: { key: string; schema: SchemaNode }[] | undefined
      readonly required: readonly string[]
      readonly closed: boolean
      readonly description: string | undefined
    }
  | { readonly kind: 'oneOf'; readonly branches: SchemaNode[]; readonly description: string | undefined }

/** The outcome of `parseSchema`: the node tree, every node in pre-order, and all violations. */
export interface ParsedSchema {
  readonly root: SchemaNode
  /** Every node reachable from `root`, parents before children. */
  readonly nodes: readonly SchemaNode[]
  /** Subset violations with paths starting at the root path, in document order. */
  readonly violations: readonly string[]
}
