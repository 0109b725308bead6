/** K2.27: every count the CLI prints is singular for exactly one: `1 more line`, `2 more lines`. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resultBody } from '../src/display/card-text.js'
import { counted } from '../src/display/counted.js'

describe('K2.27 counts', () => {
  it('K2.27: a card clipped by one line says "1 more line", by more says "<n> more lines"', () => {
    const output = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n')
    expect(resultBody({ card: 'terminal', output: output(9) }).at(-1)).toBe('… 1 more line')
    expect(resultBody({ card: 'terminal', output: output(10) }).at(-1)).toBe('… 2 more lines')
    expect(
      resultBody({ card: 'search', shape: 'matches', files: [], truncated: false, total: 1 }).at(-1),
    ).toBe('1 match')
  })

  it('K2.27: counted is singular for exactly one and plural for every other count', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), (n) => {
        const said = counted(n, 'match', 'matches')
        expect(said).toBe(`${n.toLocaleString('en-US')} ${n === 1 ? 'match' : 'matches'}`)
        expect(counted(n, 'line').endsWith(n === 1 ? ' line' : ' lines')).toBe(true)
      }),
    )
  })
})
