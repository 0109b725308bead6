import { defineTool, schemaToTypeScript, toModelSchema } from '@tooltx/core'
import { compileParameters } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

describe('S5 rendering', () => {
  it('S5.1: scalars, literals, JsonValue, arrays and oneOf', () => {
    const cases: [object, string][] = [
      [{ type: 'string' }, 'string'],
      [{ type: 'boolean' }, 'boolean'],
      [{ type: 'null' }, 'null'],
      [{ type: 'number' }, 'number'],
      [{ type: 'integer' }, 'number'],
      [{ type: 'string', const: 'a"b' }, '"a\\"b"'],
      [{ type: 'number', enum: [1, 2.5] }, '1 | 2.5'],
      [{}, 'JsonValue'],
      [{ description: 'x' }, 'JsonValue'],
      [{ type: 'array' }, 'JsonValue[]'],
      [{ type: 'array', items: { type: 'string' } }, 'string[]'],
      [{ type: 'array', items: { type: 'array', items: { type: 'null' } } }, 'null[][]'],
      [{ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'null' }] } }, '(string | null)[]'],
      [{ type: 'array', items: { type: 'object' } }, 'Record<string, JsonValue>[]'],
      [
        { type: 'array', items: { type: 'object', properties: { a: { type: 'null' } } } },
        '({\n  a?: null\n} & Record<string, JsonValue>)[]',
      ],
      [{ type: 'array', items: { type: 'object', additionalProperties: false } }, 'Record<string, never>[]'],
      [
        { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean', const: true }] },
        'string | number | true',
      ],
    ]
    for (const [schema, ts] of cases) expect(schemaToTypeScript(schema)).toBe(ts)
  })

  it('S5.2: objects render over several lines with key?:, JSDoc and the open-record intersection', () => {
    const schema = compileParameters({
      path: { type: 'string', required: true, description: 'Absolute path' },
      limit: { type: 'integer' },
      opts: {
        type: 'object',
        additionalProperties: false,
        properties: { deep: { type: 'boolean', required: true, description: 'Go deep' } },
      },
    })
    expect(schemaToTypeScript(schema)).toBe(
      [
        '{',
        '  /** Absolute path */',
        '  path: string',
        '  limit?: number',
        '  opts?: {',
        '    /** Go deep */',
        '    deep: boolean',
        '  }',
        '} & Record<string, JsonValue>',
      ].join('\n'),
    )
    expect(schemaToTypeScript({ type: 'object', additionalProperties: true })).toBe(
      'Record<string, JsonValue>',
    )
    expect(schemaToTypeScript({ type: 'object', additionalProperties: false })).toBe('Record<string, never>')
    expect(schemaToTypeScript({ type: 'object' })).toBe('Record<string, JsonValue>')
  })

  it('S5.3: identifier keys render bare, all others JSON-quoted', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { ok_$1: {}, 'needs-quote': {}, '1x': {}, '': {}, 'a"b': {} },
    }
    expect(schemaToTypeScript(schema)).toBe(
      [
        '{',
        '  ok_$1?: JsonValue',
        '  "needs-quote"?: JsonValue',
        '  "1x"?: JsonValue',
        '  ""?: JsonValue',
        '  "a\\"b"?: JsonValue',
        '}',
      ].join('\n'),
    )
  })

  it('S5.4: descriptions collapse whitespace and escape */', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'string', description: '  one\n\ttwo   three */ end ' } },
    }
    expect(schemaToTypeScript(schema)).toBe(
      ['{', '  /** one two three *\\/ end */', '  a?: string', '}'].join('\n'),
    )
  })

  it('S5.5: rendering is total; nodes outside the subset or hostile render as unknown', () => {
    expect(schemaToTypeScript({ type: 'string', not: {} })).toBe('unknown')
    expect(schemaToTypeScript(null)).toBe('unknown')
    expect(schemaToTypeScript({ type: ['string', 'null'] })).toBe('unknown')
    expect(
      schemaToTypeScript({
        type: 'object',
        additionalProperties: false,
        properties: { a: { anyOf: [] }, b: {} },
      }),
    ).toBe(['{', '  a?: unknown', '  b?: JsonValue', '}'].join('\n'))
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    expect(schemaToTypeScript({ type: 'array', items: revoked.proxy })).toBe('unknown[]')
    const cyclic: Record<string, unknown> = { type: 'array' }
    cyclic.items = cyclic
    expect(schemaToTypeScript(cyclic)).toBe('unknown[]')
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 5000; i++) deep = { type: 'array', items: deep }
    expect(schemaToTypeScript(deep)).toBe(`string${'[]'.repeat(5000)}`)
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(typeof schemaToTypeScript(value)).toBe('string')
      }),
      { numRuns: 300 },
    )
  })

  it('S5.6: a model schema is exactly { name, description, parameters }, deep-copied every call, 5,000-deep safe', () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search things',
      parameters: { q: { type: 'string', required: true } },
      output: { schema: { type: 'json' }, render: () => [] },
      execute: () => null,
      timeoutMs: 100,
    })
    const first = toModelSchema(tool)
    expect(first).toEqual({
      name: 'search',
      description: 'Search things',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    })
    expect(Object.keys(first)).toEqual(['name', 'description', 'parameters'])
    expect(first.parameters).not.toBe(tool.parameters)
    ;(first.parameters.properties as Record<string, unknown>).q = { type: 'number' }
    first.parameters.extra = true
    expect(toModelSchema(tool).parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    })
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 5000; i++) deep = { oneOf: [deep, { type: 'null' }] }
    const huge = {
      name: 'deep',
      description: '',
      parameters: { type: 'object', properties: { d: deep } },
    } as never
    const projected = toModelSchema(huge)
    const original = (huge as { parameters: unknown }).parameters
    expect(projected.parameters === original).toBe(false)
    // Walk both chains side by side (a recursive deep-equal would overflow at this depth).
    let a: any = (projected.parameters.properties as any).d
    let b: any = (original as any).properties.d
    let levels = 0
    while (b.oneOf) {
      expect(a === b).toBe(false)
      expect(a.oneOf[1]).toEqual(b.oneOf[1])
      a = a.oneOf[0]
      b = b.oneOf[0]
      levels++
    }
    expect(levels).toBe(5000)
    expect(a).toEqual(b)
  })
})
