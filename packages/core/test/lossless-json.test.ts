import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  deepFreeze,
  isLosslessJson,
  type JsonValue,
  markUnfreezable,
  type SnapshotResult,
  snapshotJson,
} from '../src/foundation/lossless-json.js'
import * as core from '../src/index.js'
import { anyValue, revoked, trapEverything } from './hostile-values.js'

/** Generated lossless JSON (the round trip removes `-0`, which J1.1 excludes). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as JsonValue)
const jsonContainer = fc
  .oneof(fc.array(json, { minLength: 1 }), fc.dictionary(fc.string(), json, { minKeys: 1 }))
  .map((v) => v as JsonValue)

function copyOf(result: SnapshotResult): JsonValue {
  if (!result.ok) throw new Error(`expected a snapshot, got: ${result.reason}`)
  return result.value
}

function reasonOf(result: SnapshotResult): string {
  if (result.ok) throw new Error('expected a rejection')
  return result.reason
}

/** Every object reachable from `v` (own enumerable data properties). */
function objectsIn(v: unknown, into = new Set<object>()): Set<object> {
  if (v === null || typeof v !== 'object' || into.has(v)) return into
  into.add(v)
  for (const child of Object.values(v)) objectsIn(child, into)
  return into
}

/** Paths (as key lists) to every container and leaf in `v`, root excluded. */
function pathsIn(v: JsonValue, prefix: string[] = [], into: string[][] = []): string[][] {
  if (v === null || typeof v !== 'object') return into
  for (const [key, child] of Object.entries(v)) {
    const path = [...prefix, key]
    into.push(path)
    pathsIn(child, path, into)
  }
  return into
}

/**
 * Rebuilds `v` with every property and slot as a counting getter (objects) or behind a counting
 * `get` trap (arrays), so a test can see how often each one was read. Reads are keyed by the
 * JSON of the key path, which no two paths share.
 */
function counted(v: JsonValue, reads: Map<string, number>, path: string[] = []): unknown {
  if (v === null || typeof v !== 'object') return v
  const count = (key: string) => {
    const at = JSON.stringify([...path, key])
    reads.set(at, (reads.get(at) ?? 0) + 1)
  }
  if (Array.isArray(v)) {
    const target = v.map((child, i) => counted(child, reads, [...path, `${i}`]))
    return new Proxy(target, {
      get(t, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) count(key)
        return Reflect.get(t, key, receiver)
      },
    })
  }
  const out = {}
  for (const [key, child] of Object.entries(v)) {
    const inner = counted(child, reads, [...path, key])
    Object.defineProperty(out, key, {
      enumerable: true,
      get() {
        count(key)
        return inner
      },
    })
  }
  return out
}

function nested(depth: number, leaf: JsonValue, kind: 'array' | 'object'): JsonValue {
  let v = leaf
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { next: v }
  return v
}

/** Values that are not lossless JSON, one per clause of J1.2. */
function lossyCorpus(): [string, unknown][] {
  const withExtra = Object.assign([1, 2], { extra: true })
  const withHiddenIndex = [1, 2]
  Object.defineProperty(withHiddenIndex, 1, { value: 2, enumerable: false })
  const withHiddenProp = [1]
  Object.defineProperty(withHiddenProp, 'hidden', { value: 1, enumerable: false })
  const withSymbolSlot = Object.assign([1], { [Symbol('s')]: 1 })
  const hiddenKey = Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false })
  const symbolKey = { a: 1, [Symbol('k')]: 2 }
  const hiddenSymbol = Object.defineProperty({}, Symbol('k'), { value: 1, enumerable: false })
  class Point {
    x = 1
  }
  class List extends Array<number> {}
  const imitation = Object.create(Object.create(null, { constructor: { value: Object } }))
  imitation.a = 1
  // An array exotic object with Object.prototype above it, like the real Array.prototype.
  const imitatingArrayProto = Object.setPrototypeOf([], Object.prototype)
  const posingArray = Object.setPrototypeOf([1, 2], imitatingArrayProto)
  // biome-ignore lint/suspicious/noSparseArray: a sparse array is the point
  const sparse = [1, , 3]
  return [
    ['undefined at the root', undefined],
    ['undefined in an array slot', [1, undefined]],
    ['undefined as a property value', { a: undefined }],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['-0', { z: -0 }],
    ['a BigInt', { big: 10n }],
    ['a function', { f: () => 1 }],
    ['a function at the root', () => 1],
    ['a symbol', [Symbol('x')]],
    ['a sparse array', sparse],
    ['an array with a trailing hole', new Array(3)],
    ['an array with an extra property', withExtra],
    ['an array with a non-enumerable index', withHiddenIndex],
    ['an array with a non-enumerable extra property', withHiddenProp],
    ['an array with a symbol-keyed property', withSymbolSlot],
    ['an object with a non-enumerable key', hiddenKey],
    ['an object with a symbol key', symbolKey],
    ['an object with a non-enumerable symbol key', hiddenSymbol],
    ['a class instance', new Point()],
    ['a Map', new Map([['a', 1]])],
    ['a Set', new Set([1])],
    ['a Date', new Date(0)],
    ['a RegExp', /x/],
    ['a boxed string', Object('s')],
    ['an array subclass', List.from([1, 2])],
    ['an object whose prototype imitates Object.prototype', imitation],
    ['an array whose prototype imitates Array.prototype', posingArray],
    ['a typed array', new Uint8Array(2)],
  ]
}

