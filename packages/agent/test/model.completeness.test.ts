import {
  anthropic,
  type ModelAdapter,
  ModelError,
  type ModelStreamEvent,
  openaiCompatible,
} from '@tooltx/agent'
import { parseToolArguments } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect } from 'vitest'
import { agentOn, bashTool, failedTurn, it, lines } from './loop-harness.js'
import { type Answer, collect, request, sseFixture, wireServer } from './loopback-server.js'
import { anthropicToolUse, anthropicStop as anthropicWireStop, chatChunk, DONE } from './wire-fixtures.js'

/** A tool-call delta of call 0 (`bash`, id `call_rm`); `first` carries the id and name. */
const toolDelta = (args: unknown, first = false) =>
  chatChunk({
    tool_calls: [
      {
        index: 0,
        ...(first ? { id: 'call_rm', type: 'function' } : {}),
        function: { ...(first ? { name: 'bash' } : {}), arguments: args },
      },
    ],
  })
const text = (content: string) => chatChunk({ content })
const finish = (reason: string) => chatChunk({}, reason)
/** The reply the report describes: a tool call cut off inside its argument string. */
const CUT_CALL = [toolDelta('', true), toolDelta('{"cmd":"rm -rf build')]

const ANTHROPIC = sseFixture('anthropic-text-and-tools.sse')
/** message_start, then a closed tool_use block for `bash` whose input stops inside a string. */
const ANTHROPIC_TOOL = [
  ANTHROPIC[0]!,
  ...anthropicToolUse({ index: 0, id: 'toolu_rm', name: 'bash', json: '{"cmd":"rm -rf build' }),
]
const anthropicStop = (stopReason: string) => anthropicWireStop(stopReason, 9)

/** An adapter whose server answers the first request with `first` and later ones with `then`. */
async function openai(first: Answer, then: Answer = first): Promise<ModelAdapter> {
  const server = await wireServer((n) => (n === 1 ? first : then), '/v1')
  return openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
}

async function claude(sse: string[], then: string[] = sse): Promise<ModelAdapter> {
  const server = await wireServer((n) => ({ sse: n === 1 ? sse : then }))
  return anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 })
}

/** The events a stream yielded before it ended, and what it threw (undefined when it completed). */
async function drain(model: ModelAdapter): Promise<{ events: ModelStreamEvent[]; error: unknown }> {
  const events: ModelStreamEvent[] = []
  try {
    for await (const event of model.stream(request(), new AbortController().signal)) events.push(event)
  } catch (error) {
    return { events, error }
  }
  return { events, error: undefined }
}

const UNFINISHED_TAIL =
  'so the reply may be cut off; it was discarded and none of its tool calls ran. ' +
  'The connection broke or a proxy cut the response; retry, and check any proxy in between.'

describe('L12.1 a reply is complete only when the stream says so', () => {
  it('L12.1: an OpenAI-compatible stream that ends without finish_reason and [DONE] inside a tool call is a stream ModelError with no message; one cut right after its finish_reason is complete', async () => {
    const { events, error } = await drain(await openai({ sse: CUT_CALL }))
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'stream', adapter: 'openai-compatible:m' })
    expect((error as Error).message).toBe(
      `openai-compatible:m: the stream ended before a finish_reason, ${UNFINISHED_TAIL}`,
    )
    expect(events.map((e) => e.type)).toEqual(['tool-call-delta', 'tool-call-delta'])

    // finish_reason is the end marker: no usage chunk and no [DONE] are needed after it.
    const complete = await openai({ sse: [CUT_CALL[0]!, toolDelta('{"cmd":"ls"}'), finish('tool_calls')] })
    expect((await collect(complete.stream(request(), new AbortController().signal))).at(-1)).toEqual({
      type: 'message',
      content: [{ type: 'tool-call', id: 'call_rm', name: 'bash', arguments: '{"cmd":"ls"}' }],
      usage: { inputTokens: 0, outputTokens: 0 },
      stop: { reason: 'tool_calls', raw: 'tool_calls' },
    })
  })

  it('L12.1: a text-only OpenAI-compatible stream without finish_reason fails too, even when it ends with [DONE]', async () => {
    const { events, error } = await drain(await openai({ sse: [text('Half a sen'), DONE] }))
    expect(error).toMatchObject({ kind: 'stream' })
    expect(events.some((e) => e.type === 'message')).toBe(false)
  })

  it('L12.1: an Anthropic stream that ends after a closed tool_use block but before message_stop is a stream ModelError with no message', async () => {
    const { events, error } = await drain(await claude(ANTHROPIC_TOOL))
    expect(error).toMatchObject({ kind: 'stream', adapter: 'anthropic:c' })
    expect((error as Error).message).toBe(
      `anthropic:c: the stream ended before message_stop, ${UNFINISHED_TAIL}`,
    )
    expect(events.some((e) => e.type === 'message')).toBe(false)
  })
})

