import { createAgent, openaiCompatible } from '@tooltx/agent'
import {
  createToolRuntime,
  defineTool,
  type JsonObject,
  type JsonValue,
  toModelSchema,
  validateValue,
} from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { restoreOptional, strictParameters } from '../src/model/strict-schema.js'
import { collect, request, wireServer } from './loopback-server.js'

/** A Chat Completions SSE reply holding one tool call with `args` as its raw string, in two pieces. */
function toolCallReply(id: string, name: string, args: string): string[] {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const half = Math.floor(args.length / 2)
  return [
    chunk({
      role: 'assistant',
      tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ]
}

function textReply(text: string): string[] {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c2', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  return [chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), 'data: [DONE]\n\n']
}

const seen: unknown[] = []
const search = defineTool({
  name: 'search',
  description: 'Search the notes.',
  parameters: {
    query: { type: 'string', required: true, description: 'What to look for', default: 'TODO' },
    limit: { type: 'integer' },
    cursor: { oneOf: [{ type: 'string' }, { type: 'null' }] },
    since: { oneOf: [{ type: 'string' }, { type: 'null' }], required: true },
    filter: {
      type: 'object',
      additionalProperties: false,
      properties: {
        tag: { type: 'string', enum: ['work', 'home'] },
        owner: { type: 'string', required: true },
      },
    },
    ids: { type: 'array', items: { type: 'integer' } },
  },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
  execute: async (args) => {
    seen.push(args)
    return 'found'
  },
})

const SEARCH_STRICT = {
  type: 'object',
  properties: {
    query: { description: 'What to look for', type: 'string' },
    limit: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    cursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    since: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    filter: {
      anyOf: [
        {
          type: 'object',
          properties: {
            tag: { anyOf: [{ type: 'string', enum: ['work', 'home'] }, { type: 'null' }] },
            owner: { type: 'string' },
          },
          required: ['tag', 'owner'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
    ids: { anyOf: [{ type: 'array', items: { type: 'integer' } }, { type: 'null' }] },
  },
  required: ['query', 'limit', 'cursor', 'since', 'filter', 'ids'],
  additionalProperties: false,
}

/**
 * One turn on a strict-mode adapter whose first reply calls `search` as `callId` with the raw
 * arguments `raw`, sent `message`; `seen` is emptied first. Resolves with the turn's session.
 */
async function strictTurn(turn: { callId: string; raw: string; message: string }) {
  seen.length = 0
  const server = await wireServer(
    (n) => ({ sse: n === 1 ? toolCallReply(turn.callId, 'search', turn.raw) : textReply('done') }),
    '/v1',
  )
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(search)
  const session = await openSession(memoryStore(), { id: 'strict' })
  const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', strictTools: true })
  const agent = createAgent({ runtime, scope, session, model })
  agent.send(turn.message)
  await agent.whenIdle()
  return session
}

describe('Z1: OpenAI strict mode', () => {
  it('Z1.1: with strictTools every tool goes out with strict: true, closed objects and nullable-required optionals', async () => {
    const server = await wireServer(() => ({ sse: textReply('ok') }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', strictTools: true })
    const tools = [toModelSchema(search)]
    await collect(model.stream(request({ tools }), new AbortController().signal))
    expect(server.received[0]?.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Search the notes.',
          parameters: SEARCH_STRICT,
          strict: true,
        },
      },
    ])
  })

  it('Z1.1: without strictTools the same tool goes out unchanged, with no strict key', async () => {
    const server = await wireServer(() => ({ sse: textReply('ok') }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm' })
    const tool = toModelSchema(search)
    await collect(model.stream(request({ tools: [tool] }), new AbortController().signal))
    expect(server.received[0]?.body.tools).toEqual([{ type: 'function', function: tool }])
    expect(model.parseArguments).toBeUndefined()
  })

  it('Z1.2: a tool strict mode cannot express goes out as without the option; the others stay strict', async () => {
    const server = await wireServer(() => ({ sse: textReply('ok') }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', strictTools: true })
    const loose = [
      { name: 'any', description: 'Any value.', parameters: { type: 'object', properties: { v: {} } } },
      {
        name: 'map',
        description: 'A free-form map.',
        parameters: {
          type: 'object',
          properties: { m: { type: 'object', additionalProperties: true } },
          required: ['m'],
        },
      },
      {
        name: 'list',
        description: 'An array without items.',
        parameters: { type: 'object', properties: { l: { type: 'array' } } },
      },
      {
        name: 'pattern',
        description: 'A keyword outside the subset.',
        parameters: { type: 'object', properties: { p: { type: 'string', pattern: '^a' } } },
      },
    ]
    const none = {
      name: 'none',
      description: 'No parameters.',
      parameters: { type: 'object', properties: {} },
    }
    await collect(model.stream(request({ tools: [...loose, none] }), new AbortController().signal))
    expect(server.received[0]?.body.tools).toEqual([
      ...loose.map((tool) => ({ type: 'function', function: tool })),
      {
        type: 'function',
        function: {
          name: 'none',
          description: 'No parameters.',
          parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
          strict: true,
        },
      },
    ])
  })

  it('Z1.3, Z1.4: the tool sees absent optionals where the model sent null; the log keeps the raw string', async () => {
    const raw =
      '{"query":"q","limit":null,"cursor":null,"since":null,"filter":{"tag":null,"owner":"me"},"ids":null}'
    const session = await strictTurn({ callId: 'call_s', raw, message: 'find q' })

    // Optional and not nullable → absent; nullable optional and nullable required → null kept.
    expect(seen).toEqual([{ query: 'q', cursor: null, since: null, filter: { owner: 'me' } }])
    const call = session.events().find((event) => event.type === 'tool/call')
    expect(call?.data).toMatchObject({ callId: 'call_s', name: 'search', arguments: raw })
    const result = session.events().find((event) => event.type === 'tool/result')
    expect(result?.data).toMatchObject({ isError: false, content: [{ type: 'text', text: 'found' }] })
  })

  it('Z1.3: a null at a required property that does not accept null still fails validation, saying so', async () => {
    const raw = '{"query":null,"limit":null,"cursor":null,"since":null,"filter":null,"ids":[1,null]}'
    const session = await strictTurn({ callId: 'call_n', raw, message: 'find' })

    expect(seen).toEqual([])
    const result = session.events().find((event) => event.type === 'tool/result')
    expect(result?.data).toMatchObject({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'Error: invalid arguments: "query" must be a string; "ids[1]" must be an integer',
        },
      ],
    })
  })

  it('Z1.3: a oneOf branch is mapped through the first branch its mapped value satisfies', () => {
    const parameters: JsonObject = {
      type: 'object',
      properties: {
        shape: {
          oneOf: [
            {
              type: 'object',
              additionalProperties: false,
              properties: { kind: { const: 'circle', type: 'string' }, r: { type: 'number' } },
              required: ['kind'],
            },
            {
              type: 'object',
              additionalProperties: false,
              properties: { kind: { const: 'box', type: 'string' }, w: { type: 'number' } },
              required: ['kind'],
            },
          ],
        },
      },
    }
    expect(restoreOptional(parameters, { shape: { kind: 'box', w: null } })).toEqual({
      shape: { kind: 'box' },
    })
    expect(restoreOptional(parameters, { shape: { kind: 'box', r: null } })).toEqual({
      shape: { kind: 'box', r: null },
    })
    expect(restoreOptional(parameters, '{not json')).toBe('{not json')
    const proto = JSON.parse('{"__proto__":{"x":1},"shape":null}') as JsonValue
    expect(Object.keys(restoreOptional(parameters, proto) as object)).toEqual(['__proto__'])
  })

  it('Z1.3: for every value valid under the tool schema, the null-filled value a strict model sends is valid under the strict schema and maps back to it (nullable optionals stay null)', () => {
    const parameters = toModelSchema(search).parameters
    const strict = strictParameters(parameters)!
    const ajv = new Ajv2020({ strict: false, logger: false })
    const validStrict = ajv.compile(strict)
    const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
    const value = fc.record({
      query: fc.string(),
      limit: maybe(fc.integer()),
      cursor: maybe(fc.option(fc.string(), { nil: null })),
      since: fc.option(fc.string(), { nil: null }),
      filter: maybe(fc.record({ tag: maybe(fc.constantFrom('work', 'home')), owner: fc.string() })),
      ids: maybe(fc.array(fc.integer())),
    })
    fc.assert(
      fc.property(value, (original) => {
        const clean = JSON.parse(JSON.stringify(original)) as JsonObject
        const filled = fillNulls(clean)
        expect(validStrict(filled)).toBe(true)
        const restored = restoreOptional(parameters, filled)
        expect(validateValue(parameters, restored, 'arguments')).toEqual([])
        // An optional property that accepts null cannot tell absent from null: it stays null.
        expect(restored).toEqual({ ...clean, cursor: clean.cursor ?? null })
      }),
    )
  })
})

/** What a strict-mode model sends for `value`: every absent optional property of `search` as null. */
function fillNulls(value: JsonObject): JsonObject {
  const filled: JsonObject = { limit: null, cursor: null, filter: null, ids: null, ...value }
  if (value.filter !== undefined) filled.filter = { tag: null, ...(value.filter as JsonObject) }
  return filled
}
