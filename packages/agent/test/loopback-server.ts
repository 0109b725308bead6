import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type ModelAdapter, type ModelRequest, type ModelStreamEvent, ReplyAccumulator } from '@tooltx/agent'
import { onTestFinished } from 'vitest'

/** One request the loopback server received: its path, headers, parsed JSON body and the body's exact text. */
export interface Received {
  url: string
  headers: IncomingHttpHeaders
  body: any
  raw: string
}

/** How the loopback server answers: SSE events one write each (`hang` keeps it open), or a status + JSON body. */
export type Answer =
  | { sse: string[]; hang?: boolean }
  | { status: number; json: unknown; headers?: Record<string, string> }

/** A running loopback server: the base URL to give an adapter, what it received, and when a response closed. */
export interface WireServer {
  baseURL: string
  received: Received[]
  /**
   * Resolves when the first response closes: `'client'` when the client tore it down before
   * the server ended it (proof a cancelled request was cancelled), `'server'` when it ended.
   */
  responseClosed: Promise<'client' | 'server'>
  /** `responseClosed`, or `'still open'` when no response closed within `ms` (default 2 s). */
  closedBy(ms?: number): Promise<'client' | 'server' | 'still open'>
}

/**
 * Starts an HTTP server on 127.0.0.1 at a free port that reads each request's whole body as
 * UTF-8 text and hands it to `handle`; it is closed when the current test finishes. Resolves
 * with the port.
 */
export async function loopbackHttp(
  handle: (req: IncomingMessage, body: string, res: ServerResponse) => Promise<void>,
): Promise<number> {
  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => void handle(req, raw, res))
  })
  onTestFinished(() => {
    server.closeAllConnections()
    server.close()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/**
 * A real HTTP server on 127.0.0.1 that records requests and answers request n (from 1) with
 * `answer(n)`, replaying recorded wire responses. `basePath` is appended to the base URL (such as
 * `/v1`). The server and its connections are closed when the current test finishes.
 */
export async function wireServer(answer: (n: number) => Answer, basePath = ''): Promise<WireServer> {
  const received: Received[] = []
  let resolveClosed!: (by: 'client' | 'server') => void
  const responseClosed = new Promise<'client' | 'server'>((resolve) => {
    resolveClosed = resolve
  })
  const port = await loopbackHttp(async (req, raw, res) => {
    received.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw), raw })
    res.on('close', () => resolveClosed(res.writableEnded ? 'server' : 'client'))
    const a = answer(received.length)
    if ('status' in a) {
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers })
      res.end(JSON.stringify(a.json))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const event of a.sse) {
      res.write(event)
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (!a.hang) res.end()
  })
  const closedBy = (ms = 2_000) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const open = new Promise<'still open'>((resolve) => {
      timer = setTimeout(() => resolve('still open'), ms)
    })
    return Promise.race([responseClosed, open]).finally(() => clearTimeout(timer))
  }
  return { baseURL: `http://127.0.0.1:${port}${basePath}`, received, responseClosed, closedBy }
}

/** A base URL on 127.0.0.1 (plus `basePath`) where nothing listens: a port that was just free. */
export async function refusedURL(basePath = ''): Promise<string> {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  return `http://127.0.0.1:${port}${basePath}`
}

/** The events of a recorded SSE fixture in `test/fixtures/`, one string per event (blank line kept). */
export function sseFixture(file: string): string[] {
  return readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8').split(/(?<=\n\n)/)
}

/** The one tool of `request()`, as the model sees it. */
export const READ_FILE: ModelRequest['tools'][number] = {
  name: 'read_file',
  description: 'Read a UTF-8 file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

/** A request with a system prompt, instructions, the `read_file` tool and one user message. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are terse.',
    instructions: 'Tools: read_file.',
    tools: [READ_FILE],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'read /etc/hostname' }] }],
    ...overrides,
  }
}

/** Every event of a stream, in order. */
export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

/** What one streamed `request()` to `model` threw, or undefined when it completed. */
export async function streamError(model: ModelAdapter): Promise<unknown> {
  return collect(model.stream(request(), new AbortController().signal)).then(
    () => undefined,
    (e: unknown) => e,
  )
}

/**
 * Streams `request()` from `model` into a `ReplyAccumulator` and aborts the signal at the first
 * non-empty tool-call argument piece; returns what the stream threw (undefined if it completed)
 * and the accumulator.
 */
export async function abortAtToolArguments(
  model: ModelAdapter,
): Promise<{ error: unknown; reply: ReplyAccumulator }> {
  const controller = new AbortController()
  const reply = new ReplyAccumulator()
  try {
    for await (const event of model.stream(request(), controller.signal)) {
      reply.push(event)
      if (event.type === 'tool-call-delta' && event.argumentsDelta !== '') controller.abort()
    }
  } catch (error) {
    return { error, reply }
  }
  return { error: undefined, reply }
}
