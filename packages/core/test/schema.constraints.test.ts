import { assertSupportedSchema, schemaToTypeScript, validateValue } from '@tooltx/core'
import { compileParameters, compileValueSchema } from '@tooltx/core/internal'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { thrownToolError } from './thrown.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020
const ajv = addFormats(new Ajv2020({ strict: false, ownProperties: true, logger: false }))
const compiled = new Map<string, (value: unknown) => boolean>()

/** ajv's verdict, with one compiled validator per distinct schema. */
function ajvAccepts(schema: object, value: unknown): boolean {
  const key = JSON.stringify(schema)
  let validate = compiled.get(key)
  if (validate === undefined) {
    const fn = ajv.compile(schema)
    validate = (v) => fn(v) === true
    compiled.set(key, validate)
  }
  return validate(value)
}

const thrown = (fn: () => unknown) => thrownToolError(fn)

const small = fc.oneof(fc.integer({ min: -20, max: 20 }), fc.constantFrom(0.5, 1.5, -2.25, 0.1, 0.3, 1e21))
const positive = fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(0.5, 0.1, 0.25, 1.5))
const count = fc.integer({ min: 0, max: 5 })
const text = fc.string({ maxLength: 7, unit: fc.constantFrom('a', 'b', 'Z', '1', '-', ' ', 'é', '😀', '.') })
const patterns = fc.constantFrom('^a', 'b$', '^[a-z]+$', '\\d', '^.{2,4}$', 'é|😀', '^$', '\\p{L}')
const items = fc.array(fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom('a', null, [1], { a: 1 })), {
  maxLength: 6,
})

/** Per keyword: the schemas (one keyword, perhaps with a sibling) and values near their edges. */
const CASES: Record<string, fc.Arbitrary<[Record<string, unknown>, unknown]>> = {
  minimum: fc.tuple(small, small).map(([m, v]) => [{ type: 'number', minimum: m }, v]),
  maximum: fc.tuple(small, small).map(([m, v]) => [{ type: 'integer', maximum: m }, v]),
  exclusiveMinimum: fc.tuple(small, small).map(([m, v]) => [{ type: 'number', exclusiveMinimum: m }, v]),
  exclusiveMaximum: fc.tuple(small, small).map(([m, v]) => [{ type: 'number', exclusiveMaximum: m }, v]),
  multipleOf: fc
    // Without 1e21: ajv's parseInt check calls 1e21 a non-multiple of 1 (it reads "1e+21" as 1).
    .tuple(
      positive,
      small.filter((v) => v !== 1e21),
      fc.boolean(),
    )
    .map(([m, v, int]) => [{ type: int ? 'integer' : 'number', multipleOf: m }, v]),
  minLength: fc.tuple(count, text).map(([n, v]) => [{ type: 'string', minLength: n }, v]),
  maxLength: fc.tuple(count, text).map(([n, v]) => [{ type: 'string', maxLength: n }, v]),
  pattern: fc.tuple(patterns, text).map(([p, v]) => [{ type: 'string', pattern: p }, v]),
  minItems: fc.tuple(count, items).map(([n, v]) => [{ type: 'array', minItems: n }, v]),
  maxItems: fc.tuple(count, items).map(([n, v]) => [{ type: 'array', maxItems: n }, v]),
  uniqueItems: fc.tuple(fc.boolean(), items).map(([u, v]) => [{ type: 'array', uniqueItems: u }, v]),
  const: fc
    .tuple(
      fc.oneof(small, text, fc.boolean(), fc.constant(null)),
      fc.oneof(small, text, fc.boolean()),
      fc.boolean(),
    )
    .map(([c, v, same]) => [
      { type: typeof c === 'number' ? 'number' : c === null ? 'null' : typeof c, const: c },
      same ? c : v,
    ]),
  enum: fc
    .tuple(fc.array(text, { minLength: 1, maxLength: 3 }), text)
    .map(([e, v]) => [{ type: 'string', enum: e }, e.length > 1 && v.length % 2 === 0 ? e[0] : v]),
}

