import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { codeModeComparison } from '../src/code-mode-comparison.js'
import { keptOutput } from './viewer-fixtures.js'

const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))

describe('the Code Mode comparison of the demo', () => {
  it('M2.3, X3.3: one run_code program returns a compact summary and saves at least 60% of tool-result tokens', async () => {
    const lines: string[] = []
    const { nativeTokens, codeTokens } = await codeModeComparison(keptOutput(lines), SAMPLE)
    // The sample is fixed, so both counts are: the Code Mode result is the one-line-per-file summary.
    expect({ nativeTokens, codeTokens }).toEqual({ nativeTokens: 413, codeTokens: 30 })
    expect(lines).toContain(`  Code Mode: 1 tool result,  ${codeTokens} tokens entered the context`)
    expect(codeTokens).toBeLessThanOrEqual(nativeTokens * 0.4)
    // On a mismatch the whole printout is the message, so a failure shows what run_code said.
    expect(lines, lines.join('\n')).toContain('    │ src/inventory.ts: 22 lines, TODO at 9, 19')
    expect(lines).toContain('    │ src/pricing.ts: 9 lines, TODO at 2')
    expect(lines.at(-1)).toMatch(/saving: +\d+\.\d% fewer tool-result tokens in Code Mode/)
  })
})
