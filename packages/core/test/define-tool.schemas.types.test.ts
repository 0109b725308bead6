import {
  type Approver,
  allow,
  createToolRuntime,
  defineTool,
  deny,
  type InferArgs,
  type JsonObject,
  type JsonValue,
  type ToolDefinition,
} from '@tooltx/core'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { describe, expectTypeOf, it } from 'vitest'
import * as z from 'zod'

// Type tests: `npm run typecheck` compiles this file; each `@ts-expect-error` marks a misuse
// that must not compile. The runtime assertions only keep vitest from reporting an empty test.

describe('S6.6 types from Standard Schemas and JSON Schemas', () => {
  it('S6.6: zod parameters type execute (parsed output) and the callbacks (input)', () => {
    const tool = defineTool({
      name: 't',
      description: '',
      parameters: z.object({ path: z.string(), n: z.string().transform((s) => s.length) }),
      output: {
        schema: z.object({ size: z.number() }),
        render: (_args, value) => [{ type: 'text', text: String(value.size) }],
      },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; n: number }>()
        return { size: args.n }
      },
      presentCall: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; n: string }>()
        return undefined
      },
    })
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<{ path: string; n: string }, { size: number }>>()
    const params = z.object({ n: z.string().transform((s) => s.length) })
    expectTypeOf<InferArgs<typeof params>>().toEqualTypeOf<{ n: number }>()
    defineTool({
      name: 't',
      description: '',
      parameters: z.object({ path: z.string() }),
      output: { schema: z.object({ size: z.number() }) },
      // @ts-expect-error the value must match output.schema
      execute: () => ({ size: 'big' }),
    })
  })

  it('S6.6: valibot, JSON Schema and the default output', () => {
    const vt = defineTool({
      name: 'v',
      description: '',
      parameters: toStandardJsonSchema(v.object({ who: v.string() })),
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ who: string }>()
        return args.who
      },
    })
    expectTypeOf(vt).toEqualTypeOf<ToolDefinition<{ who: string }, JsonValue>>()
    const js = defineTool({
      name: 'j',
      description: '',
      parameters: { type: 'object', properties: { a: { type: 'string' } } },
      output: { schema: { type: 'string', format: 'email' } },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<JsonObject>()
        return 'a@b.co'
      },
    })
    expectTypeOf(js).toEqualTypeOf<ToolDefinition<JsonObject, string>>()
  })
})

describe('P14 typed per-tool hooks', () => {
  const readFile = defineTool({
    name: 'read_file',
    description: '',
    parameters: z.object({ path: z.string() }),
    output: { schema: z.object({ text: z.string() }) },
    execute: () => ({ text: '' }),
  })

  it('P14.2: bound handlers see the typed arguments and value with no cast', () => {
    const rt = createToolRuntime()
    rt.onPreExecute(readFile, (exec) =>
      exec.arguments.path.startsWith('/etc') ? deny('system file') : allow(),
    )
    rt.guard(readFile, (exec) => (exec.arguments.path === '' ? 'empty path' : undefined))
    rt.onPostExecute(readFile, (exec, result, next) => {
      expectTypeOf(exec.arguments).toEqualTypeOf<{ path: string }>()
      if (!result.isError) expectTypeOf(result.value).toEqualTypeOf<{ text: string }>()
      return next()
    })
    // @ts-expect-error a property the parameters do not declare
    rt.onPreExecute(readFile, (exec) => (exec.arguments.nope ? allow() : allow()))
    // @ts-expect-error path is a string
    rt.guard(readFile, (exec) => (exec.arguments.path.toFixed() ? undefined : undefined))
    // @ts-expect-error a guard answers a string or undefined
    rt.guard(readFile, () => 1)
    // @ts-expect-error deny needs a reason
    deny()
    // Global handlers still see `unknown`-typed JSON arguments.
    rt.onPreExecute((exec) => {
      expectTypeOf(exec.arguments).toEqualTypeOf<JsonValue | undefined>()
      return allow()
    })
  })

  it('P14.6: an approver may be async and answer a literal without as const', () => {
    createToolRuntime({ approver: async () => 'allowed-once' })
    createToolRuntime({ approver: async (request) => (request.name === 'x' ? 'rejected' : 'allowed-once') })
    const sync: Approver = () => 'cancelled'
    // @ts-expect-error a synchronous approver answers one of the four outcomes
    const typo: Approver = () => 'allowed-twice'
    expectTypeOf(sync).toEqualTypeOf<Approver>()
    expectTypeOf(typo).toEqualTypeOf<Approver>()
  })
})
