/**
 * Schemas compiled more than once, and schemas whose patterns must not run on a backtracking
 * engine (S4.17–S4.19).
 */
import { compileValidator, createToolRuntime, defineTool, type PatternEngine, ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { expectFailure, live } from './pipeline.fixtures.js'

describe('S4.17–S4.19 schemas compiled again, patterns run by an engine of the caller', () => {
  it('S4.17: one JSON Schema $id outside the subset compiles into any number of tools, each validating on its own', async () => {
    const schema = (minimum: number) => ({
      $id: 'https://example.com/schemas/args',
      type: 'object' as const,
      properties: { n: { type: 'integer', minimum }, s: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['n'],
    })
    const rt = createToolRuntime()
    for (const [name, minimum] of [
      ['one', 1],
      ['two', 5],
      ['three', 10],
    ] as const)
      rt.register(
        defineTool({
          name,
          description: '',
          parameters: schema(minimum),
          output: { schema: { type: 'integer' } },
          execute: (args) => (args as { n: number }).n,
        }),
      )
    const call = (name: string, n: number) =>
      rt.execute({ callId: `${name}${n}`, name, arguments: { n }, signal: live() })
    expect((await call('one', 2)).isError).toBe(false)
    expectFailure(await call('two', 2), 'INVALID_ARGS', 'invalid arguments: "n" must be >= 5')
    expectFailure(await call('three', 9), 'INVALID_ARGS', 'invalid arguments: "n" must be >= 10')
  })

  it('S4.18: compileValidator runs each pattern through options.patterns; the default is RegExp with the u flag', () => {
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' }, list: { type: 'array' } },
    }
    const compiledWith: string[] = []
    const tested: string[] = []
    const engine: PatternEngine = (pattern) => {
      compiledWith.push(pattern)
      const regex = new RegExp(pattern, 'u')
      return {
        test: (text) => {
          tested.push(text)
          return regex.test(text)
        },
      }
    }
    const validate = compileValidator(schema, { patterns: engine })
    expect(compiledWith.length).toBeGreaterThan(0)
    expect(new Set(compiledWith)).toEqual(new Set(['^[A-Z]{3}$']))
    expect(validate({ code: 'ABC' }, 'arguments')).toEqual([])
    expect(validate({ code: 'abc' }, 'arguments')).toEqual(['"code" must match the pattern "^[A-Z]{3}$"'])
    expect(tested).toContain('abc')
    // Without an engine, the u-flag RegExp decides: a code point is one character.
    const plain = compileValidator({ type: 'string', pattern: '^.$' })
    expect(plain('😀', 'value')).toEqual([])
  })

  it('S4.19: a pattern the engine refuses makes compileValidator throw what the engine threw', () => {
    const refusal = new Error('no backreferences here')
    const engine: PatternEngine = (pattern) => {
      if (pattern.includes('\\1')) throw refusal
      return new RegExp(pattern, 'u')
    }
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a)\\1$' } } }
    let thrown: unknown
    try {
      compileValidator(schema, { patterns: engine })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBe(refusal)
    expect(thrown).not.toBeInstanceOf(ToolError)
    expect(compileValidator(schema)({ s: 'aa' }, 'arguments')).toEqual([])
  })
})
