import { createToolRuntime } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { assertToolDefinition } from '../src/tool/definition-checks.js'
import { callTool, live, note, rawTool } from './pipeline.fixtures.js'
import { thrownToolError } from './thrown.js'

const thrownBy = (fn: () => unknown) => thrownToolError(fn)

describe('D2 registration checks', () => {
  it('D2.1: a name outside the pattern throws INVALID_DEFINITION with the exact message', () => {
    const rt = createToolRuntime()
    for (const name of ['', 'has space', 'x'.repeat(65), 'dot.name']) {
      const error = thrownBy(() => rt.register(rawTool(name)))
      expect(error.code).toBe('INVALID_DEFINITION')
      expect(error.message).toBe(`tool name "${name}" must match /^[A-Za-z0-9_-]{1,64}$/`)
    }
    expect(thrownBy(() => rt.register(rawTool(42 as never))).message).toBe(
      'tool name "42" must match /^[A-Za-z0-9_-]{1,64}$/',
    )
    expect(() => rt.register(rawTool('A-z_09'.padEnd(64, 'x')))).not.toThrow()
  })

  it('D2.2: run_code is reserved in every mode and every layer', () => {
    for (const mode of ['native', 'code', 'both'] as const) {
      const rt = createToolRuntime({ mode })
      const scope = rt.scope()
      for (const register of [
        () => rt.register(rawTool('run_code')),
        () => scope.register(rawTool('run_code')),
      ]) {
        const error = thrownBy(register)
        expect(error.code).toBe('INVALID_DEFINITION')
        expect(error.message).toBe('tool name "run_code" is reserved for the Code Mode transport')
      }
    }
  })

  it('D2.3: a description that is not a string throws INVALID_DEFINITION', () => {
    expect(thrownBy(() => assertToolDefinition(rawTool('t', { description: 3 }))).code).toBe(
      'INVALID_DEFINITION',
    )
    expect(thrownBy(() => assertToolDefinition(rawTool('t', { description: undefined }))).code).toBe(
      'INVALID_DEFINITION',
    )
  })

  it('D2.4: parameters must be a lossless JSON object', () => {
    for (const parameters of [[], 'x', null, { a: undefined }, { n: Number.NaN }, new Map()]) {
      const error = thrownBy(() => assertToolDefinition(rawTool('t', { parameters })))
      expect(error.code).toBe('INVALID_DEFINITION')
      expect(error.message).toBe('tool "t" parameters must be a lossless JSON object')
    }
    const hostile = {
      get type() {
        throw new Error('boom')
      },
    }
    expect(thrownBy(() => assertToolDefinition(rawTool('t', { parameters: hostile }))).message).toBe(
      'tool "t" parameters must be a lossless JSON object',
    )
  })

  it('D2.5: raw parameters may use any JSON Schema keyword', () => {
    const def = rawTool('t', {
      parameters: {
        type: 'object',
        properties: { p: { type: 'string', pattern: '^a', minLength: 2 } },
        $defs: {},
      },
    })
    expect(() => assertToolDefinition(def)).not.toThrow()
  })

  it('D2.6: output must hold a render function, a schema and an optional presentationMeta function', () => {
    const message = 'tool "t" must declare output { schema, render, presentationMeta? }'
    const render = () => []
    for (const output of [
      undefined,
      null,
      'x',
      { schema: {} },
      { render },
      { schema: {}, render: 'x' },
      { schema: {}, render, presentationMeta: 1 },
    ]) {
      const error = thrownBy(() => assertToolDefinition(rawTool('t', { output })))
      expect(error.code).toBe('INVALID_DEFINITION')
      expect(error.message).toBe(message)
    }
    expect(() =>
      assertToolDefinition(rawTool('t', { output: { schema: {}, render, presentationMeta: render } })),
    ).not.toThrow()
  })

  it('D2.7: output.schema must pass the subset check; any root is allowed', () => {
    const render = () => []
    const error = thrownBy(() =>
      assertToolDefinition(rawTool('t', { output: { schema: { type: 'string', $ref: '#' }, render } })),
    )
    expect(error.code).toBe('UNSUPPORTED_SCHEMA')
    expect(error.message).toMatch(/^unsupported JSON schema: /)
    for (const schema of [
      {},
      { type: 'null' },
      { type: 'array', items: { type: 'string' } },
      { type: 'integer' },
    ]) {
      expect(() => assertToolDefinition(rawTool('t', { output: { schema, render } }))).not.toThrow()
    }
  })

  it('D2.8: execute must be a function and the optional callbacks absent or functions', () => {
    expect(thrownBy(() => assertToolDefinition(rawTool('t', { execute: 1 }))).code).toBe('INVALID_DEFINITION')
    for (const key of ['isConcurrencySafe', 'finalizeContent', 'presentCall', 'presentResult']) {
      expect(thrownBy(() => assertToolDefinition(rawTool('t', { [key]: 'no' }))).code).toBe(
        'INVALID_DEFINITION',
      )
      expect(() => assertToolDefinition(rawTool('t', { [key]: () => undefined }))).not.toThrow()
    }
  })

  it('D2.9: timeoutMs must be a positive finite number when present', () => {
    for (const timeoutMs of [0, -1, Number.POSITIVE_INFINITY, Number.NaN, '10']) {
      const error = thrownBy(() => assertToolDefinition(rawTool('t', { timeoutMs })))
      expect(error.code).toBe('INVALID_DEFINITION')
      expect(error.message).toBe('tool "t" timeoutMs must be a positive finite number')
    }
    expect(assertToolDefinition(rawTool('t', { timeoutMs: 0.5 })).timeoutMs).toBe(0.5)
  })

  it('D2.10: a duplicate in the same layer throws and leaves the first registration', async () => {
    const rt = createToolRuntime()
    const scope = rt.scope()
    rt.register(rawTool('t', { execute: async () => 'first' }))
    expect(thrownBy(() => rt.register(rawTool('t'))).message).toBe('tool "t" is already registered globally')
    scope.register(rawTool('s'))
    expect(thrownBy(() => scope.register(rawTool('s'))).message).toBe(
      'tool "s" is already registered in this scope',
    )
    const result = await callTool(rt, 't')
    expect(result.isError === false && result.value).toBe('first')
  })

  it('D2.11: registration stores a frozen copy, unaffected by later mutation', async () => {
    const rt = createToolRuntime()
    const schema = { type: 'object', properties: { a: { type: 'string' } } }
    const author = rawTool('t', {
      parameters: schema,
      output: { schema: { type: 'string' }, render: () => [] },
    }) as any
    rt.register(author)
    schema.properties.a.type = 'number'
    author.output.schema.type = 'number'
    author.description = 'changed'
    const stored = rt.view().get('t')!
    expect(stored).not.toBe(author)
    expect(
      Object.isFrozen(stored) && Object.isFrozen(stored.output) && Object.isFrozen(stored.parameters),
    ).toBe(true)
    expect(stored.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } })
    expect(stored.output.schema).toEqual({ type: 'string' })
    expect(stored.description).toBe('The t tool')
    expect('presentCall' in stored).toBe(false)
  })

  it('D2.12: the disposer removes only its own registration and may be called repeatedly', () => {
    const rt = createToolRuntime()
    const off = rt.register(rawTool('t'))
    off()
    off()
    expect(rt.view().get('t')).toBeUndefined()
    rt.register(rawTool('t', { description: 'second' }))
    off()
    expect(rt.view().get('t')?.description).toBe('second')
  })

  it('D2.13: a raw definition receives whatever lossless JSON the caller passed', async () => {
    const rt = createToolRuntime()
    const seen: unknown[] = []
    rt.register(rawTool('t', { execute: async (args: unknown) => note(seen, args, null) }))
    for (const args of ['just a string', [1, 2], 7, null]) {
      const result = await rt.execute({ callId: 'c', name: 't', arguments: args, signal: live() })
      expect(result.isError).toBe(false)
    }
    expect(seen).toEqual(['just a string', [1, 2], 7, null])
  })
})

