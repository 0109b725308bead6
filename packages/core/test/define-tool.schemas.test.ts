import { createToolRuntime, defineTool, schemaToTypeScript, type ToolResult } from '@tooltx/core'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { expectFailure, isDeepFrozen, live } from './pipeline.fixtures.js'
import { thrownToolError } from './thrown.js'

/** Registers `tool` in a fresh runtime and runs one call with `args`. */
async function call(tool: Parameters<ReturnType<typeof createToolRuntime>['register']>[0], args: unknown) {
  const rt = createToolRuntime()
  rt.register(tool)
  return rt.execute({ callId: 'c1', name: tool.name, arguments: args, signal: live() })
}

const schemaError = (fn: () => unknown) => thrownToolError(fn, 'UNSUPPORTED_SCHEMA')

const text = (result: ToolResult) => (result.content[0] as { text: string }).text

describe('S6 Standard Schema parameters and output', () => {
  it('S6.1: a zod 4 object describes parameters and output; the body gets the parsed, frozen arguments', async () => {
    let seen: unknown
    const tool = defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({
        path: z.string().describe('Absolute path'),
        limit: z.number().int().min(1).optional(),
      }),
      output: {
        schema: z.object({ text: z.string() }),
        render: (args, value) => [{ type: 'text', text: `${args.path}: ${value.text}` }],
      },
      execute: (args) => {
        seen = args
        return { text: 'hi' }
      },
    })
    const ok = await call(tool, { path: '/a', limit: 2 })
    expect(ok.isError).toBe(false)
    expect(text(ok)).toBe('/a: hi')
    expect(seen).toEqual({ path: '/a', limit: 2 })
    expect(isDeepFrozen(seen)).toBe(true)
  })

  it('S6.1: a valibot schema wrapped by toStandardJsonSchema works the same way', async () => {
    const tool = defineTool({
      name: 'greet',
      description: 'Greet',
      parameters: toStandardJsonSchema(v.object({ who: v.pipe(v.string(), v.minLength(2)) })),
      output: { schema: toStandardJsonSchema(v.object({ greeting: v.string() })) },
      execute: ({ who }) => ({ greeting: `hello ${who}` }),
    })
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { who: { type: 'string', minLength: 2 } },
      required: ['who'],
    })
    expect(text(await call(tool, { who: 'ann' }))).toBe('{"greeting":"hello ann"}')
    expectFailure(
      await call(tool, { who: 'a' }),
      'INVALID_ARGS',
      'invalid arguments: "who" must have at least 2 characters',
    )
  })

  it('S6.2: the model-facing schema is the library conversion, frozen, without $schema', () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: z.object({ path: z.string().min(1) }),
      execute: () => null,
    })
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 } },
      required: ['path'],
    })
    expect(isDeepFrozen(tool.parameters)).toBe(true)
    expect(schemaToTypeScript(tool.parameters)).toContain('/** (minLength: 1) */')
  })

  it('S6.2: a schema without a JSON Schema conversion, or one the library cannot convert, fails at definition time', () => {
    expect(
      schemaError(() =>
        defineTool({ name: 't', description: '', parameters: v.object({ a: v.string() }), execute: () => 1 }),
      ).message,
    ).toBe(
      'parameters is a Standard Schema from "valibot" without a JSON Schema conversion (~standard.jsonSchema): ' +
        'wrap it with its library\'s Standard JSON Schema helper (valibot: toStandardJsonSchema from "@valibot/to-json-schema"), or pass a JSON Schema',
    )
    expect(
      schemaError(() =>
        defineTool({ name: 't', description: '', parameters: z.object({ d: z.date() }), execute: () => 1 }),
      ).message,
    ).toBe(
      'parameters cannot be converted to JSON Schema by "zod": Date cannot be represented in JSON Schema ' +
        '(tool arguments and values are JSON: describe a date as a string with format "date-time", not as a Date)',
    )
    expect(
      schemaError(() => defineTool({ name: 't', description: '', parameters: z.string(), execute: () => 1 }))
        .message,
    ).toBe('parameters must describe an object (its JSON Schema needs type "object")')
  })

  it('S6.3: issues become concise INVALID_ARGS messages and the body never runs', async () => {
    const body = vi.fn(() => 1)
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: z.object({ path: z.string(), tags: z.array(z.string()).max(1).optional() }),
      execute: body,
    })
    expectFailure(await call(tool, { path: 3 }), 'INVALID_ARGS', 'invalid arguments: "path" must be a string')
    expectFailure(
      await call(tool, { path: 'x', tags: ['a', 2] }),
      'INVALID_ARGS',
      'invalid arguments: "tags[1]" must be a string; "tags" must have at most 1 items',
    )
    const refined = defineTool({
      name: 'r',
      description: '',
      parameters: z.object({ a: z.string().refine((s) => s !== 'no', 'must not be "no"') }),
      execute: body,
    })
    expectFailure(await call(refined, { a: 'no' }), 'INVALID_ARGS', 'invalid arguments: "a" must not be "no"')
    expect(body).not.toHaveBeenCalled()
  })

  it('S6.3: an asynchronous refinement on parameters is awaited', async () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: z.object({ a: z.string().refine(async (s) => s.length > 1, 'is too short') }),
      execute: ({ a }) => a,
    })
    expect(text(await call(tool, { a: 'ok' }))).toBe('"ok"')
    expectFailure(await call(tool, { a: 'x' }), 'INVALID_ARGS', 'invalid arguments: "a" is too short')
  })

  it('S6.3: an output schema that turns the value into a Date fails INVALID_TOOL_OUTPUT and says why', async () => {
    const tool = defineTool({
      name: 'when',
      description: '',
      parameters: z.object({}),
      output: { schema: z.object({ at: z.string().transform((s) => new Date(s)) }) },
      execute: () => ({ at: '2024-01-01' }),
    })
    expectFailure(
      await call(tool, {}),
      'INVALID_TOOL_OUTPUT',
      'tool "when" returned invalid output: "value" was turned by the schema into a value that is not lossless JSON: value.at is not a plain object',
    )
    const wrong = defineTool({
      name: 'w',
      description: '',
      parameters: z.object({}),
      output: { schema: z.object({ n: z.number() }) },
      execute: () => ({ n: 'x' }) as never,
    })
    expectFailure(
      await call(wrong, {}),
      'INVALID_TOOL_OUTPUT',
      'tool "w" returned invalid output: "value.n" must be a number',
    )
  })
})

