import { assertSupportedSchema, isLosslessJson, snapshotJson, ToolError, validateValue } from '@tooltx/core'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

/** The message of the SchemaError `assertSupportedSchema` throws, or `undefined` when it accepts. */
function violationsOf(schema: unknown): string | undefined {
  try {
    assertSupportedSchema(schema)
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError)
    expect((error as ToolError).code).toBe('UNSUPPORTED_SCHEMA')
    expect((error as ToolError).name).toBe('SchemaError')
    return (error as ToolError).message
  }
}

describe('S3 the enforced subset', () => {
  it('S3.1: only the subset keywords and annotations are allowed', () => {
    expect(
      violationsOf({
        type: 'object',
        properties: { a: { type: 'string', description: 'd', title: 't', default: 'x', examples: ['y'] } },
        required: ['a'],
        additionalProperties: false,
      }),
    ).toBeUndefined()
    for (const key of [
      'anyOf',
      '$ref',
      'allOf',
      'not',
      'patternProperties',
      'minProperties',
      'contentEncoding',
      '$defs',
    ]) {
      expect(violationsOf({ type: 'string', [key]: 1 })).toBe(
        `unsupported JSON schema: schema.${key} is not a supported keyword`,
      )
    }
  })

  it('S3.2: type is one of seven names; an array of types has its own message', () => {
    for (const type of ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']) {
      expect(violationsOf({ type })).toBeUndefined()
    }
    expect(violationsOf({ type: 'date' })).toBe(
      'unsupported JSON schema: schema.type must be one of "object", "array", "string", "number", "integer", "boolean", "null"',
    )
    expect(violationsOf({ type: ['string', 'null'] })).toBe(
      'unsupported JSON schema: schema.type must be a single type name, not an array of types',
    )
  })

  it('S3.3: type beside oneOf, short oneOf, and typed keywords beside oneOf or without a type', () => {
    expect(violationsOf({ type: 'string', oneOf: [{}, {}] })).toBe(
      'unsupported JSON schema: schema must not combine type and oneOf',
    )
    expect(violationsOf({ oneOf: [{ type: 'string' }] })).toBe(
      'unsupported JSON schema: schema.oneOf must be an array of at least two schemas',
    )
    expect(violationsOf({ oneOf: [{}, {}], properties: {}, items: {} })).toBe(
      'unsupported JSON schema: schema.properties requires type "object"; schema.items requires type "array"',
    )
    expect(violationsOf({ enum: [1], const: 1, required: [], additionalProperties: true })).toBe(
      'unsupported JSON schema: schema.required requires type "object"; schema.additionalProperties requires type "object"; schema.enum requires a scalar type; schema.const requires a scalar type',
    )
  })

  it('S3.4: object keywords only with object, items only with array, enum/const only with scalars', () => {
    expect(violationsOf({ type: 'array', properties: {} })).toBe(
      'unsupported JSON schema: schema.properties requires type "object"',
    )
    expect(violationsOf({ type: 'object', items: {} })).toBe(
      'unsupported JSON schema: schema.items requires type "array"',
    )
    expect(violationsOf({ type: 'object', enum: [{}] })).toBe(
      'unsupported JSON schema: schema.enum requires a scalar type',
    )
    expect(violationsOf({ type: 'null', const: null, enum: [null] })).toBeUndefined()
  })

  it('S3.5: required, additionalProperties, annotations and literals are well-formed', () => {
    expect(
      violationsOf({
        type: 'object',
        properties: { a: {} },
        required: ['a', 'b', 'toString'],
        additionalProperties: 'no',
        description: 1,
        title: null,
      }),
    ).toBe(
      'unsupported JSON schema: schema.description must be a string; schema.title must be a string; ' +
        'schema.required names "b", which is not in properties; schema.required names "toString", which is not in properties; ' +
        'schema.additionalProperties must be a boolean',
    )
    expect(violationsOf({ type: 'object', properties: {}, required: [1] })).toBe(
      'unsupported JSON schema: schema.required must be an array of unique strings',
    )
    expect(
      violationsOf({ type: 'string', enum: [Number.NaN], const: undefined, default: 1n, examples: [-0] }),
    ).toBe(
      'unsupported JSON schema: schema.default must be lossless JSON; schema.examples must be an array of lossless JSON values; ' +
        'schema.enum must be a non-empty array of lossless JSON values; schema.const must be lossless JSON',
    )
  })

  it('S3.6: a node without type and oneOf means any lossless JSON value', () => {
    expect(violationsOf({})).toBeUndefined()
    expect(violationsOf({ description: 'anything' })).toBeUndefined()
    for (const value of [null, 1, 'x', [1, { a: true }], { b: [] }])
      expect(validateValue({}, value, 'value')).toEqual([])
    expect(validateValue({}, { a: undefined }, 'value')).toEqual(['"value" must be a lossless JSON value'])
  })

  it('S3.7: every violation is collected with a path from "schema"; reuse is fine, cycles are not', () => {
    const shared = { type: 'string' }
    expect(violationsOf({ type: 'object', properties: { a: shared, b: shared } })).toBeUndefined()
    const message = violationsOf({
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string', maxContains: 3 } }, b: true },
      patternProperties: {},
    })
    expect(message).toBe(
      'unsupported JSON schema: schema.patternProperties is not a supported keyword; ' +
        'schema.properties.a.items.maxContains is not a supported keyword; ' +
        'schema.properties.b must be a JSON Schema object',
    )
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} }
    ;(cyclic.properties as Record<string, unknown>).self = cyclic
    expect(violationsOf(cyclic)).toBe('unsupported JSON schema: schema.properties.self is circular')
    const throwing = {
      get type(): string {
        throw new Error('boom')
      },
    }
    expect(violationsOf(throwing)).toBe('unsupported JSON schema: schema could not be read (boom)')
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    expect(violationsOf({ oneOf: [revoked.proxy, {}] })).toMatch(
      /^unsupported JSON schema: schema\.oneOf\[0\] could not be read/,
    )
    expect(violationsOf(null)).toBe('unsupported JSON schema: schema must be a JSON Schema object')
  })

  it('S3.8: validateValue accepts exactly what ajv 2020-12 accepts (differential)', () => {
    const ajv = new Ajv2020({ strict: false, ownProperties: true, logger: false })
    const key = fc.constantFrom('a', 'b', 'c', 'toString', 'constructor', '0', 'x y')
    const scalar = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(0.5, 1e21, -2.5),
      fc.constantFrom('', 'a', 'b'),
    )
    const scalarSchema = fc.record(
      {
        type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'null'),
        enum: fc.array(scalar, { minLength: 1, maxLength: 4 }),
        const: scalar,
        description: fc.constant('d'),
      },
      { requiredKeys: ['type'] },
    )
    const { schema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
      schema: fc.oneof<fc.Arbitrary<Record<string, unknown>>[]>(
        { depthSize: 'small', withCrossShrink: true },
        scalarSchema,
        fc.constant({}),
        fc.record({ type: fc.constant('array'), items: tie('schema') }, { requiredKeys: ['type'] }),
        fc
          .record(
            {
              type: fc.constant('object'),
              properties: fc.dictionary(key, tie('schema'), { maxKeys: 3 }),
              additionalProperties: fc.boolean(),
              required: fc.constant(true),
            },
            { requiredKeys: ['type'] },
          )
          .chain((o): fc.Arbitrary<Record<string, unknown>> => {
            const names = Object.keys(o.properties ?? {})
            if (!('required' in o)) return fc.constant(o)
            return fc.subarray(names).map((required) => ({ ...o, required }))
          }),
        fc.array(tie('schema'), { minLength: 2, maxLength: 3 }).map((oneOf) => ({ oneOf })),
      ),
    }))
    /** Values shaped like the schema most of the time, so both verdicts are common. */
    const valueFor = (s: any, depth = 0): fc.Arbitrary<unknown> => {
      const any = fc.jsonValue({ maxDepth: 2 })
      if (depth > 6) return any
      let shaped: fc.Arbitrary<unknown> = any
      if (s.oneOf) shaped = fc.oneof(...(s.oneOf as unknown[]).map((b) => valueFor(b, depth + 1)))
      else if (s.type === 'array')
        shaped = fc.array(s.items ? valueFor(s.items, depth + 1) : any, { maxLength: 3 })
      else if (s.type === 'object') {
        const props = s.properties ?? {}
        const shape: Record<string, fc.Arbitrary<unknown>> = {}
        for (const k of Object.keys(props)) shape[k] = valueFor(props[k], depth + 1)
        shaped = fc
          .tuple(fc.record(shape, { requiredKeys: [] }), fc.dictionary(key, scalar, { maxKeys: 1 }))
          .map(([declared, extra]) => ({ ...extra, ...declared }))
      } else if (s.enum) shaped = fc.oneof(fc.constantFrom(...(s.enum as unknown[])), scalar)
      else if ('const' in s) shaped = fc.oneof(fc.constant(s.const), scalar)
      else if (s.type) shaped = scalar
      return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: any })
    }
    let agreedValid = 0
    let agreedInvalid = 0
    fc.assert(
      fc.property(
        schema.chain((s) => fc.tuple(fc.constant(s), fc.array(valueFor(s), { minLength: 2, maxLength: 8 }))),
        ([s, values]) => {
          assertSupportedSchema(s)
          const ajvValidate = ajv.compile(s)
          for (const value of values) {
            if (!isLosslessJson(value)) continue
            const ours = validateValue(s, value, 'value')
            expect({ schema: s, value, valid: ours.length === 0 }).toEqual({
              schema: s,
              value,
              valid: ajvValidate(value) === true,
            })
            // The frozen snapshot the runtime validates takes a faster path; same verdicts.
            const frozen = snapshotJson(value, { freeze: true })
            if (frozen.ok) expect(validateValue(s, frozen.value, 'value')).toEqual(ours)
            if (ours.length === 0) agreedValid++
            else agreedInvalid++
          }
        },
      ),
      { numRuns: 1000 },
    )
    // Both verdicts must be well represented, or the differential proves little.
    expect(agreedValid).toBeGreaterThan(300)
    expect(agreedInvalid).toBeGreaterThan(300)
  })
})
