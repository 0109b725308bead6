import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { wrapLine } from '../src/display/wrap.js'

describe('wrapLine', () => {
  it('K2.7: every line fits the width, continuations carry the indent, and nothing is lost', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', ',', '{', '"'), maxLength: 400 })
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 16, max: 120 }),
        fc.constantFrom('', '  ', '      '),
        (line, width, indent) => {
          const lines = wrapLine(line, width, indent)
          for (const part of lines) expect([...part].length).toBeLessThanOrEqual(width)
          for (const part of lines.slice(1)) expect(part.startsWith(indent)).toBe(true)
          expect(
            lines[0]! +
              lines
                .slice(1)
                .map((part) => part.slice(indent.length))
                .join(''),
          ).toBe(line)
        },
      ),
    )
  })

  it('K2.7: breaks after a comma or space in the second half of the line, and never without a width', () => {
    expect(wrapLine('{"a":1,"bb":2,"ccc":3}', 16, '  ')).toEqual(['{"a":1,"bb":2,', '  "ccc":3}'])
    expect(wrapLine('x'.repeat(30), 16, '  ')).toEqual(['x'.repeat(16), `  ${'x'.repeat(14)}`])
    expect(wrapLine('x'.repeat(300), undefined, '  ')).toEqual(['x'.repeat(300)])
  })
})
