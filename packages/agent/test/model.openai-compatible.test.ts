import {
  isModelAbort,
  ModelAbortError,
  ModelError,
  type ModelStreamEvent,
  openaiCompatible,
  readReply,
} from '@tooltx/agent'
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

const EVENTS = sseFixture('openai-text-and-tools.sse')

describe('openaiCompatible against a loopback Chat Completions server', () => {
  it('L3.4: streams text and tool-call deltas, then one message with the raw argument strings and usage', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'sk-test', model: 'fixture-model' })
    const events = await collect(model.stream(request(), new AbortController().signal))

    expect(events.filter((e) => e.type === 'text-delta')).toEqual([
      { type: 'text-delta', text: "I'll read " },
      { type: 'text-delta', text: 'both files.' },
    ])
    expect(events.filter((e) => e.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', index: 0, id: 'call_a', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"pa' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'th": "/etc' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '/hostname"}' },
      {
        type: 'tool-call-delta',
        index: 1,
        id: 'call_b',
        name: 'grep',
        argumentsDelta: ' {"pattern":"TODO" ,',
      },
      { type: 'tool-call-delta', index: 1, argumentsDelta: ' "n": 1.50' },
    ])
    expect(events.filter((e) => e.type === 'message')).toHaveLength(1)
    expect(events.at(-1)).toEqual({
      type: 'message',
      content: [
        { type: 'text', text: "I'll read both files." },
        { type: 'tool-call', id: 'call_a', name: 'read_file', arguments: '{"path": "/etc/hostname"}' },
        // Not valid JSON and not normalized: the raw string exactly as streamed.
        { type: 'tool-call', id: 'call_b', name: 'grep', arguments: ' {"pattern":"TODO" , "n": 1.50' },
      ],
      usage: { inputTokens: 57, outputTokens: 31 },
      stop: { reason: 'tool_calls', raw: 'tool_calls' },
    })
  })

  it("Y2.33: a request's maxTokens is sent as max_tokens in place of the adapter's own", async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxTokens: 321 })
    await collect(model.stream({ ...request(), maxTokens: 20 }, new AbortController().signal))
    expect(server.received[0]?.body).toMatchObject({ max_tokens: 20 })
  })

  it('sends system + instructions as one system message, the tools, stream options and the bearer key', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({
      baseURL: server.baseURL,
      apiKey: 'sk-test',
      model: 'fixture-model',
      maxTokens: 321,
    })
    await collect(model.stream(request(), new AbortController().signal))

    const [got] = server.received
    expect(got?.url).toBe('/v1/chat/completions')
    expect(got?.headers.authorization).toBe('Bearer sk-test')
    expect(got?.body).toEqual({
      model: 'fixture-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 321,
      tools: [{ type: 'function', function: READ_FILE }],
      messages: [
        { role: 'system', content: 'You are terse.\n\nTools: read_file.' },
        { role: 'user', content: 'read /etc/hostname' },
      ],
    })
  })

  it('leaves out an empty tools list and an empty system prompt', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm' })
    await collect(
      model.stream(request({ system: '', instructions: '', tools: [] }), new AbortController().signal),
    )
    const body = server.received[0]?.body
    expect(body).not.toHaveProperty('tools')
    expect(body.messages).toEqual([{ role: 'user', content: 'read /etc/hostname' }])
  })

  it('O2.4: maps user parts, assistant tool calls with raw arguments, and tool messages from content and isError only', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm' })
    await collect(
      model.stream(
        request({
          system: undefined,
          instructions: 'surface',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'what is in this picture?' },
                { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
                { type: 'audio', url: 'x' },
              ],
            },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Looking.' },
                { type: 'tool-call', id: 'c1', name: 'read_file', arguments: '{"path" :"/a"}' },
                { type: 'tool-call', id: 'c2', name: 'grep', arguments: 'not json' },
                { type: 'tool-call', id: 'c3', name: 'shot', arguments: '' },
                { type: 'tool-call', id: 'c4', name: 'fail', arguments: '{}' },
              ],
            },
            { role: 'tool', callId: 'c1', isError: false, content: [{ type: 'text', text: 'alpha' }] },
            {
              role: 'tool',
              callId: 'c2',
              isError: true,
              content: [{ type: 'text', text: 'Error: bad args' }],
            },
            {
              role: 'tool',
              callId: 'c3',
              isError: false,
              content: [
                { type: 'text', text: 'screenshot:' },
                { type: 'image', mediaType: 'image/jpeg', data: '/9j/' },
              ],
            },
            { role: 'tool', callId: 'c4', isError: true, content: [{ type: 'text', text: 'disk full' }] },
            { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
          ],
        }),
        new AbortController().signal,
      ),
    )
    expect(server.received[0]?.body.messages).toEqual([
      { role: 'system', content: 'surface' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: '[audio block omitted: the provider cannot take this block type]' },
        ],
      },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path" :"/a"}' } },
          { id: 'c2', type: 'function', function: { name: 'grep', arguments: 'not json' } },
          { id: 'c3', type: 'function', function: { name: 'shot', arguments: '' } },
          { id: 'c4', type: 'function', function: { name: 'fail', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'alpha' },
      // Already says it failed: sent unchanged.
      { role: 'tool', tool_call_id: 'c2', content: 'Error: bad args' },
      // Images cannot go in a tool message: a clear note, never silently dropped.
      {
        role: 'tool',
        tool_call_id: 'c3',
        content:
          'screenshot:\n\n[image omitted: image/jpeg, the provider cannot take images in tool results]',
      },
      // isError has no wire flag: the text says it explicitly.
      { role: 'tool', tool_call_id: 'c4', content: 'Error: disk full' },
      { role: 'assistant', content: 'Done.' },
    ])
  })

  it('L6.6: an abort mid-stream throws ModelAbortError, cancels the HTTP request, and keeps only the partial text', async () => {
    // Text, then the start of a tool call, then the server goes quiet without ending the response.
    const server = await wireServer(() => ({ sse: EVENTS.slice(0, 5), hang: true }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const { error, reply } = await abortAtToolArguments(model)
    expect(error).toBeInstanceOf(ModelAbortError)
    expect(isModelAbort(error)).toBe(true)
    expect(reply.message).toBeUndefined()
    expect(reply.partial()).toEqual([{ type: 'text', text: "I'll read both files." }])
    expect(await server.closedBy()).toBe('client')
  })

  it('L6.6: readReply resolves an aborted stream as its partial text without the incomplete tool call', async () => {
    const server = await wireServer(() => ({ sse: EVENTS.slice(0, 5), hang: true }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const controller = new AbortController()
    const outcome = await readReply(model, request(), controller.signal, (event) => {
      if (event.type === 'tool-call-delta' && event.argumentsDelta !== '') controller.abort()
    })
    expect(outcome).toEqual({ status: 'aborted', content: [{ type: 'text', text: "I'll read both files." }] })
  })

  it('leaving the iteration early cancels the HTTP request', async () => {
    const server = await wireServer(() => ({ sse: EVENTS.slice(0, 3), hang: true }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const seen: ModelStreamEvent[] = []
    for await (const event of model.stream(request(), new AbortController().signal)) {
      seen.push(event)
      if (event.type === 'text-delta') break
    }
    expect(seen).toEqual([{ type: 'text-delta', text: "I'll read " }])
    expect(server.received).toHaveLength(1)
    expect(await server.closedBy()).toBe('client')
  })

  it('a signal aborted before the call throws ModelAbortError and sends nothing', async () => {
    const server = await wireServer(() => ({ sse: EVENTS }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm' })
    await expect(collect(model.stream(request(), AbortSignal.abort()))).rejects.toBeInstanceOf(
      ModelAbortError,
    )
    expect(server.received).toHaveLength(0)
  })

  it('an HTTP 401 becomes a ModelError that names the status and the server message and says to check the apiKey', async () => {
    const server = await wireServer(
      () => ({
        status: 401,
        json: {
          error: {
            message: 'Incorrect API key provided',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      }),
      '/v1',
    )
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'wrong', model: 'm', maxRetries: 0 })
    const error = await streamError(model)
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'http', status: 401, adapter: 'openai-compatible:m' })
    expect((error as Error).message).toBe(
      `openai-compatible:m: HTTP 401 from ${server.baseURL}: Incorrect API key provided. Check the apiKey.`,
    )
  })

  it('an HTTP 500 becomes a ModelError that says to retry later, after exactly maxRetries retries', async () => {
    const server = await wireServer(
      () => ({
        status: 500,
        json: { error: { message: 'upstream exploded' } },
        headers: { 'retry-after-ms': '1' },
      }),
      '/v1',
    )
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 1 })
    const error = await streamError(model)
    expect(error).toMatchObject({ kind: 'http', status: 500 })
    expect((error as Error).message).toContain('upstream exploded')
    expect((error as Error).message).toContain('The provider failed; retry later')
    expect(server.received).toHaveLength(2)
  })

  it('an unreachable endpoint becomes a connection ModelError naming the URL, the cause and what to check', async () => {
    const baseURL = await refusedURL('/v1')
    const model = openaiCompatible({ baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const error = await streamError(model)
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'connection' })
    expect((error as Error).message).toContain(`cannot reach ${baseURL}`)
    expect((error as Error).message).toContain('ECONNREFUSED')
    expect((error as Error).message).toContain('Check that the server is running and that baseURL is right.')
  })
})
