import {
  isModelAbort,
  ModelAbortError,
  type ModelAdapter,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  ReplyAccumulator,
  readReply,
  scripted,
  systemPrompt,
} from '@tooltx/agent'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const request: ModelRequest = { instructions: '', tools: [], messages: [] }

/** An adapter that yields the given events and then does what `end` says. */
function adapter(events: ModelStreamEvent[], end: 'return' | Error): ModelAdapter {
  return {
    name: 'fixed',
    async *stream() {
      yield* events
      if (end !== 'return') throw end
    },
  }
}

describe('systemPrompt', () => {
  it('joins system and instructions by a blank line when both are non-empty, else takes the non-empty one', () => {
    expect(systemPrompt({ ...request, system: 'Be brief.', instructions: 'Tools: x' })).toBe(
      'Be brief.\n\nTools: x',
    )
    expect(systemPrompt({ ...request, system: '', instructions: 'Tools: x' })).toBe('Tools: x')
    expect(systemPrompt({ ...request, instructions: 'Tools: x' })).toBe('Tools: x')
    expect(systemPrompt({ ...request, system: 'Be brief.', instructions: '' })).toBe('Be brief.')
    expect(systemPrompt(request)).toBe('')
    fc.assert(
      fc.property(fc.string(), fc.string(), (system, instructions) => {
        const joined = systemPrompt({ ...request, system, instructions })
        const parts = [system, instructions].filter((p) => p !== '')
        expect(joined).toBe(parts.join('\n\n'))
      }),
    )
  })
})

describe('ReplyAccumulator', () => {
  it('L6.6: text after a tool call starts a new block, and partial() keeps the texts without any tool call', () => {
    const reply = new ReplyAccumulator()
    reply.push({ type: 'text-delta', text: 'Before ' })
    reply.push({ type: 'text-delta', text: 'the call.' })
    reply.push({ type: 'tool-call-delta', index: 0, id: 't', name: 'ls', argumentsDelta: '{}' })
    reply.push({ type: 'text-delta', text: 'After it.' })
    reply.push({ type: 'tool-call-delta', index: 1, id: 'u', name: 'ls', argumentsDelta: '{"a"' })
    expect(reply.partial()).toEqual([
      { type: 'text', text: 'Before the call.' },
      { type: 'text', text: 'After it.' },
    ])
    expect(reply.message).toBeUndefined()
  })

  it('L6.6: a reply with no text leaves nothing worth appending', () => {
    const reply = new ReplyAccumulator()
    reply.push({ type: 'text-delta', text: '' })
    reply.push({ type: 'tool-call-delta', index: 0, id: 't', name: 'ls', argumentsDelta: '' })
    expect(reply.partial()).toEqual([])
  })
})

describe('readReply', () => {
  it('L3.4: resolves complete with the final message content and usage', async () => {
    const model = scripted([{ text: 'hi', toolCalls: [{ id: 'c', name: 'ls', arguments: ' {"a":1} ' }] }])
    const seen: ModelStreamEvent['type'][] = []
    const outcome = await readReply(model, request, new AbortController().signal, (e) => seen.push(e.type))
    expect(outcome).toMatchObject({
      status: 'complete',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool-call', id: 'c', name: 'ls', arguments: ' {"a":1} ' },
      ],
    })
    expect(seen.at(-1)).toBe('message')
  })

  it('L6.6: an abort resolves aborted with the partial text, whatever error the adapter threw then', async () => {
    const controller = new AbortController()
    const model: ModelAdapter = {
      name: 'odd',
      async *stream() {
        yield { type: 'text-delta', text: 'so far' }
        yield { type: 'tool-call-delta', index: 0, id: 'c', name: 'rm', argumentsDelta: '{"pa' }
        controller.abort()
        throw new TypeError('socket closed')
      },
    }
    expect(await readReply(model, request, controller.signal)).toEqual({
      status: 'aborted',
      content: [{ type: 'text', text: 'so far' }],
    })
  })

  it('rethrows a failure that is not an abort', async () => {
    const failure = new ModelError('fixed', 'http', 'HTTP 500 from x. The provider failed; retry later.', {
      status: 500,
    })
    await expect(
      readReply(adapter([{ type: 'text-delta', text: 'x' }], failure), request, new AbortController().signal),
    ).rejects.toBe(failure)
  })

  it('a stream that ends without a final message is a stream ModelError', async () => {
    const error = await readReply(
      adapter([{ type: 'text-delta', text: 'x' }], 'return'),
      request,
      new AbortController().signal,
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ModelError)
    expect(error).toMatchObject({ kind: 'stream', adapter: 'fixed' })
    expect((error as Error).message).toContain('without a final message event')
  })
})

describe('model errors', () => {
  it('ModelAbortError is named AbortError and carries the signal reason; isModelAbort is total', () => {
    const reason = new Error('user pressed stop')
    const error = new ModelAbortError('m', reason)
    expect(error.name).toBe('AbortError')
    expect(error.cause).toBe(reason)
    expect(error.message).toBe('m: the model request was aborted')
    expect(isModelAbort(error)).toBe(true)
    expect(isModelAbort(new DOMException('x', 'AbortError'))).toBe(true)
    expect(isModelAbort(new Error('x'))).toBe(false)
    const hostile = new Proxy(new Error('x'), {
      get() {
        throw new Error('trap')
      },
    })
    expect(isModelAbort(hostile)).toBe(false)
    expect(isModelAbort(undefined)).toBe(false)
  })
})