const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((d) => String(d).padStart(n, '0'))
const date = fc.tuple(digits(4, 2400), digits(2, 13), digits(2, 32)).map(([y, m, d]) => `${y}-${m}-${d}`)
const time = fc
  .tuple(
    digits(2, 24),
    digits(2, 60),
    digits(2, 61),
    fc.constantFrom('', '.5', '.123'),
    fc.constantFrom('Z', 'z', '+00:00', '-05:30', '+14:00', '', '+1:00'),
  )
  .map(([h, m, s, f, z]) => `${h}:${m}:${s}${f}${z}`)
const label = fc.oneof(fc.stringMatching(/^[a-z0-9]{1,4}$/), fc.stringMatching(/^[a-z0-9-]{0,5}$/))
const FORMAT_VALUES: Record<string, fc.Arbitrary<string>> = {
  date: fc.oneof(date, text),
  'date-time': fc.oneof(
    fc.tuple(date, fc.constantFrom('T', 't'), time).map(([d, t, x]) => d + t + x),
    fc.constantFrom('2024-02-29T23:59:60Z', '2023-12-31T18:59:60-05:00', '2024-01-01T12:00:60Z'),
    text,
  ),
  email: fc.oneof(
    fc
      .tuple(
        fc.oneof(fc.stringMatching(/^[a-z0-9]{1,4}$/), fc.stringMatching(/^[a-z0-9.+_'-]{0,6}$/)),
        fc.array(label, { minLength: 1, maxLength: 3 }),
      )
      .map(([local, labels]) => `${local}@${labels.join('.')}`),
    text,
  ),
  uri: fc.oneof(
    fc
      .tuple(
        fc.constantFrom('https', 'http', 'urn', 'mailto', 'a+b', '1x', ''),
        fc.constantFrom(':', '://'),
        // ajv-formats rejects some RFC 3986 URIs with an empty path (`https:?`): rests start with a path.
        fc.stringMatching(/^[a-z0-9][a-z0-9./?#=&%:@-]{0,9}$/),
      )
      .map(([s, sep, rest]) => s + sep + rest),
    text,
  ),
  uuid: fc.oneof(
    fc
      .tuple(
        fc.constantFrom('', 'urn:uuid:'),
        fc.stringMatching(/^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-gA-G]{12}$/),
      )
      .map(([p, u]) => p + u),
    text,
  ),
}

describe('S3.9 constraints (differential against ajv 2020-12 with ajv-formats)', () => {
  for (const [keyword, arbitrary] of Object.entries(CASES)) {
    it(`S3.9: ${keyword} accepts exactly what ajv accepts`, () => {
      let valid = 0
      let invalid = 0
      fc.assert(
        fc.property(arbitrary, ([schema, value]) => {
          assertSupportedSchema(schema)
          const ours = validateValue(schema, value, 'value').length === 0
          expect({ schema, value, valid: ours }).toEqual({ schema, value, valid: ajvAccepts(schema, value) })
          if (ours) valid++
          else invalid++
        }),
        { numRuns: 1000 },
      )
      expect(Math.min(valid, invalid)).toBeGreaterThan(100)
    })
  }

  for (const [format, values] of Object.entries(FORMAT_VALUES)) {
    it(`S3.9: format ${format} accepts exactly what ajv-formats accepts`, () => {
      const schema = { type: 'string', format }
      let valid = 0
      fc.assert(
        fc.property(values, (value) => {
          const ours = validateValue(schema, value, 'value').length === 0
          expect({ value, valid: ours }).toEqual({ value, valid: ajvAccepts(schema, value) })
          if (ours) valid++
        }),
        { numRuns: 1000 },
      )
      expect(valid).toBeGreaterThan(50)
    })
  }

  it('S3.9, S4.15: each violated constraint has its own message, after the type check', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 5, multipleOf: 2 },
        s: { type: 'string', minLength: 2, pattern: '^a', format: 'email' },
        l: { type: 'array', maxItems: 1, uniqueItems: true },
        x: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      },
    }
    expect(validateValue(schema, { n: 7, s: 'b', l: [1, 1], x: 1 }, 'arguments')).toEqual([
      '"n" must be <= 5',
      '"n" must be a multiple of 2',
      '"s" must have at least 2 characters',
      '"s" must match the pattern "^a"',
      '"s" must be a valid email',
      '"l" must have at most 1 items',
      '"l" must not have duplicate items (items 0 and 1 are equal)',
      '"x" must be < 1',
    ])
    expect(validateValue(schema, { n: 'x', x: 0 }, 'arguments')).toEqual([
      '"n" must be an integer',
      '"x" must be > 0',
    ])
  })

  it('S3.9: a constraint on the wrong type or with a malformed value is a violation', () => {
    expect(thrown(() => assertSupportedSchema({ type: 'string', minimum: 1 })).message).toBe(
      'unsupported JSON schema: schema.minimum requires type "number" or "integer"',
    )
    expect(
      thrown(() =>
        assertSupportedSchema({ type: 'object', properties: { a: { minItems: 1 } }, required: [] }),
      ).message,
    ).toBe('unsupported JSON schema: schema.properties.a.minItems requires type "array"')
    expect(
      thrown(() => assertSupportedSchema({ type: 'string', pattern: '(', format: 'ipv4', minLength: -1 }))
        .message,
    ).toBe(
      'unsupported JSON schema: schema.pattern must be a regular expression that compiles with the u flag; ' +
        'schema.format must be one of "date-time", "date", "email", "uri", "uuid"; ' +
        'schema.minLength must be a non-negative integer',
    )
    expect(thrown(() => assertSupportedSchema({ type: 'number', multipleOf: 0 })).message).toBe(
      'unsupported JSON schema: schema.multipleOf must be a number greater than 0',
    )
  })

  it('S3.10: $schema is an annotation on the root only', () => {
    expect(() =>
      assertSupportedSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }),
    ).not.toThrow()
    expect(thrown(() => assertSupportedSchema({ type: 'array', items: { $schema: 'x' } })).message).toBe(
      'unsupported JSON schema: schema.items.$schema must be a string on the root schema only',
    )
  })
})

