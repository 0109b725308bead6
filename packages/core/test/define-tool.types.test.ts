import {
  defineTool,
  type InferArgs,
  type InferValue,
  type JsonValue,
  type ToolDefinition,
} from '@tooltx/core'
import { describe, expectTypeOf, it } from 'vitest'

/** A spec of `n` nested single-item arrays around a string node. */
type NestedArraySpec<N extends number, Acc extends unknown[] = []> = Acc['length'] extends N
  ? { readonly type: 'string' }
  : { readonly type: 'array'; readonly items: NestedArraySpec<N, [...Acc, 0]> }

/**
 * Strips `n` array levels. TypeScript's relation checks give up ("maybe related") on deeply
 * nested array types, so deep results are compared leaf by leaf after peeling, never whole.
 */
type Peel<T, N extends number, Acc extends unknown[] = []> = Acc['length'] extends N
  ? T
  : T extends readonly (infer U)[]
    ? Peel<U, N, [...Acc, 0]>
    : 'not an array'

describe('S1.12 type inference from the DSL', () => {
  it('S1.12: required keys are non-optional, others optional; scalars narrow by const and enum', () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: {
        path: { type: 'string', required: true },
        limit: { type: 'integer' },
        mode: { type: 'string', enum: ['r', 'w'], required: true },
        exact: { type: 'boolean', const: true },
        nothing: { type: 'null' },
        any: { type: 'json' },
      },
      output: { schema: { type: 'number' }, render: () => [] },
      execute: (args) => {
        expectTypeOf(args.path).toEqualTypeOf<string>()
        return args.limit ?? 0
      },
    })
    expectTypeOf(tool).toEqualTypeOf<
      ToolDefinition<
        {
          path: string
          mode: 'r' | 'w'
          limit?: number
          exact?: true
          nothing?: null
          any?: JsonValue
        },
        number
      >
    >()
  })

  it('S1.12: open objects are intersected with Record<string, JsonValue>; closed ones are exact', () => {
    type Open = InferValue<{
      type: 'object'
      additionalProperties: true
      properties: { a: { type: 'string'; required: true }; b: { type: 'number' } }
    }>
    expectTypeOf<Open>().toEqualTypeOf<{ a: string; b?: number } & Record<string, JsonValue>>()
    type Closed = InferValue<{
      type: 'object'
      additionalProperties: false
      properties: { a: { type: 'string'; required: true } }
    }>
    expectTypeOf<Closed>().toEqualTypeOf<{ a: string }>()
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: true }>>().toEqualTypeOf<
      Record<string, JsonValue>
    >()
  })

  it('S1.12: a closed object without properties is Record<string, never>', () => {
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: false }>>().toEqualTypeOf<
      Record<string, never>
    >()
    expectTypeOf<InferValue<{ type: 'object'; additionalProperties: false; properties: {} }>>().toEqualTypeOf<
      Record<string, never>
    >()
  })

  it('S1.12: oneOf is a union, arrays carry their items, json is JsonValue', () => {
    expectTypeOf<
      InferValue<{
        oneOf: [{ type: 'string' }, { type: 'null' }, { type: 'array'; items: { type: 'integer' } }]
      }>
    >().toEqualTypeOf<string | null | number[]>()
    expectTypeOf<InferValue<{ type: 'array' }>>().toEqualTypeOf<JsonValue[]>()
    expectTypeOf<InferValue<{ type: 'json' }>>().toEqualTypeOf<JsonValue>()
    expectTypeOf<InferArgs<{ q: { type: 'string'; required: true } }>>().toEqualTypeOf<{ q: string }>()
  })

  it('S1.12: exact through 16 nested containers, JsonValue beyond', () => {
    expectTypeOf<Peel<InferValue<NestedArraySpec<3>>, 3>>().toEqualTypeOf<string>()
    expectTypeOf<InferValue<NestedArraySpec<3>>>().toEqualTypeOf<string[][][]>()
    expectTypeOf<Peel<InferValue<NestedArraySpec<16>>, 16>>().toEqualTypeOf<string>()
    expectTypeOf<Peel<InferValue<NestedArraySpec<17>>, 16>>().toEqualTypeOf<JsonValue>()
    expectTypeOf<Peel<InferValue<NestedArraySpec<17>>, 15>>().toEqualTypeOf<JsonValue[]>()
    type DeepObject = InferValue<{
      type: 'object'
      additionalProperties: false
      properties: { inner: NestedArraySpec<15> }
    }>
    expectTypeOf<Peel<NonNullable<DeepObject['inner']>, 15>>().toEqualTypeOf<string>()
    type TooDeep = InferValue<{
      type: 'object'
      additionalProperties: false
      properties: { inner: NestedArraySpec<16> }
    }>
    expectTypeOf<Peel<NonNullable<TooDeep['inner']>, 15>>().toEqualTypeOf<JsonValue>()
  })

  it('S1.12: callbacks are typed from the DSL', () => {
    defineTool({
      name: 'typed',
      description: '',
      parameters: { n: { type: 'number', required: true } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { doubled: { type: 'number', required: true } },
        },
        render: (args, value) => {
          expectTypeOf(args).toEqualTypeOf<{ n: number }>()
          expectTypeOf(value).toEqualTypeOf<{ doubled: number }>()
          return []
        },
      },
      execute: (args) => ({ doubled: args.n * 2 }),
      isConcurrencySafe: (args) => args.n > 0,
      presentCall: (args) => ({ card: 'generic', title: String(args.n) }),
    })
    defineTool({
      name: 'wrong',
      description: '',
      parameters: {},
      output: { schema: { type: 'string' }, render: () => [] },
      // @ts-expect-error the value must match output.schema
      execute: () => 1,
    })
  })
})
