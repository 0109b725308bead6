import {
  isModelAbort,
  ModelAbortError,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  ReplyAccumulator,
  readReply,
  scripted,
} from '@tooltx/agent'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'

const request = (text: string): ModelRequest => ({
  instructions: 'surface',
  tools: [],
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
})

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

afterEach(() => {
  vi.useRealTimers()
})

describe('scripted model', () => {
  it('L3.4: streams text word by word and tool calls in pieces, then one message with the raw argument strings', async () => {
    const model = scripted([
      {
        text: 'Reading two files.',
        toolCalls: [
          { name: 'read_file', arguments: '{"path":"/etc/hostname"}' },
          { id: 'mine', name: 'grep', arguments: '{"pattern": "TO' },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
    ])
    const events = await collect(model.stream(request('go'), new AbortController().signal))
    expect(events).toEqual([
      { type: 'text-delta', text: 'Reading ' },
      { type: 'text-delta', text: 'two ' },
      { type: 'text-delta', text: 'files.' },
      { type: 'tool-call-delta', index: 0, id: 'call_1_1', name: 'read_file', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"/etc/ho' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: 'stname"}' },
      { type: 'tool-call-delta', index: 1, id: 'mine', name: 'grep', argumentsDelta: '' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"patter' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: 'n": "TO' },
      {
        type: 'message',
        content: [
          { type: 'text', text: 'Reading two files.' },
          { type: 'tool-call', id: 'call_1_1', name: 'read_file', arguments: '{"path":"/etc/hostname"}' },
          { type: 'tool-call', id: 'mine', name: 'grep', arguments: '{"pattern": "TO' },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
    ])
  })

  it('answers request n with step n, records every request, and runs each expect against its request', async () => {
    const seen: string[] = []
    const model = scripted([
      { text: 'one', expect: (r) => seen.push(JSON.stringify(r.messages)) },
      { toolCalls: [{ name: 'ls', arguments: '' }] },
    ])
    expect(model.remaining).toBe(2)
    const first = await collect(model.stream(request('a'), new AbortController().signal))
    const second = await collect(model.stream(request('b'), new AbortController().signal))
    expect(first.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'one' }] })
    expect(second.at(-1)).toMatchObject({
      content: [{ type: 'tool-call', id: 'call_2_1', name: 'ls', arguments: '' }],
    })
    expect(seen).toEqual([JSON.stringify(request('a').messages)])
    expect(model.requests).toEqual([request('a'), request('b')])
    expect(model.remaining).toBe(0)
    expect(() => model.assertDone()).not.toThrow()
  })

  it('records requests as copies, so later changes to the caller’s objects do not rewrite history', async () => {
    const model = scripted([{ text: 'ok' }])
    const r = request('original')
    await collect(model.stream(r, new AbortController().signal))
    ;(r.messages.at(0)!.content[0] as { text: string }).text = 'changed'
    expect(model.requests[0]).toEqual(request('original'))
  })

  it('a failing expect fails the stream with its own error and is reported again by assertDone', async () => {
    const model = scripted([
      {
        text: 'never sent',
        expect: (r) => {
          expect(r.tools).toHaveLength(1)
        },
      },
    ])
    const events: ModelStreamEvent[] = []
    const error = await (async () => {
      for await (const event of model.stream(request('x'), new AbortController().signal)) events.push(event)
    })().catch((e: unknown) => e)
    expect((error as Error).message).toContain('expected [] to have a length of 1')
    expect(events).toEqual([])
    expect(() => model.assertDone()).toThrow(error as Error)
  })

  it('running out of script is a ModelError that says which request and how long the script is', async () => {
    const model = scripted([{ text: 'only' }])
    await collect(model.stream(request('a'), new AbortController().signal))
    const error = await collect(model.stream(request('b'), new AbortController().signal)).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'script' })
    expect((error as Error).message).toBe(
      'scripted: no scripted step left for request 2 (the script has 1); ' +
        'add a step, or check why the loop asked the model again.',
    )
    expect(model.requests).toHaveLength(2)
  })

  it('assertDone names the steps that were never requested', () => {
    const model = scripted([{ text: 'a' }, { text: 'b' }], { name: 'demo' })
    expect(() => model.assertDone()).toThrow('demo: 2 of 2 scripted steps were never requested.')
  })

  it('a malformed script throws INVALID_DEFINITION when it is built', () => {
    expect(() => scripted([{ toolCalls: [{ name: 'x', arguments: { a: 1 } as never }] }])).toThrow(
      expect.objectContaining({
        code: 'INVALID_DEFINITION',
        message: expect.stringContaining('raw argument string'),
      }),
    )
    expect(() => scripted([{ text: 'x' }], { chunkSize: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_DEFINITION' }),
    )
    expect(() => scripted('nope' as never)).toThrow(expect.objectContaining({ code: 'INVALID_DEFINITION' }))
  })

  it('L6.6: an abort mid-stream throws ModelAbortError and the accumulator keeps the text but no tool call', async () => {
    const model = scripted([
      { text: 'partial answer', toolCalls: [{ name: 'rm', arguments: '{"path":"/tmp/x"}' }] },
    ])
    const controller = new AbortController()
    const reply = new ReplyAccumulator()
    const run = async () => {
      for await (const event of model.stream(request('go'), controller.signal)) {
        reply.push(event)
        if (event.type === 'tool-call-delta' && event.argumentsDelta !== '') controller.abort()
      }
    }
    await expect(run()).rejects.toBeInstanceOf(ModelAbortError)
    expect(reply.partial()).toEqual([{ type: 'text', text: 'partial answer' }])
  })

  it('delayMs pauses before each chunk on timers, and an abort during a pause ends the stream at once', async () => {
    vi.useFakeTimers()
    const model = scripted([{ text: 'a b c' }], { delayMs: 50 })
    const controller = new AbortController()
    const iterator = model.stream(request('x'), controller.signal)[Symbol.asyncIterator]()
    let first: IteratorResult<ModelStreamEvent> | undefined
    const pending = iterator.next().then((r) => {
      first = r
    })
    await vi.advanceTimersByTimeAsync(49)
    expect(first).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    await pending
    expect(first?.value).toEqual({ type: 'text-delta', text: 'a ' })
    const next = iterator.next()
    controller.abort()
    await expect(next).rejects.toSatisfy(isModelAbort)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('L6.6: for any script and any abort point, the partial reply is exactly the text streamed so far', async () => {
    const call = fc.record({ name: fc.constantFrom('a', 'b_c'), arguments: fc.string() })
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.array(call, { maxLength: 3 }),
        fc.nat({ max: 40 }),
        async (text, toolCalls, abortAfter) => {
          const model = scripted([{ text, toolCalls }], { chunkSize: 3 })
          const controller = new AbortController()
          let streamedText = ''
          let seen = 0
          const outcome = await readReply(model, request('q'), controller.signal, (event) => {
            if (event.type === 'text-delta') streamedText += event.text
            if (++seen === abortAfter) controller.abort()
          })
          if (outcome.status === 'complete') {
            // Deltas and the final message agree.
            expect(outcome.content.filter((b) => b.type === 'tool-call').map((b) => b.arguments)).toEqual(
              toolCalls.map((c) => c.arguments),
            )
            expect(streamedText).toBe(text)
            return
          }
          expect(outcome.content.every((b) => b.type === 'text')).toBe(true)
          expect(outcome.content.map((b) => b.text).join('')).toBe(streamedText)
          expect(text.startsWith(streamedText)).toBe(true)
        },
      ),
    )
  })
})
