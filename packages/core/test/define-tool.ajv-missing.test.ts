import { defineTool } from '@tooltx/core'
import { describe, expect, it, vi } from 'vitest'
import { thrownToolError } from './thrown.js'

// This file's module graph loads core with a `createRequire` that cannot find ajv.
vi.mock('node:module', async (original) => ({
  ...(await original<typeof import('node:module')>()),
  createRequire: () => (id: string) => {
    throw new Error(`Cannot find module '${id}'`)
  },
}))

const thrown = (fn: () => unknown) => thrownToolError(fn)

describe('S6.5 without ajv', () => {
  it('S6.5: a JSON Schema outside the subset throws UNSUPPORTED_SCHEMA naming ajv; subset schemas need no ajv', () => {
    const error = thrown(() =>
      defineTool({
        name: 't',
        description: '',
        parameters: { type: 'object', patternProperties: { '^x': { type: 'number' } } },
        execute: () => 1,
      }),
    )
    expect(error.code).toBe('UNSUPPORTED_SCHEMA')
    expect(error.message).toBe(
      'parameters uses JSON Schema outside the enforced subset (parameters.patternProperties is not a supported keyword); ' +
        "validating it needs the optional peer dependency ajv, which could not be loaded (Cannot find module 'ajv/dist/2020'): run `npm install ajv`",
    )
    const output = thrown(() =>
      defineTool({
        name: 'o',
        description: '',
        parameters: {},
        output: { schema: { anyOf: [{ type: 'string' }] } },
        execute: () => 'x',
      }),
    )
    expect(output.message).toMatch(
      /^output\.schema uses JSON Schema outside the enforced subset .* run `npm install ajv`$/,
    )
    expect(() =>
      defineTool({
        name: 'ok',
        description: '',
        parameters: { type: 'object', properties: { a: { type: 'string' } } },
        execute: () => 1,
      }),
    ).not.toThrow()
  })
})