describe('J1 lossless JSON and the snapshot', () => {
  it('J1.1: null, booleans, strings, finite numbers, dense arrays and plain or null-prototype objects are lossless', () => {
    const nullProto = Object.assign(Object.create(null), { a: [1, 'x', true, null, { b: 2.5 }] })
    for (const v of [null, true, false, '', 'text', 0, -1.5, 1e308, [], {}, [[]], nullProto]) {
      expect(isLosslessJson(v)).toBe(true)
      expect(snapshotJson(v).ok).toBe(true)
    }
    expect(copyOf(snapshotJson(nullProto))).toEqual({ a: [1, 'x', true, null, { b: 2.5 }] })
    fc.assert(
      fc.property(json, (v) => {
        expect(isLosslessJson(v)).toBe(true)
        expect(copyOf(snapshotJson(v))).toEqual(v)
      }),
    )
  })

  it('J1.1: objects and arrays from another realm are plain and are copied into this realm', () => {
    const foreign = runInNewContext('({ a: [1, { b: 2 }], n: Object.create(null) })') as Record<
      string,
      unknown
    >
    expect(Object.getPrototypeOf(foreign)).not.toBe(Object.prototype)
    expect(isLosslessJson(foreign)).toBe(true)
    const copy = copyOf(snapshotJson(foreign)) as { a: [number, object]; n: object }
    expect(copy).toEqual({ a: [1, { b: 2 }], n: {} })
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(copy.a)).toBe(Array.prototype)
    expect(Object.getPrototypeOf(copy.a[1])).toBe(Object.prototype)
    expect(Object.getPrototypeOf(copy.n)).toBe(Object.prototype)
  })

  it.each(lossyCorpus())('J1.2: %s is rejected with a reason', (_what, value) => {
    expect(isLosslessJson(value)).toBe(false)
    const result = snapshotJson(value)
    expect(result.ok).toBe(false)
    expect(reasonOf(result)).toMatch(/^value\b.* (is|has) /)
  })

  it('J1.2: foreign-realm impostors are rejected: a vm object imitating Object.prototype, a vm array subclass', () => {
    const imitation = runInNewContext(
      'const fake = Object.create(null, { constructor: { value: Object } }); const o = Object.create(fake); o.a = 1; o',
    )
    expect(isLosslessJson(imitation)).toBe(false)
    expect(reasonOf(snapshotJson(imitation))).toBe('value is not a plain object')
    const subclass = runInNewContext('class L extends Array {}; L.from([1])')
    expect(isLosslessJson(subclass)).toBe(false)
    const date = runInNewContext('({ when: new Date(0) })')
    expect(reasonOf(snapshotJson(date))).toBe('value.when is not a plain object')
  })

  it('J1.2: the reason names the offending path and the root name given in options', () => {
    expect(reasonOf(snapshotJson({ items: [{ name: 'a' }, { name: undefined }] }, { root: 'args' }))).toBe(
      'args.items[1].name is undefined',
    )
    expect(reasonOf(snapshotJson([1, [2, Number.NaN]]))).toBe('value[1][1] is not a finite number')
    expect(reasonOf(snapshotJson({ a: { b: -0 } }))).toBe('value.a.b is -0')
    expect(reasonOf(snapshotJson({ a: 1n }))).toBe('value.a is a BigInt')
    expect(reasonOf(snapshotJson(undefined, { root: 'arguments' }))).toBe('arguments is undefined')
  })

  it('J1.3: a value containing itself on its ancestor path is rejected as a cycle', () => {
    const self: Record<string, unknown> = { a: 1 }
    self.self = self
    expect(reasonOf(snapshotJson(self))).toBe('value.self is circular')
    const loop: unknown[] = [1, { inner: [] as unknown[] }]
    ;(loop[1] as { inner: unknown[] }).inner.push(loop)
    expect(reasonOf(snapshotJson(loop))).toBe('value[1].inner[0] is circular')
    expect(isLosslessJson(self)).toBe(false)
    // A cycle found beyond the shallow stack scan, through the Set of ancestors.
    const deep = nested(100, null, 'object') as Record<string, unknown>
    let tail = deep
    for (let i = 0; i < 99; i++) tail = tail.next as Record<string, unknown>
    tail.next = deep.next
    expect(reasonOf(snapshotJson(deep))).toMatch(/ is circular$/)
  })

  it('J1.3: the same object reachable twice without a cycle is copied twice as independent subtrees', () => {
    const shared = { x: [1, 2] }
    const copy = copyOf(snapshotJson({ left: shared, right: shared, list: [shared, shared] })) as Record<
      string,
      unknown
    > & { left: typeof shared; right: typeof shared; list: (typeof shared)[] }
    expect(copy.left).toEqual(shared)
    expect(copy.left).not.toBe(copy.right)
    expect(copy.left.x).not.toBe(copy.right.x)
    expect(copy.list[0]).not.toBe(copy.list[1])
    copy.left.x.push(3)
    expect(copy.right.x).toEqual([1, 2])
    // A shared subtree below 32 levels (where ancestors move to a Set) is not a cycle either.
    const deepShared = nested(40, { leaf: true }, 'array')
    expect(isLosslessJson({ a: deepShared, b: deepShared })).toBe(true)
  })

  it('J1.4: the snapshot is a fresh tree sharing no object with the input, and later mutation of the input never changes it', () => {
    fc.assert(
      fc.property(jsonContainer, fc.string(), (v, key) => {
        const before = structuredClone(v)
        const copy = copyOf(snapshotJson(v))
        const inputObjects = objectsIn(v)
        for (const object of objectsIn(copy)) expect(inputObjects.has(object)).toBe(false)
        // Mutate every container of the input.
        for (const object of inputObjects) {
          if (Array.isArray(object)) object.push('mutated')
          else (object as Record<string, JsonValue>)[key] = 'mutated'
        }
        expect(copy).toEqual(before)
      }),
    )
  })

  it('J1.5: every property and array slot is read exactly once', () => {
    fc.assert(
      fc.property(jsonContainer, (v) => {
        const reads = new Map<string, number>()
        const copy = copyOf(snapshotJson(counted(v, reads)))
        expect(copy).toEqual(v)
        const expected = pathsIn(v).length
        expect(reads.size).toBe(expected)
        for (const [path, count] of reads) expect({ path, count }).toEqual({ path, count: 1 })
      }),
      { examples: [[{ '.': [], '': { '': 0 } }]] },
    )
  })

  it('J1.5: a getter cannot show one value to the check and another to the copy', () => {
    let reads = 0
    const shifty = {
      get value() {
        reads++
        return reads === 1 ? 'checked' : undefined
      },
    }
    expect(copyOf(snapshotJson(shifty))).toEqual({ value: 'checked' })
    expect(reads).toBe(1)
    let arrayReads = 0
    const shiftyArray = new Proxy([1], {
      get: (t, k, r) => (k === '0' ? (++arrayReads === 1 ? { ok: true } : 10n) : Reflect.get(t, k, r)),
    })
    expect(copyOf(snapshotJson(shiftyArray))).toEqual([{ ok: true }])
    expect(arrayReads).toBe(1)
  })

  it('J1.6: a getter that throws at any path makes the snapshot throw that exception after exactly one read, and isLosslessJson false', () => {
    fc.assert(
      fc.property(
        jsonContainer.chain((v) => fc.record({ v: fc.constant(v), at: fc.nat(pathsIn(v).length - 1) })),
        ({ v, at }) => {
          const target = pathsIn(v)[at]!
          const boom = new Error(`boom at ${target.join('/')}`)
          let reads = 0
          const build = (node: JsonValue, path: string[]): unknown => {
            if (node === null || typeof node !== 'object') return node
            const out: Record<string, unknown> | unknown[] = Array.isArray(node) ? [] : {}
            for (const [key, child] of Object.entries(node)) {
              const here = [...path, key]
              const inner = build(child, here)
              const hit = here.length === target.length && here.every((k, i) => k === target[i])
              Object.defineProperty(out, key, {
                enumerable: true,
                configurable: true,
                ...(hit
                  ? {
                      get() {
                        reads++
                        throw boom
                      },
                    }
                  : { value: inner, writable: true }),
              })
            }
            return out
          }
          const hostile = build(v, [])
          let thrown: unknown
          try {
            snapshotJson(hostile)
          } catch (error) {
            thrown = error
          }
          expect(thrown).toBe(boom)
          expect(reads).toBe(1)
          expect(isLosslessJson(hostile)).toBe(false)
        },
      ),
    )
  })

  it('J1.7: toJSON is ignored and accessor properties are read through their getters', () => {
    expect(reasonOf(snapshotJson({ toJSON: () => ({ fine: true }) }))).toBe('value.toJSON is a function')
    expect(copyOf(snapshotJson({ toJSON: 'just a key' }))).toEqual({ toJSON: 'just a key' })
    const withAccessor = {
      get computed() {
        return [1, 2]
      },
    }
    const copy = copyOf(snapshotJson(withAccessor)) as { computed: number[] }
    expect(copy).toEqual({ computed: [1, 2] })
    expect(Object.getOwnPropertyDescriptor(copy, 'computed')).toMatchObject({ value: [1, 2], writable: true })
  })

  it('J1.8: the copy uses the intrinsic prototypes and keeps a key named __proto__ as an own data property', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "list": [{"__proto__": null}]}') as object
    for (const freeze of [false, true]) {
      const copy = copyOf(snapshotJson(parsed, { freeze })) as Record<string, unknown> & {
        list: Record<string, unknown>[]
      }
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
      expect(Object.hasOwn(copy, '__proto__')).toBe(true)
      expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ polluted: true })
      expect((copy as { polluted?: unknown }).polluted).toBeUndefined()
      expect(Object.getPrototypeOf(copy.list)).toBe(Array.prototype)
      expect(Object.getPrototypeOf(copy.list[0])).toBe(Object.prototype)
      expect(Object.getOwnPropertyDescriptor(copy.list[0], '__proto__')?.value).toBeNull()
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('J1.9: values nested 5,000 levels deep are checked and copied without a stack overflow', () => {
    for (const kind of ['array', 'object'] as const) {
      const deep = nested(5_000, 'bottom', kind)
      expect(isLosslessJson(deep)).toBe(true)
      const copy = copyOf(snapshotJson(deep, { freeze: true }))
      let node: unknown = copy
      for (let i = 0; i < 5_000; i++) {
        expect(Object.isFrozen(node)).toBe(true)
        node = kind === 'array' ? (node as unknown[])[0] : (node as { next: unknown }).next
      }
      expect(node).toBe('bottom')
      expect(isLosslessJson(nested(5_000, undefined as unknown as JsonValue, kind))).toBe(false)
      expect(() => deepFreeze(nested(5_000, 'bottom', kind))).not.toThrow()
    }
  })

  it('J1.10: a Proxy that presents as a plain object or array is copied', () => {
    const object = new Proxy({ a: 1, b: [true] }, {})
    const array = new Proxy([1, { c: 'x' }], {})
    const computed = new Proxy({} as Record<string, unknown>, {
      ownKeys: () => ['answer'],
      getOwnPropertyDescriptor: () => ({ value: 42, enumerable: true, configurable: true, writable: true }),
      get: (_t, key) => (key === 'answer' ? 42 : undefined),
    })
    expect(copyOf(snapshotJson({ object, array, computed }))).toEqual({
      object: { a: 1, b: [true] },
      array: [1, { c: 'x' }],
      computed: { answer: 42 },
    })
    const copy = copyOf(snapshotJson(object))
    expect(copy).not.toBe(object)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
  })

  it('J1.10: a Proxy trap that throws propagates like a throwing getter', () => {
    for (const trap of ['get', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'] as const) {
      const boom = new Error(trap)
      const proxy = new Proxy(
        { a: 1 },
        {
          [trap]: () => {
            throw boom
          },
        },
      )
      expect(() => snapshotJson({ nested: proxy })).toThrow(boom)
      expect(isLosslessJson({ nested: proxy })).toBe(false)
    }
    expect(() => snapshotJson(revoked())).toThrow(TypeError)
    const lying = new Proxy({ a: 1 }, { getPrototypeOf: () => Map.prototype })
    expect(reasonOf(snapshotJson(lying))).toBe('value is not a plain object')
  })

  it('J1.11: isLosslessJson is the snapshot itself, so lossless JSON means one thing everywhere', () => {
    // The index re-exports this module's single implementation.
    expect(core.snapshotJson).toBe(snapshotJson)
    expect(core.isLosslessJson).toBe(isLosslessJson)
    const verdict = (v: unknown) => {
      try {
        return snapshotJson(v).ok
      } catch {
        return false
      }
    }
    for (const [, v] of lossyCorpus()) expect(isLosslessJson(v)).toBe(verdict(v))
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withSparseArray: true }),
        (v) => {
          expect(isLosslessJson(v)).toBe(verdict(v))
        },
      ),
    )
  })

  it('J1.1: hostile input never throws out of isLosslessJson', () => {
    const cyclic: unknown[] = []
    cyclic.push(cyclic)
    const throwingGetter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('getter')
      },
    })
    const hostile: unknown[] = [
      trapEverything(new Error('trap')),
      trapEverything('a string thrown by a trap'),
      revoked(),
      { inner: revoked() },
      [trapEverything(undefined)],
      cyclic,
      throwingGetter,
      10n,
      Symbol('s'),
      runInNewContext('(() => { const o = {}; o.o = o; return o })()'),
    ]
    for (const v of hostile) expect(() => isLosslessJson(v)).not.toThrow()
    for (const v of hostile) expect(isLosslessJson(v)).toBe(false)
    fc.assert(
      fc.property(anyValue, (v) => {
        expect(typeof isLosslessJson(v)).toBe('boolean')
      }),
    )
  })

  it('J1.4: with { freeze: true } the whole copy is frozen; without it nothing is', () => {
    fc.assert(
      fc.property(jsonContainer, (v) => {
        const frozen = copyOf(snapshotJson(v, { freeze: true }))
        for (const object of objectsIn(frozen)) expect(Object.isFrozen(object)).toBe(true)
        const thawed = copyOf(snapshotJson(v))
        for (const object of objectsIn(thawed)) expect(Object.isFrozen(object)).toBe(false)
      }),
    )
  })
})

