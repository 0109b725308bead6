import * as compatible from '@ai-sdk/openai-compatible'
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { createAgent, isModelAbort, type ModelAdapter, ModelError, type ModelRequest } from '@tooltx/agent'
import * as lib from '@tooltx/ai-sdk'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import * as mock from 'ai/test'
import { describe, expect, it } from 'vitest'
import { CLOSING_TYPES, OPENING_TYPES } from '../../agent/test/loop-harness.js'
import { collect, refusedURL, request, wireServer } from '../../agent/test/loopback-server.js'
import { chatChunk, chatToolArgs, chatToolCall, DONE } from '../../agent/test/wire-fixtures.js'
import { loopbackProvider } from './loopback-provider.js'

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
})

/** A mock AI SDK model whose n-th doStream answers with `replies[n]`. */
function mockModel(replies: LanguageModelV4StreamPart[][]) {
  return new mock.MockLanguageModelV4({
    provider: 'mock',
    modelId: 'm1',
    doStream: replies.map((parts) => ({ stream: mock.convertArrayToReadableStream(parts) })),
  })
}

const TEXT_AND_CALL: LanguageModelV4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Reading ' },
  { type: 'text-delta', id: 't1', delta: 'it.' },
  { type: 'text-end', id: 't1' },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'hidden' },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'tool-input-start', id: 'call_1', toolName: 'read_file' },
  { type: 'tool-input-delta', id: 'call_1', delta: '{"path":' },
  { type: 'tool-input-delta', id: 'call_1', delta: ' "/etc/hostname"}' },
  { type: 'tool-input-end', id: 'call_1' },
  { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: '{"path": "/etc/hostname"}' },
  // Whole call at once, not valid JSON: kept as the raw string.
  { type: 'tool-call', toolCallId: 'call_2', toolName: 'grep', input: '{"pattern": TODO' },
  { type: 'finish', usage: usage(12, 7), finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
]

const TEXT_ONLY: LanguageModelV4StreamPart[] = [
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Done.' },
  { type: 'text-end', id: 't1' },
  { type: 'finish', usage: usage(3, 1), finishReason: { unified: 'stop', raw: 'stop' } },
]

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 file.',
  parameters: { path: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
  execute: async ({ path }) => `contents of ${path}`,
})