describe('D1.5 output.validate', () => {
  const run = async (validate: unknown, value: unknown = { n: 1 }) => {
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        output: { schema: { anyOf: [{ type: 'object' }] }, render: () => [], validate },
        execute: async () => value,
      }),
    )
    return callTool(rt, 't')
  }

  it('D1.5: a definition with output.validate may carry a documentation-only schema; validate decides', async () => {
    const seen: unknown[] = []
    const ok = await run((value: unknown) => note(seen, value, []))
    expect(ok.isError).toBe(false)
    expect(seen).toEqual([{ n: 1 }])
    const bad = await run(() => ['"value.n" is too small'])
    expect(bad).toMatchObject({
      isError: true,
      error: { message: 'tool "t" returned invalid output: "value.n" is too small' },
    })
  })

  it('D1.5: a throwing or malformed validate is a violation, never a crash', async () => {
    expect(
      await run(() => {
        throw new Error('boom')
      }),
    ).toMatchObject({ error: { message: 'tool "t" returned invalid output: output.validate failed: boom' } })
    expect(await run(() => 'no')).toMatchObject({
      error: { message: 'tool "t" returned invalid output: output.validate must return an array of strings' },
    })
  })

  it('D2.6: output.validate that is not a function throws INVALID_DEFINITION', () => {
    const error = thrownBy(() =>
      assertToolDefinition(rawTool('t', { output: { schema: {}, render: () => [], validate: 1 } })),
    )
    expect(error).toMatchObject({
      code: 'INVALID_DEFINITION',
      message: 'tool "t" output.validate must be absent or a function',
    })
  })
})