describe('S6 plain JSON Schema', () => {
  it('S6.4: a JSON Schema inside the subset is validated by the own validator, as written', async () => {
    const parameters = {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 } },
      required: ['path'],
    } as const
    const tool = defineTool({
      name: 't',
      description: '',
      parameters,
      output: { schema: { type: 'string' } },
      execute: () => 'ok',
    })
    expect(tool.parameters).toEqual(parameters)
    expect('validate' in tool.output).toBe(false)
    expectFailure(await call(tool, {}), 'INVALID_ARGS', 'invalid arguments: missing required property "path"')
    expect(text(await call(tool, { path: '/' }))).toBe('"ok"')
  })

  it('S6.5: keywords outside the subset are validated by ajv (2020-12), with the same message style', async () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: {
        type: 'object',
        properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        patternProperties: { '^x': { type: 'number' } },
        required: ['a'],
      },
      output: { schema: { type: 'array', prefixItems: [{ type: 'string' }] } },
      execute: ({ a }) => [String(a)],
    })
    expect(text(await call(tool, { a: 1, xy: 2 }))).toBe('["1"]')
    expectFailure(
      await call(tool, { xy: 's' }),
      'INVALID_ARGS',
      'invalid arguments: missing required property "a"; "xy" must be a number',
    )
    const bad = defineTool({
      name: 'o',
      description: '',
      parameters: { type: 'object' },
      output: {
        schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'array',
          prefixItems: [{ type: 'string' }],
        },
      },
      execute: () => [1],
    })
    expectFailure(
      await call(bad, {}),
      'INVALID_TOOL_OUTPUT',
      'tool "o" returned invalid output: "value[0]" must be a string',
    )
  })

  it('S6.5: a draft-07 schema is compiled as draft-07 (items as an array is a tuple)', async () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      },
      execute: () => null,
    })
    expect((await call(tool, { pair: ['a', 1] })).isError).toBe(false)
    expectFailure(
      await call(tool, { pair: [1, 1] }),
      'INVALID_ARGS',
      'invalid arguments: "pair[0]" must be a string',
    )
  })

  it('S6.4: parameters as JSON Schema need type "object"; a schema ajv rejects fails at definition time', () => {
    expect(
      schemaError(() =>
        defineTool({ name: 't', description: '', parameters: { type: 'string' } as never, execute: () => 1 }),
      ).message,
    ).toBe('parameters as JSON Schema must have type "object"')
    expect(
      schemaError(() =>
        defineTool({
          name: 't',
          description: '',
          parameters: { type: 'object', properties: { a: { type: 'nope' } } },
          execute: () => 1,
        }),
      ).message,
    ).toMatch(/^parameters is not a valid JSON Schema: /)
  })
})

describe('S6.7 the default output contract (ours)', () => {
  it('S6.7: a tool without output returns any lossless JSON value, frozen, rendered as JSON text', async () => {
    const tool = defineTool({
      name: 'hello',
      description: 'Say hello',
      parameters: { who: { type: 'string', required: true } },
      execute: ({ who }) => ({ greeting: `hello ${who}`, at: [1, 2] }),
    })
    expect(tool.output.schema).toEqual({})
    const result = await call(tool, { who: 'ann' })
    expect(result).toMatchObject({ isError: false, value: { greeting: 'hello ann', at: [1, 2] } })
    expect(text(result)).toBe('{"greeting":"hello ann","at":[1,2]}')
    expect(isDeepFrozen(result)).toBe(true)
  })

  it('S6.7: a value that is not lossless JSON still fails INVALID_TOOL_OUTPUT', async () => {
    const tool = defineTool({
      name: 'd',
      description: '',
      parameters: {},
      execute: () => new Date(0) as never,
    })
    expectFailure(
      await call(tool, {}),
      'INVALID_TOOL_OUTPUT',
      'tool "d" returned invalid output: value is not lossless JSON',
    )
  })

  it('S6.7: output.render may be given without a schema, and a schema without render renders JSON text', async () => {
    const custom = defineTool({
      name: 'c',
      description: '',
      parameters: {},
      output: { render: (_args, value) => [{ type: 'text', text: `got ${JSON.stringify(value)}` }] },
      execute: () => 5,
    })
    expect(text(await call(custom, {}))).toBe('got 5')
    const strict = defineTool({
      name: 's',
      description: '',
      parameters: {},
      output: { schema: { type: 'integer' } },
      execute: () => 1.5,
    })
    expectFailure(
      await call(strict, {}),
      'INVALID_TOOL_OUTPUT',
      'tool "s" returned invalid output: "value" must be an integer',
    )
  })
})