describe('L12.1 in the loop: no call of an unfinished reply runs', () => {
  const bash = bashTool

  it('L12.1: a truncated OpenAI-compatible reply ends the turn with an error; the raw tool never runs and no tool/call is logged', async ({
    r,
  }) => {
    const seen: unknown[] = []
    r.scope.register(bash(seen))
    // Later requests get a plain answer, so a loop that ran the cut call still ends.
    const model = await openai({ sse: CUT_CALL }, { sse: [text('done'), finish('stop')] })
    const agent = agentOn(r, { model })
    agent.send('clean up')
    await agent.whenIdle()
    expect(seen).toEqual([])
    expect(lines(r.session)).toEqual(failedTurn('clean up'))
    const end = r.session.events().at(-1)
    expect(end?.type === 'turn/end' && end.data.message).toBe(
      `openai-compatible:m: the stream ended before a finish_reason, ${UNFINISHED_TAIL}`,
    )
  })

  it('L12.2: an Anthropic reply cut at max_tokens inside a tool_use ends the turn with an error; the raw tool never runs', async ({
    r,
  }) => {
    const seen: unknown[] = []
    r.scope.register(bash(seen))
    const model = await claude(
      [...ANTHROPIC_TOOL, ...anthropicStop('max_tokens')],
      [...ANTHROPIC.slice(0, 6), ...anthropicStop('end_turn')],
    )
    const agent = agentOn(r, { model })
    agent.send('clean up')
    await agent.whenIdle()
    expect(seen).toEqual([])
    expect(lines(r.session).at(-1)).toBe('turn/end error')
    expect(lines(r.session)).not.toContain('tool/call toolu_rm')
  })
})

describe('L12.2 a reply the provider cut fails when it holds tool calls', () => {
  it('L12.2: OpenAI-compatible finish_reason "length" with a tool call is a truncated ModelError saying to raise maxTokens; a text-only one is complete', async () => {
    const { events, error } = await drain(await openai({ sse: [...CUT_CALL, finish('length'), DONE] }))
    expect(error).toMatchObject({ kind: 'truncated', adapter: 'openai-compatible:m' })
    expect((error as Error).message).toBe(
      'openai-compatible:m: the provider cut the reply (finish_reason "length") while it held tool calls, ' +
        'so their arguments may be incomplete; none of them ran. Raise maxTokens, or ask for smaller tool inputs.',
    )
    expect(events.some((e) => e.type === 'message')).toBe(false)

    const textOnly = await openai({ sse: [text('The answer is'), finish('length'), DONE] })
    expect((await collect(textOnly.stream(request(), new AbortController().signal))).at(-1)).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'The answer is' }],
    })
  })

  it('L12.2: OpenAI-compatible finish_reason "content_filter" with a tool call is a truncated ModelError', async () => {
    const { error } = await drain(await openai({ sse: [...CUT_CALL, finish('content_filter')] }))
    expect(error).toMatchObject({ kind: 'truncated' })
    expect((error as Error).message).toContain("The provider's content filter stopped the reply")
  })

  it.each([
    ['max_tokens', 'Raise maxTokens, or ask for smaller tool inputs.'],
    ['model_context_window_exceeded', "The conversation fills the model's context window; shorten it."],
    ['refusal', 'The model stopped the reply as a refusal; rephrase the request.'],
  ])('L12.2: Anthropic stop_reason "%s" with a tool_use is a truncated ModelError', async (reason, hint) => {
    const { events, error } = await drain(await claude([...ANTHROPIC_TOOL, ...anthropicStop(reason)]))
    expect(error).toMatchObject({ kind: 'truncated', adapter: 'anthropic:c' })
    expect((error as Error).message).toBe(
      `anthropic:c: the provider cut the reply (stop_reason "${reason}") while it held tool calls, ` +
        `so their arguments may be incomplete; none of them ran. ${hint}`,
    )
    expect(events.some((e) => e.type === 'message')).toBe(false)
  })

  it('L12.2: an Anthropic text-only reply stopped at max_tokens is complete and keeps its text, one with a tool_use is not', async () => {
    const sse = [...ANTHROPIC.slice(0, 6), ...anthropicStop('max_tokens')]
    const events = await collect((await claude(sse)).stream(request(), new AbortController().signal))
    expect(events.at(-1)).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'Reading it now.' }],
    })
    const { error } = await drain(
      await claude([...ANTHROPIC.slice(0, 6), ...ANTHROPIC_TOOL.slice(1), ...anthropicStop('max_tokens')]),
    )
    expect(error).toMatchObject({ kind: 'truncated' })
  })
})

