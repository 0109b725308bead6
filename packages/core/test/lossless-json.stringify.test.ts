import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type JsonValue, stringifyJson } from '../src/foundation/lossless-json.js'

/** Generated lossless JSON (the round trip removes `-0`, which J1.1 excludes). */
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as JsonValue)

describe('J1.12 stringifyJson', () => {
  it('J1.12: the text equals JSON.stringify for any lossless JSON value (property)', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(stringifyJson(value)).toBe(JSON.stringify(value))
      }),
    )
  })

  it('J1.12: any value under 5,000 levels of arrays is written exactly as JSON.stringify writes it (property)', () => {
    fc.assert(
      fc.property(json, fc.integer(), (value, n) => {
        // The bottom holds an own "__proto__" key, which must be written as a plain key.
        const text = `{"__proto__":${JSON.stringify(value)},"n":${n}}`
        let deep = JSON.parse(text) as JsonValue
        for (let i = 0; i < 5_000; i++) deep = [i, deep]
        const prefix = Array.from({ length: 5_000 }, (_, i) => `[${4_999 - i},`).join('')
        expect(stringifyJson(deep)).toBe(`${prefix}${text}${']'.repeat(5_000)}`)
      }),
      { numRuns: 20 },
    )
  })

  it('J1.12: values nested 5,000 and 100,000 levels deep are written without a stack overflow', () => {
    for (const depth of [5_000, 100_000]) {
      let arrays: JsonValue = 'bottom'
      let objects: JsonValue = 'bottom'
      for (let i = 0; i < depth; i++) {
        arrays = [arrays]
        objects = { next: objects }
      }
      expect(() => JSON.stringify(arrays)).toThrow(RangeError)
      expect(stringifyJson(arrays)).toBe(`${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`)
      expect(stringifyJson(objects)).toBe(`${'{"next":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`)
    }
  })
})
