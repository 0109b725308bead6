import { anthropic, ModelAbortError, ModelError, type ModelStreamEvent } from '@tooltx/agent'
import { describe, expect, it } from 'vitest'
import {
  abortAtToolArguments,
  collect,
  READ_FILE,
  refusedURL,
  request,
  sseFixture,
  streamError,
  wireServer,
} from './loopback-server.js'

const EVENTS = sseFixture('anthropic-text-and-tools.sse')

const sse = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * What streaming `request()` threw when the server answers with HTTP `status` and an Anthropic
 * error body of `type` saying `message`; the adapter sends `apiKey` (default `k`), no retries.
 */
async function httpError(answer: { status: number; type: string; message: string; apiKey?: string }) {
  const { status, type, message } = answer
  const server = await wireServer(() => ({ status, json: { type: 'error', error: { type, message } } }))
  const model = anthropic({
    baseURL: server.baseURL,
    apiKey: answer.apiKey ?? 'k',
    model: 'c',
    maxRetries: 0,
  })
  return { server, error: await streamError(model) }
}

describe('anthropic against a loopback Messages API server', () => {
  it('L3.4: streams text and tool-call deltas, then one message with the raw argument strings and usage', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'sk-ant-test', model: 'claude-fixture' })
    const events = await collect(model.stream(request(), new AbortController().signal))

    expect(events.slice(0, -1)).toEqual([
      { type: 'text-delta', text: 'Reading ' },
      { type: 'text-delta', text: 'it now.' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_a', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path": "/etc' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '/hostname"}' },
      // The tool-call index counts tool calls (content block 2 is tool call 1).
      { type: 'tool-call-delta', index: 1, id: 'toolu_b', name: 'list_dir', argumentsDelta: '' },
    ])
    expect(events.at(-1)).toEqual({
      type: 'message',
      content: [
        { type: 'text', text: 'Reading it now.' },
        { type: 'tool-call', id: 'toolu_a', name: 'read_file', arguments: '{"path": "/etc/hostname"}' },
        { type: 'tool-call', id: 'toolu_b', name: 'list_dir', arguments: '' },
      ],
      // Input counts cached tokens too: 40 + 5 + 3; output is the cumulative count of message_delta.
      usage: { inputTokens: 48, outputTokens: 29 },
      stop: { reason: 'tool_calls', raw: 'tool_use' },
    })
  })

  it('sends system + instructions as system, tools as input_schema, the default max_tokens and the API key', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'sk-ant-test', model: 'claude-fixture' })
    await collect(model.stream(request(), new AbortController().signal))
    const [got] = server.received
    expect(got?.url).toBe('/v1/messages')
    // The Messages API's own authentication and version headers; no bearer credential.
    expect(got?.headers['x-api-key']).toBe('sk-ant-test')
    expect(got?.headers['anthropic-version']).toBe('2026-10-21')
    expect(got?.headers.authorization).toBeUndefined()
    expect(got?.body).toEqual({
      model: 'claude-fixture',
      max_tokens: 4096,
      stream: true,
      system: 'You are terse.\n\nTools: read_file.',
      tools: [{ name: 'read_file', description: 'Read a UTF-8 file.', input_schema: READ_FILE.parameters }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'read /etc/hostname' }] }],
    })
  })

  it("Y2.33: a request's maxTokens is sent as max_tokens in place of the adapter's own", async () => {
    const server = await wireServer(() => ({ sse: EVENTS }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxTokens: 100 })
    await collect(model.stream({ ...request(), maxTokens: 20 }, new AbortController().signal))
    expect(server.received[0]?.body).toMatchObject({ max_tokens: 20 })
  })

  it('O2.4: maps tool messages to tool_result blocks with is_error, merged into one user message, images kept', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxTokens: 100 })
    await collect(
      model.stream(
        request({
          system: '',
          instructions: '',
          tools: [],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'compare these' },
                { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
                { type: 'image', mediaType: 'image/bmp', data: 'Qk0=' },
              ],
            },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: '' },
                { type: 'text', text: 'Checking.' },
                { type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path" :"/a"}' },
                { type: 'tool-call', id: 'c2', name: 'grep', arguments: '{"pattern": "TO' },
                { type: 'tool-call', id: 'c3', name: 'shot', arguments: '  ' },
                { type: 'tool-call', id: 'c4', name: 'sum', arguments: '[1,2]' },
              ],
            },
            { role: 'tool', callId: 'c1', isError: false, content: [{ type: 'text', text: 'alpha' }] },
            {
              role: 'tool',
              callId: 'c2',
              isError: true,
              content: [{ type: 'text', text: 'Error: invalid arguments' }],
            },
            {
              role: 'tool',
              callId: 'c3',
              isError: false,
              content: [{ type: 'image', mediaType: 'image/jpeg', data: '/9j/' }],
            },
            { role: 'tool', callId: 'c4', isError: true, content: [] },
            {
              role: 'user',
              content: [{ type: 'text', text: 'context: the build finished' }],
              source: { kind: 'tool', name: 'shot', callId: 'c3' },
            },
          ],
        }),
        new AbortController().signal,
      ),
    )
    const body = server.received[0]?.body
    expect(body).not.toHaveProperty('system')
    expect(body).not.toHaveProperty('tools')
    expect(body.max_tokens).toBe(100)
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'compare these' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          {
            type: 'text',
            text: '[image omitted: image/bmp, the provider takes only image/jpeg, image/png, image/gif and image/webp]',
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: '/a' } },
          // The API needs an object: raw text that is not a JSON object is kept under `_raw`.
          { type: 'tool_use', id: 'c2', name: 'grep', input: { _raw: '{"pattern": "TO' } },
          { type: 'tool_use', id: 'c3', name: 'shot', input: {} },
          { type: 'tool_use', id: 'c4', name: 'sum', input: { _raw: '[1,2]' } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'c1',
            is_error: false,
            content: [{ type: 'text', text: 'alpha' }],
          },
          {
            type: 'tool_result',
            tool_use_id: 'c2',
            is_error: true,
            content: [{ type: 'text', text: 'Error: invalid arguments' }],
          },
          {
            type: 'tool_result',
            tool_use_id: 'c3',
            is_error: false,
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } }],
          },
          { type: 'tool_result', tool_use_id: 'c4', is_error: true },
          // A context that follows the results joins the same user message, after them.
          { type: 'text', text: 'context: the build finished' },
        ],
      },
    ])
  })

  it('L6.6: an abort mid-stream throws ModelAbortError, cancels the HTTP request, and keeps only the partial text', async () => {
    // Up to the first argument piece of the first tool call, then silence with the response still open.
    const server = await wireServer(() => ({ sse: EVENTS.slice(0, 9), hang: true }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const { error, reply } = await abortAtToolArguments(model)
    expect(error).toBeInstanceOf(ModelAbortError)
    expect(reply.message).toBeUndefined()
    expect(reply.partial()).toEqual([{ type: 'text', text: 'Reading it now.' }])
    expect(await server.closedBy()).toBe('client')
  })

  it('L3.4: a tool_use whose whole input comes with content_block_start (no deltas) keeps it as the raw string', async () => {
    const events = [
      EVENTS[0]!,
      sse('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_x', name: 'read_file', input: { path: '/a' } },
      }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use' },
        usage: { output_tokens: 3 },
      }),
      sse('message_stop', { type: 'message_stop' }),
    ]
    const server = await wireServer(() => ({ sse: events }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c' })
    const got = await collect(model.stream(request(), new AbortController().signal))
    expect(got.at(-1)).toMatchObject({
      content: [{ type: 'tool-call', id: 'toolu_x', name: 'read_file', arguments: '{"path":"/a"}' }],
    })
  })

  it('an HTTP 401 becomes a ModelError that names the status and the server message and says to check the apiKey', async () => {
    const { server, error } = await httpError({
      status: 401,
      type: 'authentication_error',
      message: 'invalid x-api-key',
      apiKey: 'wrong',
    })
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'http', status: 401, adapter: 'anthropic:c' })
    expect((error as Error).message).toBe(
      `anthropic:c: HTTP 401 from ${server.baseURL}: invalid x-api-key. Check the apiKey.`,
    )
    expect(server.received).toHaveLength(1)
  })

  it('an HTTP 500 becomes a ModelError that says to retry later', async () => {
    const { server, error } = await httpError({
      status: 500,
      type: 'api_error',
      message: 'Internal server error',
    })
    expect(error).toMatchObject({ kind: 'http', status: 500 })
    expect((error as Error).message).toContain('Internal server error')
    expect((error as Error).message).toContain('The provider failed; retry later')
    expect(server.received).toHaveLength(1)
  })

  it('an error event mid-stream becomes a stream ModelError with the provider message', async () => {
    const overloaded = sse('error', {
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    })
    const server = await wireServer(() => ({ sse: [...EVENTS.slice(0, 4), overloaded] }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const error = await streamError(model)
    expect(error).toBeInstanceOf(ModelError)
    expect((error as Error).message).toContain('Overloaded')
  })

  it('a stream that ends before message_stop becomes a stream ModelError, not a truncated message', async () => {
    const server = await wireServer(() => ({ sse: EVENTS.slice(0, 9) }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const events: ModelStreamEvent[] = []
    const error = await (async () => {
      for await (const event of model.stream(request(), new AbortController().signal)) events.push(event)
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'stream' })
    expect((error as Error).message).toContain('the stream ended before message_stop')
    expect(events.some((e) => e.type === 'message')).toBe(false)
  })

  it('an unreachable endpoint becomes a connection ModelError naming the URL, the cause and what to check', async () => {
    const baseURL = await refusedURL()
    const model = anthropic({ baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const error = await streamError(model)
    expect(error).toMatchObject({ kind: 'connection' })
    expect((error as Error).message).toContain(`cannot reach ${baseURL}`)
    expect((error as Error).message).toContain('ECONNREFUSED')
  })
})
