import { snapshotJson } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fastAndReport } from '../src/schema/validate.js'

/** Subset schemas (S3): every node kind, value constraints included. */
const schemaArb = fc.letrec<{ node: object }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom({}, { type: 'null' }, { type: 'boolean' }),
    fc.record(
      {
        type: fc.constant('string'),
        minLength: fc.nat(3),
        maxLength: fc.nat(6),
        pattern: fc.constantFrom('^a', 'b$'),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constantFrom('number', 'integer'),
        minimum: fc.integer({ min: -5, max: 5 }),
        exclusiveMaximum: fc.integer({ min: -5, max: 20 }),
        multipleOf: fc.constantFrom(1, 2, 0.5),
      },
      { requiredKeys: ['type'] },
    ),
    fc.oneof(
      fc
        .uniqueArray(fc.string({ maxLength: 2 }), { minLength: 1, maxLength: 3 })
        .map((e) => ({ type: 'string', enum: e })),
      fc
        .uniqueArray(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 3 })
        .map((e) => ({ type: 'integer', enum: e })),
    ),
    fc.oneof(
      fc.string({ maxLength: 2 }).map((c) => ({ type: 'string', const: c })),
      fc.integer({ min: -3, max: 3 }).map((c) => ({ type: 'integer', const: c })),
    ),
    fc.record(
      {
        type: fc.constant('array'),
        items: tie('node'),
        minItems: fc.nat(2),
        maxItems: fc.nat(4),
        uniqueItems: fc.boolean(),
      },
      { requiredKeys: ['type'] },
    ),
    fc
      .record(
        {
          properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'toString'), tie('node'), { maxKeys: 3 }),
          closed: fc.boolean(),
          required: fc.subarray(['a', 'b', 'c', 'toString']),
        },
        { requiredKeys: ['properties', 'closed', 'required'] },
      )
      .map(({ properties, closed, required }) => ({
        type: 'object',
        properties,
        required: required.filter((k) => k in properties),
        ...(closed ? { additionalProperties: false } : {}),
      })),
    fc.record({ oneOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }),
  ),
})).node

/** Values near and far from the schemas: JSON, hostile-ish non-JSON, and frozen snapshots of JSON. */
const valueArb = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown),
  fc.anything({
    maxDepth: 2,
    withNullPrototype: true,
    withBigInt: true,
    withMap: true,
    withSparseArray: true,
  }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => {
    const snap = snapshotJson(JSON.parse(JSON.stringify(v)), { freeze: true })
    return snap.ok ? snap.value : v
  }),
  fc.dictionary(
    fc.constantFrom('a', 'b', 'c'),
    fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null)),
  ),
)

describe('S4 the fast test and the report', () => {
  it('S4.16: the fast test accepts a value exactly when the report lists no violation, frozen snapshots included', () => {
    fc.assert(
      fc.property(schemaArb, valueArb, (schema, value) => {
        let verdicts: ReturnType<typeof fastAndReport>
        try {
          verdicts = fastAndReport(schema, value)
        } catch (error) {
          // A generated schema outside the subset (S3.7) proves nothing here.
          expect((error as { code?: unknown }).code).toBe('UNSUPPORTED_SCHEMA')
          return
        }
        const { fast, report } = verdicts
        // A fast test may throw only where the report names a violation (a hostile read).
        if (fast === 'threw') expect(report).not.toEqual([])
        else expect(fast).toBe(report.length === 0)
      }),
      { numRuns: 3000 },
    )
  })
})