describe('Z2: aiSdkModel', () => {
  it('Z2.1, Z2.3: streams text and tool-input deltas, then one message whose tool calls keep the raw input string', async () => {
    const model = lib.aiSdkModel(mockModel([TEXT_AND_CALL]))
    expect(model.name).toBe('ai-sdk:mock:m1')
    const events = await collect(model.stream(request(), new AbortController().signal))
    expect(events).toEqual([
      { type: 'text-delta', text: 'Reading ' },
      { type: 'text-delta', text: 'it.' },
      // Reasoning is recorded since T1.4.
      { type: 'reasoning-delta', text: 'hidden' },
      { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ' "/etc/hostname"}' },
      { type: 'tool-call-delta', index: 1, id: 'call_2', name: 'grep', argumentsDelta: '{"pattern": TODO' },
      {
        type: 'message',
        content: [
          { type: 'text', text: 'Reading it.' },
          { type: 'reasoning', wire: 'ai-sdk', text: 'hidden' },
          { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: '{"path": "/etc/hostname"}' },
          { type: 'tool-call', id: 'call_2', name: 'grep', arguments: '{"pattern": TODO' },
        ],
        usage: { inputTokens: 12, outputTokens: 7 },
        stop: { reason: 'tool_calls', raw: 'tool_calls' },
      },
    ])
  })

  it('Z2.2: maps the request to the AI SDK prompt: system, user, assistant tool calls, tool results with their names', async () => {
    const inner = mockModel([TEXT_ONLY])
    const model = lib.aiSdkModel(inner, { settings: { maxOutputTokens: 99 } })
    const req: ModelRequest = request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read it' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path":"/a"}' },
            { type: 'tool-call', id: 'c2', name: 'read_file', arguments: '' },
          ],
        },
        { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'A' }], isError: false },
        { role: 'tool', callId: 'c2', content: [{ type: 'text', text: 'Error: nope' }], isError: true },
        {
          role: 'user',
          content: [
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' },
            { type: 'audio', data: 'x' },
          ],
        },
      ],
    })
    await collect(model.stream(req, new AbortController().signal))
    const [call] = inner.doStreamCalls
    expect(call?.maxOutputTokens).toBe(99)
    expect(call?.abortSignal).toBeInstanceOf(AbortSignal)
    expect(call?.tools).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Read a UTF-8 file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ])
    expect(call?.prompt).toEqual([
      { role: 'system', content: 'You are terse.\n\nTools: read_file.' },
      { role: 'user', content: [{ type: 'text', text: 'read it' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'ok' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: '/a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'read_file',
            output: { type: 'text', value: 'A' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'read_file',
            output: { type: 'error-text', value: 'Error: nope' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0K' } },
          { type: 'text', text: '[audio block omitted: the AI SDK prompt cannot take this block type]' },
        ],
      },
    ])
  })

  it("Y2.33: a request's maxTokens is sent as maxOutputTokens, in place of the settings' own", async () => {
    const inner = mockModel([TEXT_ONLY])
    const model = lib.aiSdkModel(inner, { settings: { maxOutputTokens: 99 } })
    await collect(model.stream({ ...request(), maxTokens: 20 }, new AbortController().signal))
    expect(inner.doStreamCalls[0]?.maxOutputTokens).toBe(20)
  })

  it('Z2.1: an AI SDK model drives the tooltx loop: the log keeps the raw input, the next request carries the result', async () => {
    const inner = mockModel([
      TEXT_AND_CALL.filter((p) => p.type !== 'tool-call' || p.toolCallId === 'call_1'),
      TEXT_ONLY,
    ])
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(readFile)
    const session = await openSession(memoryStore(), { id: 'ai-sdk-loop' })
    const agent = createAgent({ runtime, scope, session, model: lib.aiSdkModel(inner) })
    agent.send('read /etc/hostname')
    await agent.whenIdle()

    const types = session.events().map((event) => event.type)
    expect(types).toEqual([
      ...OPENING_TYPES,
      'assistant/message',
      'tool/call',
      'tool/result',
      ...CLOSING_TYPES,
    ])
    const call = session.events().find((event) => event.type === 'tool/call')
    expect(call?.data).toMatchObject({ callId: 'call_1', arguments: '{"path": "/etc/hostname"}' })
    expect(inner.doStreamCalls[1]?.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'read_file',
          output: { type: 'text', value: 'contents of /etc/hostname' },
        },
      ],
    })
  })

  it('Z2.4: a stream without a finish part, a cut reply with tool calls, and an error part fail with a ModelError', async () => {
    const noFinish = lib.aiSdkModel(mockModel([TEXT_AND_CALL.slice(0, -1)]))
    const cut = lib.aiSdkModel(
      mockModel([
        [
          ...TEXT_AND_CALL.slice(0, -1),
          { type: 'finish', usage: usage(1, 1), finishReason: { unified: 'length', raw: 'length' } },
        ],
      ]),
    )
    const broken = lib.aiSdkModel(
      mockModel([[...TEXT_ONLY.slice(0, 2), { type: 'error', error: new Error('overloaded') }]]),
    )
    const failed = async (model: ModelAdapter) =>
      collect(model.stream(request(), new AbortController().signal)).then(
        () => undefined,
        (error: unknown) => error,
      )
    const [a, b, c] = await Promise.all([failed(noFinish), failed(cut), failed(broken)])
    expect(a).toBeInstanceOf(ModelError)
    expect(a).toMatchObject({
      kind: 'stream',
      message:
        'ai-sdk:mock:m1: the stream ended before a finish part, so the reply may be cut off; it was discarded and none of its tool calls ran. The connection broke or a proxy cut the response; retry, and check any proxy in between.',
    })
    expect(b).toMatchObject({
      kind: 'truncated',
      message:
        'ai-sdk:mock:m1: the provider cut the reply (finish reason "length") while it held tool calls, so their arguments may be incomplete; none of them ran. Raise maxOutputTokens in settings, or ask for smaller tool inputs.',
    })
    expect(c).toMatchObject({
      kind: 'stream',
      message: 'ai-sdk:mock:m1: the provider reported an error mid-stream: overloaded.',
    })
  })

  it('Z2.4: an aborted signal stops the stream with ModelAbortError and cancels the provider stream', async () => {
    let cancelled = false
    const inner = new mock.MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'partial' })
          },
          cancel() {
            cancelled = true
          },
        }),
      }),
    })
    const controller = new AbortController()
    const events: unknown[] = []
    const error = await (async () => {
      try {
        for await (const event of lib.aiSdkModel(inner).stream(request(), controller.signal)) {
          events.push(event)
          controller.abort()
        }
      } catch (e) {
        return e
      }
    })()
    expect(isModelAbort(error)).toBe(true)
    expect(events).toEqual([{ type: 'text-delta', text: 'partial' }])
    expect(cancelled).toBe(true)
  })

  it('Z2.4: an HTTP status is an http ModelError with the status; an unreachable endpoint is a connection one', async () => {
    const server = await wireServer(() => ({ status: 401, json: { error: { message: 'bad key' } } }), '/v1')
    const denied = compatible.createOpenAICompatible({ name: 'loop', baseURL: server.baseURL, apiKey: 'k' })
    const gone = compatible.createOpenAICompatible({
      name: 'loop',
      baseURL: await refusedURL('/v1'),
      apiKey: 'k',
    })
    const failed = (model: ModelAdapter) =>
      collect(model.stream(request(), new AbortController().signal)).then(
        () => undefined,
        (error: unknown) => error,
      )
    const http = await failed(lib.aiSdkModel(denied.chatModel('m')))
    expect(http).toBeInstanceOf(ModelError)
    expect(http).toMatchObject({ kind: 'http', status: 401 })
    expect((http as Error).message).toContain(
      `ai-sdk:loop.chat:m: HTTP 401 from ${server.baseURL}/chat/completions`,
    )
    const connection = await failed(lib.aiSdkModel(gone.chatModel('m')))
    expect(connection).toMatchObject({ kind: 'connection' })
    expect((connection as Error).message).toMatch(
      /^ai-sdk:loop\.chat:m: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(/,
    )
  })

  it('Z2.5: @ai-sdk/openai-compatible against a real loopback server drives the loop end to end', async () => {
    const { server, provider } = await loopbackProvider(
      [
        chatToolCall('call_w', 'read_file', ''),
        chatToolArgs('{"path":'),
        chatToolArgs('"/w"}'),
        chatChunk({}, 'tool_calls'),
        DONE,
      ],
      'All read.',
    )
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(readFile)
    const session = await openSession(memoryStore(), { id: 'ai-sdk-wire' })
    const agent = createAgent({ runtime, scope, session, model: lib.aiSdkModel(provider.chatModel('m')) })
    agent.send('read /w')
    await agent.whenIdle()

    expect(server.received).toHaveLength(2)
    expect(server.received[0]?.url).toBe('/v1/chat/completions')
    expect(server.received[0]?.body).toMatchObject({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'read /w' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read_file',
            description: 'Read a UTF-8 file.',
            parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          },
        },
      ],
    })
    expect(server.received[1]?.body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_w', type: 'function', function: { name: 'read_file', arguments: '{"path":"/w"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_w', content: 'contents of /w' },
    ])
    const call = session.events().find((event) => event.type === 'tool/call')
    expect(call?.data).toMatchObject({ callId: 'call_w', name: 'read_file', arguments: '{"path":"/w"}' })
    const end = session.events().at(-1)
    expect(end).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
  })
})
