/**
 * The optional GET stream of Streamable HTTP (Y2.21–Y2.23) against a minimal server on
 * 127.0.0.1 that answers initialize, tools/list and tools/call with JSON and the GET with 404,
 * 405, a stream that ends at once, or a broken connection, counting every request it receives.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createToolRuntime, type ToolResult } from '@tooltx/core'
import { mcpTools } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** How the server answers a GET. */
type GetAnswer = 404 | 405 | 'ending-stream' | 'reset'

interface Counts {
  get: number
  initialize: number
  calls: number
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readBody(req: IncomingMessage): Promise<string> {
  let body = ''
  for await (const chunk of req) body += chunk
  return body
}

/** The JSON-RPC result of a request, or `undefined` for an unknown method. */
function resultOf(method: string, params: Record<string, unknown>, counts: Counts): unknown {
  if (method === 'initialize') {
    counts.initialize++
    return {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'no-listen', version: '1.0.0' },
    }
  }
  if (method === 'tools/list')
    return {
      tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
    }
  if (method === 'tools/call') {
    counts.calls++
    const text = (params.arguments as { text?: unknown } | undefined)?.text
    return { content: [{ type: 'text', text: `echo ${String(text)}` }] }
  }
  return undefined
}

async function answerPost(
  req: IncomingMessage,
  res: ServerResponse,
  counts: Counts,
  listDelayMs: number,
): Promise<void> {
  const message = JSON.parse(await readBody(req)) as {
    id?: number | string
    method: string
    params?: Record<string, unknown>
  }
  if (message.id === undefined) {
    res.writeHead(202).end()
    return
  }
  if (message.method === 'tools/list') await pause(listDelayMs)
  const result = resultOf(message.method, message.params ?? {}, counts)
  const answer =
    result === undefined
      ? { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }
      : { jsonrpc: '2.0', id: message.id, result }
  res
    .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'only-session' })
    .end(JSON.stringify(answer))
}

function answerGet(res: ServerResponse, answer: GetAnswer): void {
  if (answer === 'reset') res.socket?.destroy()
  else if (answer === 'ending-stream')
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end('retry: 0\n\n')
  else res.writeHead(answer).end()
}

/**
 * Starts the server, answering tools/list after `listDelayMs`; resolves with its URL and the
 * live counts of what it received.
 */
async function startServer(get: GetAnswer, listDelayMs = 0): Promise<{ url: string; counts: Counts }> {
  const counts: Counts = { get: 0, initialize: 0, calls: 0 }
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      counts.get++
      answerGet(res, get)
    } else if (req.method === 'POST') void answerPost(req, res, counts, listDelayMs)
    else res.writeHead(405).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/mcp`, counts }
}

async function importFrom(url: string, reconnect?: Parameters<typeof mcpTools>[1]['reconnect']) {
  const set = await mcpTools({ url }, { name: 's', ...(reconnect === undefined ? {} : { reconnect }) })
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  let n = 0
  const echo = (text: string): Promise<ToolResult> =>
    runtime.execute({
      callId: `c${++n}`,
      name: 'mcp__s__echo',
      arguments: { text },
      signal: new AbortController().signal,
    })
  return { set, echo }
}

describe('Y2.21 a server without the optional GET stream', () => {
  for (const status of [404, 405] as const) {
    it(`Y2.21: a GET answered ${status} leaves the connection up: the calls are sent over the one session and the GET is not asked again`, async () => {
      const { url, counts } = await startServer(status)
      const { echo } = await importFrom(url)
      expect((await echo('one')).content).toEqual([{ type: 'text', text: 'echo one' }])
      await pause(2_000)
      expect((await echo('two')).content).toEqual([{ type: 'text', text: 'echo two' }])
      expect(counts).toEqual({ get: 1, initialize: 1, calls: 2 })
    })
  }
})

const fast = { attempts: 3, initialDelayMs: 50, factor: 2, maxDelayMs: 200 }

describe('Y2.22 reopening the GET stream', () => {
  it('Y2.22: a GET stream that ends at once asking retry 0 is opened again at most `attempts` times, waiting longer each time; the calls go on', async () => {
    const { url, counts } = await startServer('ending-stream')
    const { echo } = await importFrom(url, fast)
    expect((await echo('one')).content).toEqual([{ type: 'text', text: 'echo one' }])
    await pause(2_000)
    expect((await echo('two')).content).toEqual([{ type: 'text', text: 'echo two' }])
    expect(counts).toEqual({ get: 1 + fast.attempts, initialize: 1, calls: 2 })
  })

  it('Y2.22: with the default backoff, 2 s of a GET stream ending at once see at most 1 + 5 GET requests', async () => {
    const { url, counts } = await startServer('ending-stream')
    const { echo } = await importFrom(url)
    expect((await echo('one')).content).toEqual([{ type: 'text', text: 'echo one' }])
    await pause(2_000)
    expect(counts.get).toBeGreaterThan(1)
    expect(counts.get).toBeLessThanOrEqual(6)
    expect(counts.initialize).toBe(1)
  })
})

describe('Y2.23 a connection that drops again at once', () => {
  it('Y2.23: a server whose GET breaks the connection after every handshake, before the tools are listed again, is reconnected at most `attempts` times for a call, which then fails not sent', async () => {
    const { url, counts } = await startServer('reset', 100)
    const { echo } = await importFrom(url, fast)
    const result = await echo('one')
    await pause(2_000)
    expect(result.isError ? [result.error.info.code, result.error.message] : 'ok').toEqual([
      'MCP_CONNECTION_CLOSED',
      expect.stringMatching(
        /^MCP server "s" tool "echo": the server could not be reached again \(3 attempts: .+\); the call was not sent$/,
      ),
    ])
    expect(counts).toEqual({ get: 1 + fast.attempts, initialize: 1 + fast.attempts, calls: 0 })
  })
})
