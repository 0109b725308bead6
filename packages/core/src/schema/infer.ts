import type { JsonValue } from '../foundation/lossless-json.js'
import type { StandardOutput, StandardSchemaV1 } from './standard.js'

/** Containers entered so far, as a tuple whose length is the depth. */
type Depth = readonly unknown[]

/** Inference stays exact through this many nested containers, then widens to `JsonValue` (S1.12). */
type MaxDepth = 16

type Flatten<T> = { [K in keyof T]: T[K] } & {}

type RequiredKeys<P> = { [K in keyof P]: P[K] extends { readonly required: true } ? K : never }[keyof P]

/** The declared properties: `required: true` keys non-optional, the others optional (S1.12). */
type InferProperties<P, D extends Depth> = Flatten<
  { -readonly [K in RequiredKeys<P>]: InferNode<P[K], D> } & {
    -readonly [K in Exclude<keyof P, RequiredKeys<P>>]?: InferNode<P[K], D>
  }
>

type InferObject<S, D extends Depth> = S extends { readonly properties: infer P }
  ? keyof P extends never
    ? EmptyObject<S>
    : S extends { readonly additionalProperties: false }
      ? InferProperties<P, D>
      : InferProperties<P, D> & Record<string, JsonValue>
  : EmptyObject<S>

type EmptyObject<S> = S extends { readonly additionalProperties: false }
  ? Record<string, never>
  : Record<string, JsonValue>

type InferScalar<S, T> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : T

/**
 * The node's value type; `D` counts the containers around it, `O` the `oneOf` levels since the
 * last container (bounded too, so a generic `ValueSpec` cannot recurse forever). Distributes
 * over unions.
 */
type InferNode<S, D extends Depth, O extends Depth = []> = S extends unknown
  ? S extends { readonly oneOf: readonly (infer B)[] }
    ? O['length'] extends MaxDepth
      ? JsonValue
      : InferNode<B, D, [...O, 0]>
    : S extends { readonly type: infer T }
      ? T extends 'string'
        ? InferScalar<S, string>
        : T extends 'number' | 'integer'
          ? InferScalar<S, number>
          : T extends 'boolean'
            ? InferScalar<S, boolean>
            : T extends 'null'
              ? null
              : T extends 'array'
                ? D['length'] extends MaxDepth
                  ? JsonValue
                  : S extends { readonly items: infer I }
                    ? InferNode<I, [...D, 0]>[]
                    : JsonValue[]
                : T extends 'object'
                  ? D['length'] extends MaxDepth
                    ? JsonValue
                    : InferObject<S, [...D, 0]>
                  : JsonValue
      : JsonValue
  : never

/**
 * The TypeScript type of values accepted by a value DSL node `S` (S1.12): scalars (narrowed by
 * `const`/`enum`), arrays, objects (required keys non-optional, open objects intersected with
 * `Record<string, JsonValue>`, closed objects without properties `Record<string, never>`), `oneOf`
 * as a union, `json` as `JsonValue`. Exact through 16 nested containers, `JsonValue` beyond.
 */
export type InferValue<S> = InferNode<S, []>

/**
 * The TypeScript type of a tool's arguments from its `parameters` (S1.12, S6.6): for a Standard
 * Schema its `InferOutput` (what `execute` receives); for a DSL property map the declared keys,
 * `required: true` ones non-optional. The root itself does not count toward the nesting limit,
 * so a property's type is `InferValue` of its node.
 */
export type InferArgs<P> = P extends StandardSchemaV1 ? StandardOutput<P> : InferProperties<P, []>
