import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type JsonValue, parseFrozenJson, parseToolArguments, snapshotJson } from '../src/index.js'
import { isFrozenSnapshot } from '../src/internal.js'
import { isDeepFrozen, note, rawTool, runtimeWith, sumTool } from './pipeline.fixtures.js'

const live = new AbortController().signal

/** A tool that records the arguments object its body receives. */
const recorder = (seen: unknown[]) =>
  rawTool('probe', { description: 'Records its arguments.', execute: (args: unknown) => note(seen, args, 1) })

describe('Q3.2 parseFrozenJson: JSON text straight into a frozen snapshot', () => {
  it('Q3.2: lossless JSON text parses to a deep-frozen snapshot deep-equal to JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v)
        const parsed = parseFrozenJson(text)
        const expected = JSON.parse(text) as unknown
        const lossless = snapshotJson(expected)
        expect(parsed.ok).toBe(lossless.ok)
        if (!parsed.ok) return
        expect(parsed.value).toStrictEqual(expected)
        expect(isDeepFrozen(parsed.value)).toBe(true)
        if (typeof parsed.value === 'object' && parsed.value !== null) {
          expect(isFrozenSnapshot(parsed.value)).toBe(true)
        }
      }),
    )
  })

  it('Q3.2: text that is not JSON, or JSON that is not lossless, gives the reason', () => {
    expect(parseFrozenJson('{"a": nope}', 'arguments')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^arguments is not valid JSON: /),
    })
    expect(parseFrozenJson('{"a":[1, 1e400]}', 'arguments')).toEqual({
      ok: false,
      reason: 'arguments.a[1] is not a finite number',
    })
    expect(parseFrozenJson('{"b":{"c":-0}}')).toEqual({ ok: false, reason: 'value.b.c is -0' })
    expect(parseFrozenJson('-0')).toEqual({ ok: false, reason: 'value is -0' })
    expect(parseFrozenJson('"text"')).toEqual({ ok: true, value: 'text' })
  })

  it('Q3.2: a __proto__ key stays an own data property; 5,000 levels parse without a stack overflow', () => {
    const parsed = parseFrozenJson('{"__proto__":{"x":1}}')
    if (!parsed.ok) throw new Error(parsed.reason)
    const value = parsed.value as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
    expect(Object.isFrozen(Object.getOwnPropertyDescriptor(value, '__proto__')!.value)).toBe(true)
    const deep = parseFrozenJson(`${'['.repeat(5000)}${']'.repeat(5000)}`)
    expect(deep.ok).toBe(true)
  })

  it('Q3.2: execute takes the parsed tree as is: the body gets the same object', async () => {
    const seen: unknown[] = []
    const runtime = runtimeWith(recorder(seen))
    const parsed = parseFrozenJson('{"path":"/srv","items":[{"n":1}]}', 'arguments')
    if (!parsed.ok) throw new Error(parsed.reason)
    const result = await runtime.execute({
      callId: 'c1',
      name: 'probe',
      arguments: parsed.value,
      signal: live,
    })
    expect(result.isError).toBe(false)
    expect(seen[0]).toBe(parsed.value)
  })

  it('Q3.2: parseToolArguments with freeze parses by L4.1 into a frozen snapshot; non-lossless JSON stays unfrozen', () => {
    const frozen = parseToolArguments('{"a":[1,2]}', { freeze: true })
    expect(frozen).toEqual({ a: [1, 2] })
    expect(isFrozenSnapshot(frozen)).toBe(true)
    expect(parseToolArguments('not json', { freeze: true })).toBe('not json')
    expect(parseToolArguments('  ', { freeze: true })).toEqual({})
    const overflow = parseToolArguments('{"a":1e400}', { freeze: true }) as { a: number }
    expect(overflow.a).toBe(Number.POSITIVE_INFINITY)
    expect(Object.isFrozen(overflow)).toBe(false)
    expect(isFrozenSnapshot(parseToolArguments('{"a":1}'))).toBe(false)
  })
})

describe('Q3.3 snapshotJson share: frozen snapshots inside a value are kept, not copied', () => {
  it('Q3.3: with share, a frozen snapshot inside the value is the same object in the copy', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const inner = snapshotJson(v, { freeze: true })
        if (!inner.ok) return
        const outer = { wrap: [inner.value], other: { n: 1 } }
        const shared = snapshotJson(outer, { freeze: true, share: true })
        const copied = snapshotJson(outer, { freeze: true })
        if (!shared.ok || !copied.ok) throw new Error('unreachable')
        const sharedValue = shared.value as { wrap: JsonValue[]; other: object }
        expect(sharedValue.wrap[0]).toBe(inner.value)
        expect(sharedValue.other).not.toBe(outer.other)
        expect(shared.value).toStrictEqual(copied.value)
        if (typeof inner.value === 'object' && inner.value !== null) {
          expect((copied.value as { wrap: JsonValue[] }).wrap[0]).not.toBe(inner.value)
        }
      }),
    )
  })

  it('Q3.3: a success result is a frozen snapshot, kept as is by a sharing snapshot', async () => {
    const runtime = runtimeWith(sumTool())
    const result = await runtime.execute({
      callId: 'c',
      name: 'add',
      arguments: { a: 1, b: 2 },
      signal: live,
    })
    expect(isFrozenSnapshot(result)).toBe(true)
    const event = snapshotJson({ callId: 'c', result }, { freeze: true, share: true })
    if (!event.ok) throw new Error(event.reason)
    expect((event.value as { result: unknown }).result).toBe(result)
  })
})
