import vm from 'node:vm'
import { compileValidator, defineTool, validateValue } from '@tooltx/core'
import { compileParameters, compileValueSchema } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const person = compileValueSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', required: true },
    age: { type: 'integer', required: true },
    tags: { type: 'array', items: { type: 'string' } },
    address: {
      type: 'object',
      additionalProperties: true,
      properties: { city: { type: 'string', required: true } },
    },
  },
})

describe('S4 validation and messages', () => {
  it('S4.1: total over hostile values (getters, revoked proxies, cycles, BigInt, sparse arrays, other realms)', () => {
    const schemas = [
      person,
      compileParameters({
        a: { type: 'json' },
        b: { type: 'array' },
        c: { type: 'object', additionalProperties: true },
      }),
      compileValueSchema({ oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }] }),
      {},
    ]
    const revoked = () => {
      const r = Proxy.revocable({}, {})
      r.revoke()
      return r.proxy
    }
    const throwingGetter = () =>
      Object.defineProperty({}, 'name', {
        enumerable: true,
        get() {
          throw new Error('boom')
        },
      })
    const cyclic = () => {
      const o: Record<string, unknown> = { name: 'x', age: 1 }
      o.address = o
      o.a = o
      return o
    }
    const trapping = () =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap')
          },
          getPrototypeOf() {
            throw new Error('trap')
          },
        },
      )
    const makers = [
      revoked,
      throwingGetter,
      cyclic,
      trapping,
      () => 1n,
      // biome-ignore lint/suspicious/noSparseArray: hostile input
      () => [1, , 3],
      () => vm.runInNewContext('({ name: "x", age: 1, tags: ["a"], address: { city: "c" } })'),
      () => Symbol('s'),
      () => () => 1,
      () => new Date(0),
    ]
    // fast-check only sees a plain recipe; the hostile value is built inside the property.
    type Recipe =
      | { hostile: number }
      | { json: unknown }
      | { object: [string, Recipe][] }
      | { array: Recipe[] }
    const recipe = fc.letrec<{ r: Recipe }>((tie) => ({
      r: fc.oneof(
        { depthSize: 'small' },
        fc.nat(makers.length - 1).map((hostile) => ({ hostile })),
        fc.jsonValue({ maxDepth: 1 }).map((json) => ({ json })),
        fc
          .array(fc.tuple(fc.constantFrom('name', 'age', 'tags', 'address', 'a', 'b', 'c'), tie('r')), {
            maxLength: 4,
          })
          .map((object) => ({ object })),
        fc.array(tie('r'), { maxLength: 3 }).map((array) => ({ array })),
      ),
    })).r
    const build = (r: Recipe): unknown => {
      if ('hostile' in r) return makers[r.hostile]!()
      if ('json' in r) return r.json
      if ('array' in r) return r.array.map(build)
      const o: Record<string, unknown> = {}
      for (const [k, v] of r.object) o[k] = build(v)
      return o
    }
    fc.assert(
      fc.property(
        recipe,
        fc.constantFrom(...schemas),
        fc.constantFrom('value', 'arguments'),
        (r, schema, root) => {
          const out = validateValue(schema, build(r), root as 'value' | 'arguments')
          expect(Array.isArray(out)).toBe(true)
          for (const message of out) expect(typeof message).toBe('string')
        },
      ),
      { numRuns: 500 },
    )
    expect(validateValue(person, throwingGetter(), 'value')).toEqual([
      'missing required property "value.age"',
      '"value.name" must be a lossless JSON value',
    ])
    expect(validateValue(person, revoked(), 'value')).toEqual(['"value" must be a lossless JSON value'])
    expect(validateValue({}, cyclic(), 'value')).toEqual(['"value" must be a lossless JSON value'])
    expect(validateValue({}, 1n, 'value')).toEqual(['"value" must be a lossless JSON value'])
    expect(validateValue({ type: 'array' }, new Array(3), 'value')).toEqual([
      '"value" must be a dense lossless JSON array',
    ])
  })

  it('S4.2: paths start at value or arguments; argument root properties have no prefix', () => {
    const params = compileParameters({
      list: {
        type: 'array',
        items: { type: 'object', additionalProperties: true, properties: { n: { type: 'number' } } },
      },
    })
    expect(validateValue(params, { list: [{ n: 1 }, { n: 'x' }] }, 'arguments')).toEqual([
      '"list[1].n" must be a number',
    ])
    expect(validateValue(params, { list: [{ n: 1 }, { n: 'x' }] }, 'value')).toEqual([
      '"value.list[1].n" must be a number',
    ])
    expect(validateValue({ type: 'array', items: { type: 'null' } }, [null, 0], 'arguments')).toEqual([
      '"arguments[1]" must be null',
    ])
    expect(validateValue(params, [], 'arguments')).toEqual(['"arguments" must be an object'])
  })

  it('S4.3: type, finite-number, enum and const messages are exact', () => {
    const cases: [object, unknown, string][] = [
      [{ type: 'string' }, 1, '"value" must be a string'],
      [{ type: 'number' }, '1', '"value" must be a number'],
      [{ type: 'number' }, Number.NaN, '"value" must be a finite JSON number'],
      [{ type: 'number' }, Number.POSITIVE_INFINITY, '"value" must be a finite JSON number'],
      [{ type: 'integer' }, -0, '"value" must be a finite JSON number'],
      [{ type: 'integer' }, 1.5, '"value" must be an integer'],
      [{ type: 'integer' }, 'x', '"value" must be an integer'],
      [{ type: 'boolean' }, 0, '"value" must be a boolean'],
      [{ type: 'null' }, undefined, '"value" must be null'],
      [{ type: 'array' }, {}, '"value" must be an array'],
      [{ type: 'object' }, [], '"value" must be an object'],
      [{ type: 'string', enum: ['a', 'b'] }, 'c', '"value" must be one of ["a","b"]'],
      [{ type: 'number', const: 3 }, 4, '"value" must be 3'],
      [{ type: 'string', const: 'x"y' }, 'z', '"value" must be "x\\"y"'],
    ]
    for (const [schema, value, message] of cases)
      expect(validateValue(schema, value, 'value')).toEqual([message])
  })

  it('S4.4: structure messages are exact', () => {
    const closed = { type: 'object', properties: { a: {} }, required: ['a'], additionalProperties: false }
    expect(validateValue(closed, { b: 1 }, 'value')).toEqual([
      'missing required property "value.a"',
      '"value.b" is not a declared property (additionalProperties: false)',
    ])
    const one = { oneOf: [{ type: 'number' }, { type: 'integer' }] }
    expect(validateValue(one, 1, 'value')).toEqual([
      '"value" must match exactly one oneOf branch (matched 2)',
    ])
    expect(validateValue(one, 'x', 'value')).toEqual([
      '"value" must match exactly one oneOf branch (matched 0)',
    ])
    expect(validateValue({}, Number.NaN, 'value')).toEqual(['"value" must be a lossless JSON value'])
    expect(validateValue({ type: 'object' }, { a: () => 1 }, 'value')).toEqual([
      '"value" must be a lossless JSON object',
    ])
    expect(validateValue({ type: 'array' }, [undefined], 'value')).toEqual([
      '"value" must be a dense lossless JSON array',
    ])
  })

  it('S4.5: missing required keys, then declared children in order, then undeclared keys; losslessness last', () => {
    const schema = {
      type: 'object',
      properties: { z: { type: 'string' }, a: { type: 'string' }, m: { type: 'string' } },
      required: ['m', 'z'],
      additionalProperties: false,
    }
    expect(validateValue(schema, { q: 1, a: 1, p: 2 }, 'value')).toEqual([
      'missing required property "value.m"',
      'missing required property "value.z"',
      '"value.a" must be a string',
      '"value.q" is not a declared property (additionalProperties: false)',
      '"value.p" is not a declared property (additionalProperties: false)',
    ])
    const open = { type: 'object', properties: { a: { type: 'string' } } }
    const withSymbol = { a: 1, [Symbol('s')]: 1 }
    expect(validateValue(open, withSymbol, 'value')).toEqual(['"value.a" must be a string'])
    expect(validateValue(open, { ...withSymbol, a: 'x' }, 'value')).toEqual([
      '"value" must be a lossless JSON object',
    ])
  })

  it('S4.6: a key holding undefined is missing for required and fails the losslessness of an open object', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }
    expect(validateValue(schema, { a: undefined }, 'value')).toEqual(['missing required property "value.a"'])
    const optional = { type: 'object', properties: { a: { type: 'string' } } }
    expect(validateValue(optional, { a: undefined }, 'value')).toEqual([
      '"value" must be a lossless JSON object',
    ])
    expect(validateValue(optional, { b: undefined }, 'value')).toEqual([
      '"value" must be a lossless JSON object',
    ])
  })

  it('S4.7: only own properties count; an inherited toString never satisfies required', () => {
    const schema = {
      type: 'object',
      properties: { toString: {}, a: { type: 'string' } },
      required: ['toString'],
      additionalProperties: false,
    }
    expect(validateValue(schema, {}, 'value')).toEqual(['missing required property "value.toString"'])
    const inherited = Object.create({ toString: 'x' }) as object
    expect(validateValue(schema, inherited, 'value')).toEqual(['"value" must be an object'])
    expect(validateValue(schema, { toString: 'x' }, 'value')).toEqual([])
  })

  it('S4.8: plain or null-prototype objects from any realm; Date, Map, class instances and decorated arrays fail', () => {
    const open = { type: 'object', additionalProperties: true }
    expect(validateValue(open, Object.create(null), 'value')).toEqual([])
    expect(validateValue(open, vm.runInNewContext('({ a: [1, { b: 2 }] })'), 'value')).toEqual([])
    expect(validateValue({ type: 'array' }, vm.runInNewContext('[1, 2]'), 'value')).toEqual([])
    class Point {
      x = 1
    }
    for (const v of [new Date(0), new Map(), new Point(), Object.create({ x: 1 })]) {
      expect(validateValue(open, v, 'value')).toEqual(['"value" must be an object'])
    }
    const decorated = Object.assign([1, 2], { extra: true })
    expect(validateValue({ type: 'array' }, decorated, 'value')).toEqual([
      '"value" must be a dense lossless JSON array',
    ])
    class List extends Array {}
    expect(validateValue({ type: 'array' }, List.from([1]), 'value')).toEqual([
      '"value" must be a dense lossless JSON array',
    ])
  })

  it('S4.9: oneOf is exactly one', () => {
    const schema = { oneOf: [{ type: 'string' }, { type: 'string', enum: ['a'] }, { type: 'null' }] }
    expect(validateValue(schema, 'b', 'value')).toEqual([])
    expect(validateValue(schema, null, 'value')).toEqual([])
    expect(validateValue(schema, 'a', 'value')).toEqual([
      '"value" must match exactly one oneOf branch (matched 2)',
    ])
  })

  it('S4.10: open objects accept extra keys; no properties / no items checks only the container', () => {
    expect(validateValue({ type: 'object', properties: { a: {} } }, { a: 1, zz: [true] }, 'value')).toEqual(
      [],
    )
    expect(validateValue({ type: 'object' }, { q: { r: 's' } }, 'value')).toEqual([])
    expect(validateValue({ type: 'array' }, [1, 'x', null, { a: [] }], 'value')).toEqual([])
  })

  it('S4.11: validation never coerces', () => {
    expect(validateValue({ type: 'number' }, '1', 'value')).toEqual(['"value" must be a number'])
    expect(validateValue({ type: 'string', enum: ['a'] }, ' a ', 'value')).toEqual([
      '"value" must be one of ["a"]',
    ])
    const schema = { type: 'object', properties: { a: { type: 'string', default: 'x' } } }
    const value = {}
    expect(validateValue(schema, value, 'value')).toEqual([])
    expect(value).toEqual({})
  })

  it('S4.12: extra top-level argument keys are accepted; explicitly closed nested objects reject them', () => {
    const params = compileParameters({
      nested: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
    })
    expect(validateValue(params, { anything: 1, more: [null] }, 'arguments')).toEqual([])
    expect(validateValue(params, { nested: { b: 1 } }, 'arguments')).toEqual([
      '"nested.b" is not a declared property (additionalProperties: false)',
    ])
  })

  it('S4.13: an argument-validation failure is "invalid arguments: <violations joined by ; >"', async () => {
    const tool = defineTool({
      name: 'adder',
      description: 'adds',
      parameters: { a: { type: 'number', required: true }, b: { type: 'number', required: true } },
      output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
      execute: ({ a, b }) => a + b,
    })
    await expect(tool.execute({ a: 'x' } as never, {} as never)).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      name: 'ToolArgsError',
      message: 'invalid arguments: missing required property "b"; "a" must be a number',
    })
  })

  it('S4.14: output violations are the strings the runtime joins into its output-failure message', () => {
    // The runtime writes `tool "<name>" returned invalid output: <violations joined by "; ">`;
    // this pins the violations it receives for a value root.
    const schema = compileValueSchema({
      type: 'object',
      additionalProperties: false,
      properties: { n: { type: 'integer', required: true } },
    })
    const violations = validateValue(schema, { n: 1.5, x: 1 }, 'value')
    expect(`tool "t" returned invalid output: ${violations.join('; ')}`).toBe(
      'tool "t" returned invalid output: "value.n" must be an integer; "value.x" is not a declared property (additionalProperties: false)',
    )
  })

  it('S4.1: compiled validators are reusable and cached per schema; unsupported schemas never throw', () => {
    const validate = compileValidator(person)
    expect(validate({ name: 'a', age: 2, tags: ['x'], address: { city: 'c', zip: 1 } }, 'value')).toEqual([])
    expect(validate({ name: 'a', age: 2 }, 'arguments')).toEqual([])
    expect(validateValue({ type: 'string', anyOf: [] }, 'x', 'value')).toEqual([
      '"value" cannot be validated: unsupported JSON schema: schema.anyOf is not a supported keyword',
    ])
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 5000; i++) deep = { oneOf: [deep, { type: 'null' }] }
    expect(Array.isArray(validateValue(deep, 'x', 'value'))).toBe(true)
  })
})
