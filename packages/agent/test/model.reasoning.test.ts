import { anthropic, ModelError, openaiCompatible } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { describe, expect } from 'vitest'
import { agentOn, itWithRig, lines, type Rig, rig, textOutput } from './loop-harness.js'
import { collect, request, wireServer } from './loopback-server.js'
import {
  anthropicEvent,
  anthropicStop,
  anthropicText,
  anthropicToolUse,
  chatChunk,
  messageStart,
} from './wire-fixtures.js'

const sse = anthropicEvent
const start = messageStart('claude-fixture', 20)
const stop = (reason: string) => anthropicStop(reason, 30)
// A signature with characters JSON escapes differently by hand (`/`, `+`, `=`) and unicode thinking.
const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h/+sig=='
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4a'
/** A thinking block (two thinking deltas, one signature delta), a redacted one, then a tool_use of `lookup`. */
const THINK_THEN_CALL = [
  start,
  sse('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants ' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'the “capital”.' } }),
  sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: SIGNATURE } }),
  sse('content_block_stop', { index: 0 }),
  sse('content_block_start', { index: 1, content_block: { type: 'redacted_thinking', data: REDACTED } }),
  sse('content_block_stop', { index: 1 }),
  ...anthropicToolUse({ index: 2, id: 'toolu_1', name: 'lookup', json: '{"q":"France"}' }),
  ...stop('tool_use'),
]
const ANSWER = [start, ...anthropicText(0, 'Paris.'), ...stop('end_turn')]
const THINKING = { type: 'thinking', thinking: 'The user wants the “capital”.', signature: SIGNATURE }
const REDACTED_BLOCK = { type: 'redacted_thinking', data: REDACTED }