describe('S1.13 constraints in the DSL', () => {
  it('S1.13: the DSL carries the constraint keywords of its node type into the compiled schema', () => {
    expect(
      compileParameters({
        n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5, required: true },
        s: { type: 'string', minLength: 1, maxLength: 9, pattern: '^/', format: 'uri', default: '/' },
        l: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3, uniqueItems: true },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        n: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
        s: { type: 'string', minLength: 1, maxLength: 9, pattern: '^/', format: 'uri', default: '/' },
        l: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3, uniqueItems: true },
      },
      required: ['n'],
    })
  })

  it('S1.13: a constraint on another node type or with a malformed value is an author error', () => {
    expect(thrown(() => compileValueSchema({ type: 'boolean', minimum: 1 })).message).toBe(
      'output.schema.minimum is not supported by the value schema DSL',
    )
    expect(thrown(() => compileValueSchema({ type: 'string', format: 'ipv6' })).message).toBe(
      'output.schema.format must be one of "date-time", "date", "email", "uri", "uuid"',
    )
    expect(thrown(() => compileValueSchema({ type: 'array', maxItems: 1.5 })).code).toBe('UNSUPPORTED_SCHEMA')
  })

  it('S1.2: a default is documentation only and is never filled in', () => {
    const schema = compileParameters({ s: { type: 'string', default: 'x' } })
    const args = {}
    expect(validateValue(schema, args, 'arguments')).toEqual([])
    expect(args).toEqual({})
  })
})

describe('S5.7 constraints in the TypeScript rendering', () => {
  it('S5.7: a property states its constraints in its JSDoc line, after its description', () => {
    expect(
      schemaToTypeScript({
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The path.', minLength: 1, format: 'uri' },
          n: { type: 'integer', maximum: 3 },
          tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        },
        required: ['path'],
      }),
    ).toBe(
      [
        '{',
        '  /** The path. (minLength: 1, format: "uri") */',
        '  path: string',
        '  /** (maximum: 3) */',
        '  n?: number',
        '  /** (uniqueItems: true) */',
        '  tags?: string[]',
        '} & Record<string, JsonValue>',
      ].join('\n'),
    )
  })
})
