import { fileURLToPath } from 'node:url'
import { estimateTokens } from '@tooltx/agent'
import { describe, expect, it } from 'vitest'
import { codeModeComparison } from '../src/code-mode-comparison.js'
import { ESTIMATE_NOTE, tokenCounting } from '../src/token-counting.js'
import { keptOutput } from './viewer-fixtures.js'

const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))

/** An import that finds no `js-tiktoken`, as in an install without the optional peer. */
async function withoutTokenizer(specifier: string): Promise<never> {
  const error = new Error(`Cannot find package '${specifier}' imported from the CLI`)
  throw Object.assign(error, { code: 'ERR_MODULE_NOT_FOUND' })
}

describe('K3.23 the tokenizer is an optional peer of the CLI', () => {
  it('K3.23: with js-tiktoken installed the comparison counts exactly with o200k_base, loading only the lite entry and that rank file', async () => {
    const loaded: string[] = []
    const counting = await tokenCounting((specifier) => {
      loaded.push(specifier)
      return import(specifier)
    })
    expect(loaded).toEqual(['js-tiktoken/lite', 'js-tiktoken/ranks/o200k_base'])
    expect(counting.exact).toBe(true)
    // o200k_base's count, not the estimate's (which is ceil(11 / 3) = 4).
    expect(counting.count('hello world')).toBe(2)
    const lines: string[] = []
    expect(await codeModeComparison(keptOutput(lines), SAMPLE, counting)).toMatchObject({ exact: true })
    expect(lines.join('\n')).not.toContain('≈')
  })

  it('K3.23: without js-tiktoken the comparison counts with estimateTokens, marks every figure ≈ and says how to get exact counts', async () => {
    const counting = await tokenCounting(withoutTokenizer)
    expect(counting).toEqual({ count: estimateTokens, exact: false })
    const lines: string[] = []
    const result = await codeModeComparison(keptOutput(lines), SAMPLE, counting)
    expect(result.exact).toBe(false)
    expect(result.codeTokens).toBeLessThan(result.nativeTokens)
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^ {2}native: {4}\\d+ tool results, ≈${result.nativeTokens} tokens entered`),
      ),
    )
    expect(lines).toContain(`  Code Mode: 1 tool result,  ≈${result.codeTokens} tokens entered the context`)
    expect(lines.at(-2)).toMatch(/^ {2}saving: +≈\d+\.\d% fewer tool-result tokens in Code Mode$/)
    expect(lines.at(-1)).toBe(`  ${ESTIMATE_NOTE}`)
    expect(ESTIMATE_NOTE).toContain('npm install js-tiktoken gives exact o200k_base counts')
  })

  it('K3.23: a tokenizer that is installed but fails to load is an error, not a silent estimate', async () => {
    const broken = async () => {
      throw new SyntaxError('Unexpected token in o200k_base')
    }
    await expect(tokenCounting(broken)).rejects.toThrow('Unexpected token in o200k_base')
  })
})
