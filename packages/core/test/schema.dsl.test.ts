import { assertSupportedSchema, isLosslessJson, type JsonValue, type ToolError } from '@tooltx/core'
import { compileParameters, compileValueSchema } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { thrownToolError } from './thrown.js'

/** Runs `fn` and returns the `SchemaError` it throws (fails the test if it throws nothing else). */
function schemaError(fn: () => unknown): ToolError {
  const e = thrownToolError(fn, 'UNSUPPORTED_SCHEMA')
  expect(e.name).toBe('SchemaError')
  return e
}

function isDeepFrozen(value: unknown): boolean {
  const work = [value]
  while (work.length > 0) {
    const v = work.pop()
    if (v === null || typeof v !== 'object') continue
    if (!Object.isFrozen(v)) return false
    work.push(...Object.values(v))
  }
  return true
}

describe('S1 author DSL', () => {
  it('S1.1: every node kind compiles; oneOf needs two branches and no type beside it', () => {
    // Every kind but json compiles to itself; json compiles to the empty schema.
    const kept = {
      s: { type: 'string' },
      n: { type: 'number' },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      z: { type: 'null' },
      a: { type: 'array' },
      ai: { type: 'array', items: { type: 'string' } },
      o: { type: 'object', additionalProperties: true },
      u: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    } as const
    const schema = compileValueSchema({
      type: 'object',
      additionalProperties: false,
      properties: { ...kept, j: { type: 'json' } },
    })
    expect(schema.properties).toEqual({ ...kept, j: {} })
    expect(schemaError(() => compileValueSchema({ oneOf: [{ type: 'string' }] })).message).toBe(
      'output.schema.oneOf must be an array of at least two DSL nodes',
    )
    expect(
      schemaError(() => compileValueSchema({ type: 'string', oneOf: [{ type: 'string' }, { type: 'null' }] }))
        .message,
    ).toBe('output.schema.type cannot be combined with oneOf')
  })

  it('S1.2: annotations are kept, default and examples must be lossless JSON and are never filled in', () => {
    const schema = compileValueSchema({
      type: 'string',
      description: 'd',
      title: 't',
      default: 'x',
      examples: ['a', 'b'],
    })
    expect(schema).toEqual({
      type: 'string',
      description: 'd',
      title: 't',
      default: 'x',
      examples: ['a', 'b'],
    })
    expect(schemaError(() => compileValueSchema({ type: 'string', default: Number.NaN })).message).toBe(
      'output.schema.default is not a finite number',
    )
    expect(schemaError(() => compileValueSchema({ type: 'json', examples: [undefined] })).message).toBe(
      'output.schema.examples[0] is undefined',
    )
    expect(schemaError(() => compileValueSchema({ type: 'json', description: 3 })).message).toBe(
      'output.schema.description must be a string',
    )
  })

  it('S1.3: scalar enum and const must have the node type and const must be in enum', () => {
    expect(compileValueSchema({ type: 'integer', enum: [1, 2], const: 2 })).toEqual({
      type: 'integer',
      enum: [1, 2],
      const: 2,
    })
    expect(schemaError(() => compileValueSchema({ type: 'string', enum: [] })).message).toBe(
      'output.schema.enum must be a non-empty array of string values',
    )
    expect(schemaError(() => compileValueSchema({ type: 'integer', enum: [1, 1.5] })).message).toBe(
      'output.schema.enum must be a non-empty array of integer values',
    )
    expect(schemaError(() => compileValueSchema({ type: 'boolean', const: 'true' })).message).toBe(
      'output.schema.const must be a boolean value',
    )
    expect(schemaError(() => compileValueSchema({ type: 'string', enum: ['a'], const: 'b' })).message).toBe(
      'output.schema.const must be one of the enum values',
    )
    expect(schemaError(() => compileValueSchema({ type: 'array', enum: [[]] })).message).toBe(
      'output.schema.enum is not supported by the value schema DSL',
    )
  })

  it('S1.4: parameters become an object root; required must be true when present', () => {
    expect(compileParameters({ a: { type: 'string', required: true }, b: { type: 'number' } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a'],
    })
    expect(schemaError(() => compileParameters({ a: { type: 'string', required: false } })).message).toBe(
      'parameters.a.required must be true when present',
    )
    expect(schemaError(() => compileParameters({ a: { type: 'string', required: 'yes' } })).message).toBe(
      'parameters.a.required must be true when present',
    )
  })

  it('S1.5: required is accepted on explicit object properties, rejected on items and oneOf branches', () => {
    expect(
      compileValueSchema({
        type: 'object',
        additionalProperties: false,
        properties: { x: { type: 'string', required: true } },
      }),
    ).toEqual({
      type: 'object',
      properties: { x: { type: 'string' } },
      required: ['x'],
      additionalProperties: false,
    })
    expect(
      schemaError(() => compileValueSchema({ type: 'array', items: { type: 'string', required: true } }))
        .message,
    ).toBe('output.schema.items.required is not supported by the value schema DSL')
    expect(
      schemaError(() => compileValueSchema({ oneOf: [{ type: 'string', required: true }, { type: 'null' }] }))
        .message,
    ).toBe('output.schema.oneOf[0].required is not supported by the value schema DSL')
    expect(schemaError(() => compileValueSchema({ type: 'string', required: true })).message).toBe(
      'output.schema.required is not supported by the value schema DSL',
    )
  })

  it('S1.6: an object without a boolean additionalProperties fails', () => {
    expect(schemaError(() => compileValueSchema({ type: 'object' })).message).toBe(
      'output.schema.additionalProperties must be explicitly true or false',
    )
    expect(
      schemaError(() =>
        compileParameters({ o: { type: 'object', additionalProperties: 'no', properties: {} } }),
      ).message,
    ).toBe('parameters.o.additionalProperties must be explicitly true or false')
  })

  it('S1.7: unknown keys and unknown types are rejected with the allowed type names', () => {
    expect(schemaError(() => compileValueSchema({ type: 'string', minProperties: 1 })).message).toBe(
      'output.schema.minProperties is not supported by the value schema DSL',
    )
    expect(schemaError(() => compileValueSchema({ type: 'date' })).message).toBe(
      'output.schema.type must be one of "string", "number", "integer", "boolean", "null", "array", "object", "json" (or use oneOf)',
    )
    expect(schemaError(() => compileParameters({ p: { description: 'no type' } })).message).toContain(
      'parameters.p.type must be one of "string"',
    )
  })

  it('S1.8: nodes must be plain data; cycles fail with "<path> is circular"; __proto__ is a key', () => {
    const cyclic: Record<string, unknown> = { type: 'array' }
    cyclic.items = cyclic
    expect(schemaError(() => compileValueSchema(cyclic)).message).toBe('output.schema.items is circular')
    class Node {
      type = 'string'
    }
    expect(schemaError(() => compileParameters({ a: new Node() })).message).toBe(
      'parameters.a is not a plain object',
    )
    expect(schemaError(() => compileValueSchema([{ type: 'string' }])).message).toBe(
      'output.schema must be a DSL node object',
    )
    // biome-ignore lint/suspicious/noSparseArray: the point of the test
    const sparse = [, { type: 'null' }]
    expect(schemaError(() => compileValueSchema({ oneOf: sparse })).message).toBe(
      'output.schema.oneOf is sparse or has extra properties',
    )
    const hidden = { type: 'string' }
    Object.defineProperty(hidden, 'secret', { value: 1, enumerable: false })
    expect(schemaError(() => compileParameters({ h: hidden })).message).toBe(
      'parameters.h has non-enumerable or symbol keys',
    )
    const proto = JSON.parse('{"__proto__": {"type": "string", "required": true}}')
    const compiled = compileParameters(proto)
    expect(Object.keys(compiled.properties as object)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(compiled.properties)).toBe(Object.prototype)
    expect(compiled.required).toEqual(['__proto__'])
  })

  it('S1.9: paths continue with .properties.<key>, .items and .oneOf[<i>]', () => {
    const spec = {
      type: 'object',
      additionalProperties: true,
      properties: {
        list: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'bogus' }] } },
      },
    }
    expect(schemaError(() => compileParameters({ p: spec })).message).toMatch(
      /^parameters\.p\.properties\.list\.items\.oneOf\[1\]\.type must be one of/,
    )
    expect(schemaError(() => compileValueSchema(spec)).message).toMatch(
      /^output\.schema\.properties\.list\.items\.oneOf\[1\]\.type must be one of/,
    )
  })

  it('S1.10: every DSL author error is a SchemaError with code UNSUPPORTED_SCHEMA, getters included', () => {
    const throwing = {
      get type(): string {
        throw new Error('boom')
      },
    }
    expect(schemaError(() => compileParameters({ t: throwing })).message).toBe(
      'parameters could not be read: boom',
    )
    schemaError(() => compileParameters('nope'))
    schemaError(() => compileParameters(null))
    schemaError(() => compileValueSchema(undefined))
  })

  it('S1.11: a oneOf nested 5,000 levels deep compiles without a stack overflow', () => {
    let spec: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 5000; i++) spec = { oneOf: [spec, { type: 'null' }] }
    const schema = compileValueSchema(spec)
    let depth = 0
    let node: any = schema
    while (node.oneOf) {
      node = node.oneOf[0]
      depth++
    }
    expect(depth).toBe(5000)
    expect(node).toEqual({ type: 'string' })
    expect(() => assertSupportedSchema(schema)).not.toThrow()
  })
})

