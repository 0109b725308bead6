/**
 * SSE polling of a long call (Y1.32): a body closes its call's stream with `closeCallStream`, and
 * the official client, speaking 2025-11-25 over a real `serveHttp` on 127.0.0.1, reconnects after
 * `retry` with `Last-Event-ID` and still gets the result.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { closeCallStream, mcpServer, serveHttp } from '@tooltx/mcp'
import { afterEach, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

function pollingRuntime() {
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'long',
      description: 'Release the stream, then finish a little later.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_a, text) => [{ type: 'text', text }] },
      async execute(_args, run) {
        const closed = closeCallStream(run)
        await new Promise((resolve) => setTimeout(resolve, 150))
        return closed ? 'closed, then done' : 'no stream to close, done'
      },
    }),
  )
  return runtime
}

it('Y1.32 a body closes its call stream; the official client polls with Last-Event-ID and gets the result', async () => {
  const runtime = pollingRuntime()
  const server = mcpServer(runtime, { name: 'poll', version: '1.0.0' })
  const resumed: string[] = []
  const endpoint = await serveHttp(server, { retryInterval: 50 })
  cleanups.push(async () => {
    await endpoint.close()
    await server.close()
  })
  const client = new Client({ name: 'poller', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(endpoint.url, {
    fetch: (input, init) => {
      const lastEventId = new Headers(init?.headers).get('last-event-id')
      if (lastEventId !== null) resumed.push(lastEventId)
      return fetch(input, init)
    },
  })
  await client.connect(transport)
  cleanups.push(() => client.close())
  const result = await client.callTool({ name: 'long', arguments: {} })
  expect((result.content as { text: string }[])[0]!.text).toBe('closed, then done')
  expect(resumed).toHaveLength(1)
  const local = await runtime.execute({
    callId: 'l',
    name: 'long',
    arguments: {},
    signal: AbortSignal.timeout(5000),
  })
  expect(local.content[0]).toEqual({ type: 'text', text: 'no stream to close, done' })
})
