import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkToolArguments, createToolRuntime, defineTool } from '../src/index.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look up an order.',
  parameters: { order: { type: 'integer', required: true }, note: { type: 'string' } },
  execute: async () => ({}),
})

describe('A1.8 argument checks of registered definitions', () => {
  it('A1.8: the definition a view returns validates arguments exactly as the defineTool definition does', () => {
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(lookup)
    const registered = runtime.view(scope).get('lookup')!
    expect(registered).not.toBe(lookup)
    fc.assert(
      fc.property(fc.jsonValue(), (args) => {
        expect(checkToolArguments(registered, args)).toEqual(checkToolArguments(lookup, args))
      }),
    )
    expect(checkToolArguments(registered, { order: 'seven' })).toEqual({
      ok: false,
      violations: ['"order" must be an integer'],
    })
  })

  it('A1.8: a raw definition has no argument check, registered or not', () => {
    const raw = {
      name: 'raw',
      description: 'A raw tool.',
      parameters: { type: 'object' },
      output: { schema: {}, render: () => [] },
      execute: async () => ({}),
    }
    const runtime = createToolRuntime()
    runtime.register(raw)
    expect(checkToolArguments(runtime.view().get('raw')!, {})).toBeUndefined()
    expect(checkToolArguments(raw, {})).toBeUndefined()
  })
})