/** One Chat Completions chunk of choice 0. */
const chunk = chatChunk
const REASON_THEN_CALL = [
  chunk({ role: 'assistant', reasoning_content: 'Need the ' }),
  chunk({ reasoning_content: 'lookup tool.' }),
  chunk({
    tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"France"}' } }] }),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
]
const REASON_THEN_TEXT = [
  chunk({ reasoning_content: 'Easy.' }),
  chunk({ content: 'Paris.' }),
  chunk({}, 'stop'),
  'data: [DONE]\n\n',
]

/** `it` with a fresh default rig as `r`. */
const it = itWithRig(() => rig())

describe('T1 reasoning content', () => {
  /** Registers on `r` `lookup {q}`, which records the arguments and the whole input it was given. */
  function lookup(r: Rig, seen: unknown[]): void {
    r.scope.register(
      defineTool({
        name: 'lookup',
        description: 'Looks a country up.',
        parameters: { q: { type: 'string', required: true } },
        output: textOutput,
        execute: (args, run) => {
          seen.push({ args, keys: Object.keys(run).sort() })
          return 'capital: Paris'
        },
      }),
    )
  }

  it('T1.1, T1.2: Anthropic thinking and redacted_thinking are recorded in assistant/message and the second request carries them back byte for byte', async ({
    r,
  }) => {
    const seen: unknown[] = []
    lookup(r, seen)
    const server = await wireServer((n) => ({ sse: n === 1 ? THINK_THEN_CALL : ANSWER }))
    const model = anthropic({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'claude-fixture',
      maxRetries: 0,
      thinking: { budgetTokens: 2048 },
    })
    const deltas: string[] = []
    const agent = agentOn(r, {
      model,
      onModelEvent: (event) => {
        if (event.type === 'reasoning-delta') deltas.push(event.text)
      },
    })
    expect(await agent.send('capital of France?')).toMatchObject({ reason: 'completed', text: 'Paris.' })

    const assistant = r.session.events().find((e) => e.type === 'assistant/message')
    expect(assistant?.data).toMatchObject({
      content: [
        { type: 'reasoning', wire: 'anthropic', text: 'The user wants the “capital”.', data: THINKING },
        { type: 'reasoning', wire: 'anthropic', text: '', redacted: true, data: REDACTED_BLOCK },
        { type: 'tool-call', id: 'toolu_1', name: 'lookup', arguments: '{"q":"France"}' },
      ],
    })
    expect(deltas).toEqual(['The user wants ', 'the “capital”.'])
    // The tool saw its arguments and its run context only.
    expect(seen).toEqual([{ args: { q: 'France' }, keys: expect.not.arrayContaining(['reasoning']) }])
    expect(server.received[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 })
    // Byte for byte: the blocks' exact JSON text, in their original order, before the tool_use.
    const second = server.received[1]!
    const blocks = `[${JSON.stringify(THINKING)},${JSON.stringify(REDACTED_BLOCK)},{"type":"tool_use"`
    expect(second.raw).toContain(blocks)
    expect(second.body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        THINKING,
        REDACTED_BLOCK,
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'France' } },
      ],
    })
  })

  it('T1.2: reasoning another wire produced is never sent to Anthropic; a request without the thinking option asks for none', async () => {
    const server = await wireServer(() => ({ sse: ANSWER }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', wire: 'openai-compatible', text: 'private', data: 'reasoning_content' },
          { type: 'text', text: 'Hello.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ] as never
    await collect(model.stream(request({ messages }), new AbortController().signal))
    expect(server.received[0]?.body.thinking).toBeUndefined()
    expect(server.received[0]?.body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello.' }],
    })
  })

  it('T1.3: OpenAI-compatible reasoning_content becomes one reasoning block and goes back in reasoning_content on the tool-call turn only', async ({
    r,
  }) => {
    const seen: unknown[] = []
    lookup(r, seen)
    const server = await wireServer((n) => ({ sse: n === 1 ? REASON_THEN_CALL : REASON_THEN_TEXT }), '/v1')
    const model = openaiCompatible({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'deepseek-x',
      maxRetries: 0,
    })
    const agent = agentOn(r, { model })
    expect(await agent.send('capital of France?')).toMatchObject({ reason: 'completed', text: 'Paris.' })
    expect(await agent.send('and Spain?')).toMatchObject({ reason: 'completed' })

    const replies = r.session.events().filter((e) => e.type === 'assistant/message')
    expect(replies[0]?.data.content).toEqual([
      {
        type: 'reasoning',
        wire: 'openai-compatible',
        text: 'Need the lookup tool.',
        data: 'reasoning_content',
      },
      { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: '{"q":"France"}' },
    ])
    expect(replies[1]?.data.content).toEqual([
      { type: 'reasoning', wire: 'openai-compatible', text: 'Easy.', data: 'reasoning_content' },
      { type: 'text', text: 'Paris.' },
    ])
    // Request 3 carries the tool-call turn's reasoning back; the text-only turn goes without it.
    const sent = server.received[2]!.body.messages
    expect(sent[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"France"}' } },
      ],
      reasoning_content: 'Need the lookup tool.',
    })
    expect(sent[3]).toEqual({ role: 'assistant', content: 'Paris.' })
    expect(lines(r.session).filter((l) => l.startsWith('tool/'))).toEqual([
      'tool/call call_1',
      'tool/result call_1 ok',
    ])
  })

  it('T1.3: a server that streams `reasoning` instead gets it back in `reasoning`', async () => {
    const server = await wireServer(() => ({ sse: REASON_THEN_TEXT }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const wire = [chunk({ reasoning: 'Think.' }), ...REASON_THEN_CALL.slice(2)]
    const other = await wireServer(() => ({ sse: wire }), '/v1')
    const first = openaiCompatible({ baseURL: other.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const events = await collect(first.stream(request(), new AbortController().signal))
    const reply = events.at(-1)
    expect(reply?.type === 'message' && reply.content[0]).toEqual({
      type: 'reasoning',
      wire: 'openai-compatible',
      text: 'Think.',
      data: 'reasoning',
    })
    const messages = [
      ...request().messages,
      { role: 'assistant', content: reply?.type === 'message' ? reply.content : [] },
      { role: 'tool', callId: 'call_1', isError: false, content: [{ type: 'text', text: 'Paris' }] },
    ] as never
    await collect(model.stream(request({ messages }), new AbortController().signal))
    expect(server.received[0]?.body.messages[2].reasoning).toBe('Think.')
    expect(server.received[0]?.body.messages[2].reasoning_content).toBeUndefined()
  })

  it('T1.6: a reply aborted while it streams keeps no partial reasoning', async ({ r }) => {
    const server = await wireServer(() => ({ sse: THINK_THEN_CALL.slice(0, 4), hang: true }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const agent = agentOn(r, {
      model,
      onModelEvent: (event) => {
        if (event.type === 'reasoning-delta') agent.abort()
      },
    })
    expect(await agent.send('go')).toMatchObject({ reason: 'aborted' })
    expect(r.session.events().some((e) => e.type === 'assistant/message')).toBe(false)
  })

  it('T1.2: a truncated error keeps the reasoning with the cut reply', async () => {
    const server = await wireServer(() => ({ sse: [...THINK_THEN_CALL.slice(0, -2), ...stop('max_tokens')] }))
    const model = anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
    const error = await collect(model.stream(request(), new AbortController().signal)).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ModelError)
    expect((error as ModelError).reply?.content.map((b) => b.type)).toEqual([
      'reasoning',
      'reasoning',
      'tool-call',
    ])
  })
})