describe('S2 compilation to JSON Schema', () => {
  it('S2.1: a json node compiles to an annotation-only schema', () => {
    expect(compileValueSchema({ type: 'json' })).toEqual({})
    expect(compileValueSchema({ type: 'json', description: 'any', default: { a: [1] } })).toEqual({
      description: 'any',
      default: { a: [1] },
    })
  })

  it('S2.2: the parameter root is open, required in declaration order and omitted when empty', () => {
    const root = compileParameters({
      z: { type: 'string', required: true },
      a: { type: 'string' },
      m: { type: 'string', required: true },
    })
    expect(root).toEqual({
      type: 'object',
      properties: { z: { type: 'string' }, a: { type: 'string' }, m: { type: 'string' } },
      required: ['z', 'm'],
    })
    expect('additionalProperties' in root).toBe(false)
    const empty = compileParameters({ a: { type: 'string' } })
    expect('required' in empty).toBe(false)
    expect(compileParameters({})).toEqual({ type: 'object', properties: {} })
  })

  it('S2.3: explicit objects keep additionalProperties, required flags move up, explicit {} is kept', () => {
    expect(compileValueSchema({ type: 'object', additionalProperties: true, properties: {} })).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: true,
    })
    expect(compileValueSchema({ type: 'object', additionalProperties: false })).toEqual({
      type: 'object',
      additionalProperties: false,
    })
    expect(
      compileValueSchema({
        type: 'object',
        additionalProperties: true,
        properties: { a: { type: 'null', required: true }, b: { type: 'null' } },
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'null' }, b: { type: 'null' } },
      required: ['a'],
      additionalProperties: true,
    })
  })

  it('S2.4: generated DSL specs compile to frozen lossless JSON, deterministic, inside the subset', () => {
    const annotations = fc.record(
      {
        description: fc.string({ maxLength: 8 }),
        title: fc.string({ maxLength: 8 }),
        // fast-check can produce -0, which is not lossless JSON; a JSON round trip removes it.
        default: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v))),
        examples: fc.array(
          fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.parse(JSON.stringify(v))),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    )
    const key = fc.string({ minLength: 1, maxLength: 6 })
    const { value } = fc.letrec<{ value: Record<string, unknown> }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'json').map((type) => ({ type })),
        fc.constantFrom('a', 'b').map((c) => ({ type: 'string', enum: ['a', 'b'], const: c })),
        fc.array(fc.integer(), { minLength: 1, maxLength: 3 }).map((e) => ({ type: 'integer', enum: e })),
        fc.record({ type: fc.constant('array'), items: tie('value') }, { requiredKeys: ['type'] }),
        fc.record(
          {
            type: fc.constant('object'),
            additionalProperties: fc.boolean(),
            properties: fc.dictionary(
              key,
              fc.tuple(tie('value'), fc.boolean()).map(([v, r]) => (r ? { ...v, required: true } : v)),
              { maxKeys: 4 },
            ),
          },
          { requiredKeys: ['type', 'additionalProperties'] },
        ),
        fc.array(tie('value'), { minLength: 2, maxLength: 3 }).map((oneOf) => ({ oneOf })),
      ),
    }))
    const annotated = fc.tuple(value, annotations).map(([v, a]) => ({ ...v, ...a }))
    fc.assert(
      fc.property(annotated, fc.dictionary(key, annotated, { maxKeys: 4 }), (spec, params) => {
        for (const compile of [() => compileValueSchema(spec), () => compileParameters(params)]) {
          const schema = compile()
          expect(isDeepFrozen(schema)).toBe(true)
          expect(isLosslessJson(schema)).toBe(true)
          expect(() => assertSupportedSchema(schema)).not.toThrow()
          expect(compile()).toEqual(schema as JsonValue)
        }
      }),
      { numRuns: 300 },
    )
  })
})