describe('L12.3 tool-call arguments streamed as a JSON value', () => {
  it('L12.3: an object `arguments` becomes its JSON text, so the call parses to what the server sent', async () => {
    const wire = [toolDelta({ cmd: 'ls', n: 1.5, deep: [null, true] }, true), finish('tool_calls'), DONE]
    const events = await collect(
      (await openai({ sse: wire })).stream(request(), new AbortController().signal),
    )
    expect(events).toEqual([
      {
        type: 'tool-call-delta',
        index: 0,
        id: 'call_rm',
        name: 'bash',
        argumentsDelta: '{"cmd":"ls","n":1.5,"deep":[null,true]}',
      },
      {
        type: 'message',
        content: [
          {
            type: 'tool-call',
            id: 'call_rm',
            name: 'bash',
            arguments: '{"cmd":"ls","n":1.5,"deep":[null,true]}',
          },
        ],
        usage: { inputTokens: 0, outputTokens: 0 },
        stop: { reason: 'tool_calls', raw: 'tool_calls' },
      },
    ])
  })

  it('L12.3: for any non-string JSON value sent as `arguments`, the recorded call parses (L4.1) to the value the wire carried', async () => {
    let wire: string[] = []
    const server = await wireServer(() => ({ sse: wire }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const values = fc.jsonValue().filter((v) => v !== null && typeof v !== 'string')
    await fc.assert(
      fc.asyncProperty(values, fc.boolean(), async (value, emptyTail) => {
        // What the wire carries is the value's JSON text (-0 is sent as 0).
        const sent = JSON.parse(JSON.stringify(value))
        wire = [toolDelta(sent, true), ...(emptyTail ? [toolDelta('')] : []), finish('tool_calls')]
        const events = await collect(model.stream(request(), new AbortController().signal))
        const last = events.at(-1)
        const block = last?.type === 'message' ? last.content[0] : undefined
        expect(block?.type).toBe('tool-call')
        expect(parseToolArguments(block?.type === 'tool-call' ? block.arguments : '')).toEqual(sent)
      }),
      { numRuns: 40 },
    )
  })

  it.each([
    ['a JSON value after string pieces', [toolDelta('{"cmd":', true), toolDelta({ cmd: 'ls' })]],
    ['string pieces after a JSON value', [toolDelta({ cmd: 'ls' }, true), toolDelta('"rm"}')]],
    ['two JSON values', [toolDelta({ cmd: 'ls' }, true), toolDelta({ cmd: 'rm' })]],
  ])('L12.3: %s for one call is a stream ModelError naming the call, and no message', async (_, sse) => {
    const { events, error } = await drain(await openai({ sse: [...sse, finish('tool_calls')] }))
    expect(error).toMatchObject({ kind: 'stream' })
    expect((error as Error).message).toBe(
      'openai-compatible:m: tool call 0 ("bash") sent its arguments both as a JSON value and as more pieces, ' +
        "so they cannot be joined into what the model meant; none of the reply's tool calls ran. " +
        'The server breaks the Chat Completions wire.',
    )
    expect(events.some((e) => e.type === 'message')).toBe(false)
  })
})
