/**
 * Served content blocks (Y1.6, Y2.6), progress (Y1.8) and logging (Y1.20–Y1.22), over a real
 * loopback HTTP server and the official client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { type ContentBlock, createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { mcpServer, mcpTools, serveHttp } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text?: string }[]).map((b) => b.text ?? `<${b.type}>`).join('\n')

/** Every block type tooltx maps, then two that cross as JSON text. */
const BLOCKS: ContentBlock[] = [
  { type: 'text', text: 'hello' },
  { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
  { type: 'audio', data: 'UklGRg==', mediaType: 'audio/wav' },
  { type: 'resource', uri: 'file:///a.txt', mediaType: 'text/plain', text: 'inside a' },
  { type: 'resource', uri: 'file:///b.bin', data: 'AAEC' },
  { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', mediaType: 'text/markdown', size: 12 },
  { type: 'audio', data: 'UklGRg==' },
  { type: 'chart', points: [1, 2] },
]

function blocksRuntime(reportError?: (error: unknown) => void): ToolRuntime {
  const runtime = createToolRuntime(reportError === undefined ? {} : { reportError })
  runtime.register(
    defineTool({
      name: 'blocks',
      description: 'Every kind of block.',
      parameters: {},
      execute: () => 'blocks',
      output: { render: () => BLOCKS },
    }),
  )
  runtime.register(
    defineTool({
      name: 'percent',
      description: 'Reports 0 then 50 of 100.',
      parameters: {},
      execute: async (_args, run) => {
        run.progress({ progress: 0, total: 100 })
        run.progress({ progress: 50, total: 100, message: 'half' })
        await new Promise((r) => setTimeout(r, 50))
        return 'done'
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'chatty',
      description: 'Logs at four levels.',
      parameters: {},
      execute: async (_args, run) => {
        for (const level of ['debug', 'info', 'warning', 'error'] as const) run.log(level, { level })
        await new Promise((r) => setTimeout(r, 50))
        return 'logged'
      },
    }),
  )
  return runtime
}

/** A served `blocksRuntime` over loopback HTTP; closed after the test. */
async function serve(runtime = blocksRuntime()): Promise<URL> {
  const server = mcpServer(runtime, { name: 't', version: '1' })
  const endpoint = await serveHttp(server)
  cleanups.push(
    () => endpoint.close(),
    () => server.close(),
  )
  return endpoint.url
}

async function client(url: URL): Promise<Client> {
  const c = new Client({ name: 'test', version: '1.0.0' })
  await c.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => c.close())
  return c
}

describe('Y1.6, Y2.6 content blocks served', () => {
  it('Y1.6: audio, embedded resources and resource links reach the client as MCP blocks; malformed ones as JSON text', async () => {
    const c = await client(await serve())
    const result = await c.callTool({ name: 'blocks', arguments: {} })
    expect(result.content).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside a' } },
      { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAEC' } },
      { type: 'resource_link', uri: 'file:///c.md', name: 'c.md', mimeType: 'text/markdown', size: 12 },
      { type: 'text', text: '{"type":"audio","data":"UklGRg=="}' },
      { type: 'text', text: '{"type":"chart","points":[1,2]}' },
    ])
  })

  it('Y2.6, Y2.10: imported from a tooltx server, every mapped block arrives as the same tooltx block', async () => {
    const set = await mcpTools({ url: (await serve()).href }, { name: 's' })
    cleanups.push(() => set.close())
    const runtime = createToolRuntime()
    set.register(runtime)
    const result = await runtime.execute({
      callId: 'c1',
      name: 'mcp__s__blocks',
      arguments: {},
      signal: new AbortController().signal,
    })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([
      ...BLOCKS.slice(0, 6),
      { type: 'text', text: '{"type":"audio","data":"UklGRg=="}' },
      { type: 'text', text: '{"type":"chart","points":[1,2]}' },
    ])
  })
})

describe('Y1.8 progress served', () => {
  it('Y1.8: a first update of 0 of 100 goes out as 0 with its total', async () => {
    const c = await client(await serve())
    const updates: unknown[] = []
    const result = await c.callTool(
      { name: 'percent', arguments: {} },
      { onprogress: (p) => updates.push(p) },
    )
    expect(result.isError).toBe(false)
    expect(updates).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100, message: 'half' },
    ])
  })
})

describe('Y1.20-Y1.22 logging served', () => {
  /** A connected client and the `notifications/message` params it has received. */
  async function logging(url: URL) {
    const c = await client(url)
    const messages: unknown[] = []
    c.setNotificationHandler('notifications/message', (n) => void messages.push(n.params))
    return { c, messages }
  }

  it('Y1.20: the server announces logging and answers logging/setLevel', async () => {
    const { c } = await logging(await serve())
    expect(c.getServerCapabilities()?.logging).toEqual({})
    await expect(c.setLoggingLevel('warning')).resolves.toEqual({})
  })

  it("Y1.21: run.log of a served call reaches its client as notifications/message, filtered by the client's level", async () => {
    const { c, messages } = await logging(await serve())
    expect(textOf(await c.callTool({ name: 'chatty', arguments: {} }))).toBe('"logged"')
    expect(messages).toEqual(
      ['debug', 'info', 'warning', 'error'].map((level) => ({ level, data: { level } })),
    )
    messages.length = 0
    await c.setLoggingLevel('warning')
    await c.callTool({ name: 'chatty', arguments: {} })
    expect(messages).toEqual([
      { level: 'warning', data: { level: 'warning' } },
      { level: 'error', data: { level: 'error' } },
    ])
  })

  it('Y1.22: run.log outside a served call goes to reportError, never to a client', async () => {
    const reported: unknown[] = []
    const runtime = blocksRuntime((e) => reported.push(e))
    const { c, messages } = await logging(await serve(runtime))
    const result = await runtime.execute({
      callId: 'local',
      name: 'chatty',
      arguments: {},
      signal: new AbortController().signal,
    })
    expect(result.isError).toBe(false)
    await c.callTool({ name: 'percent', arguments: {} })
    expect(messages).toEqual([])
    expect(reported).toEqual(
      ['debug', 'info', 'warning', 'error'].map((level) => ({
        callId: 'local',
        name: 'chatty',
        level,
        data: { level },
      })),
    )
  })
})