describe('J2 deep freeze', () => {
  it('J2.1: deepFreeze freezes the value and every own enumerable descendant and returns the value itself', () => {
    fc.assert(
      fc.property(jsonContainer, (v) => {
        expect(deepFreeze(v)).toBe(v)
        for (const object of objectsIn(v)) expect(Object.isFrozen(object)).toBe(true)
      }),
    )
    expect(deepFreeze(5)).toBe(5)
    expect(deepFreeze(null)).toBeNull()
  })

  it('J2.1: deepFreeze is cycle-safe, iterative and never invokes getters', () => {
    const cyclic: Record<string, unknown> = { list: [] }
    ;(cyclic.list as unknown[]).push(cyclic, { leaf: 1 })
    expect(deepFreeze(cyclic)).toBe(cyclic)
    expect(Object.isFrozen(cyclic.list)).toBe(true)
    expect(Object.isFrozen((cyclic.list as object[])[1])).toBe(true)
    let calls = 0
    const withGetter = {
      get lazy() {
        calls++
        return {}
      },
    }
    deepFreeze(withGetter)
    expect(calls).toBe(0)
    expect(Object.isFrozen(withGetter)).toBe(true)
    const deep = nested(5_000, { end: [] }, 'object')
    deepFreeze(deep)
    expect(Object.isFrozen(deep)).toBe(true)
  })

  it('J2.2: deepFreeze leaves AbortSignals and objects marked unfreezable (scopes) unfrozen', () => {
    const controller = new AbortController()
    const scope = { layer: { tools: [] as string[] } }
    markUnfreezable(scope)
    const execution = { signal: controller.signal, scope, args: { a: [1] } }
    deepFreeze(execution)
    expect(Object.isFrozen(execution)).toBe(true)
    expect(Object.isFrozen(execution.args.a)).toBe(true)
    expect(Object.isFrozen(controller.signal)).toBe(false)
    expect(Object.isFrozen(scope)).toBe(false)
    expect(Object.isFrozen(scope.layer)).toBe(false)
    scope.layer.tools.push('still mutable')
    controller.abort()
    expect(execution.signal.aborted).toBe(true)
  })

  it('J2.3: snapshotting with freeze never freezes or mutates the caller’s original object', () => {
    fc.assert(
      fc.property(jsonContainer, (v) => {
        const before = structuredClone(v)
        const copy = copyOf(snapshotJson(v, { freeze: true }))
        expect(Object.isFrozen(copy)).toBe(true)
        expect(v).toEqual(before)
        for (const object of objectsIn(v)) {
          expect(Object.isExtensible(object)).toBe(true)
          expect(Object.isFrozen(object)).toBe(false)
        }
      }),
    )
    const args = { path: '/tmp/x', options: { lines: [1, 2] } }
    snapshotJson(args, { freeze: true })
    args.path = '/tmp/y'
    args.options.lines.push(3)
    expect(args).toEqual({ path: '/tmp/y', options: { lines: [1, 2, 3] } })
  })
})
