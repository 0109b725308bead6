import { loopbackHttp } from '../../agent/test/loopback-server.js'

/** One scripted reply: text and tool calls (raw argument strings). */
export interface FakeReply {
  text?: string
  /** Milliseconds to wait before streaming the reply. */
  delayMs?: number
  toolCalls?: { id: string; name: string; arguments: string }[]
}

/** A running fake model: the base URL for `--base-url` and the bodies of the requests it got. */
export interface FakeModel {
  baseURL: string
  requests: { messages: { role: string; content: unknown; tool_call_id?: string }[] }[]
}

function chunk(delta: unknown, finish: string | null = null): string {
  const body = {
    id: 'fake',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }
  return `data: ${JSON.stringify(body)}\n\n`
}

/** A request body as the fake model received it. */
export type FakeRequest = FakeModel['requests'][number]

/**
 * An OpenAI-compatible chat completions server on 127.0.0.1 that streams `replies[n]` for
 * request n (then `done.` forever), or `replies(request)` when given a function — a stateless
 * model that any number of processes can share. It is closed when the current test finishes.
 */
export async function fakeModel(
  replies: FakeReply[] | ((request: FakeRequest) => FakeReply),
): Promise<FakeModel> {
  const requests: FakeModel['requests'] = []
  const port = await loopbackHttp(async (_req, raw, res) => {
    const request = JSON.parse(raw) as FakeRequest
    requests.push(request)
    const reply =
      typeof replies === 'function' ? replies(request) : (replies[requests.length - 1] ?? { text: 'done.' })
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs))
    if (res.destroyed) return
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(chunk({ role: 'assistant', content: reply.text ?? '' }))
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      const wire = {
        index,
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }
      res.write(chunk({ tool_calls: [wire] }))
    }
    res.write(chunk({}, reply.toolCalls ? 'tool_calls' : 'stop'))
    res.end('data: [DONE]\n\n')
  })
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests }
}

/** The text the model was sent for tool call `callId` in any request. */
export function toolMessage(model: FakeModel, callId: string): string | undefined {
  for (const request of model.requests) {
    const found = request.messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)
    if (found !== undefined)
      return typeof found.content === 'string' ? found.content : JSON.stringify(found.content)
  }
  return undefined
}

/**
 * An OpenAI-compatible server on 127.0.0.1 that answers every request slowly: nothing for
 * `firstMs`, then each of `pieces` as its own text chunk `gapMs` apart, then the finish chunk.
 * Resolves with its base URL; it is closed when the current test finishes.
 */
export async function slowModel(pieces: readonly string[], firstMs: number, gapMs: number): Promise<string> {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const port = await loopbackHttp(async (_req, _raw, res) => {
    await pause(firstMs)
    if (res.destroyed) return
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(chunk({ role: 'assistant', content: '' }))
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await pause(gapMs)
      if (res.destroyed) return
      res.write(chunk({ content: piece }))
    }
    res.write(chunk({}, 'stop'))
    res.end('data: [DONE]\n\n')
  })
  return `http://127.0.0.1:${port}/v1`
}
