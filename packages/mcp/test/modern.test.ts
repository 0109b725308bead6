/** The stateless 2026-07-28 revision over Streamable HTTP, next to the 2025 sessions (Y1.14). */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { mcpServer, mcpTools, serveHttp } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { addTool } from './fixtures/add-tool.mjs'
import { cleanupAll, cleanups, expectServedAdd, progressSteps } from './mcp.fixtures.js'

afterEach(cleanupAll)

const textOf = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((b) => b.text).join('\n')
const codeOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['tooltx/result'] as { code?: string } | undefined)?.code ?? 'ok'

function served(): ToolRuntime {
  const runtime = createToolRuntime()
  runtime.register(addTool())
  runtime.register(
    defineTool({
      name: 'count',
      description: 'Count up, reporting progress.',
      parameters: { to: { type: 'integer', required: true } },
      async execute({ to }, run) {
        for (let i = 1; i <= to; i++) run.progress({ progress: i, total: to, message: `at ${i}` })
        await new Promise((resolve) => setTimeout(resolve, 20))
        return to
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy (asks first).',
      parameters: { service: { type: 'string', required: true } },
      execute: ({ service }) => `deployed ${service}`,
    }),
  )
  runtime.onPreExecute((exec, next) =>
    exec.name === 'deploy' ? { kind: 'ask', reason: 'it deploys' } : next(),
  )
  return runtime
}

async function endpoint(runtime: ToolRuntime): Promise<URL> {
  const server = mcpServer(runtime, { name: 'modern', version: '1.0.0' })
  const http = await serveHttp(server)
  cleanups.push(async () => {
    await http.close()
    await server.close()
  })
  return http.url
}

async function client(url: URL, mode: 'auto' | { pin: '2026-07-28' } | undefined): Promise<Client> {
  const c = new Client(
    { name: 'modern-client', version: '1.0.0' },
    mode === undefined ? {} : { versionNegotiation: { mode } },
  )
  await c.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => c.close())
  return c
}

describe('Y1.14 the 2026-07-28 revision over HTTP', () => {
  it('Y1.14: a client pinned to 2026-07-28 lists and calls through the pipeline, statelessly', async () => {
    const url = await endpoint(served())
    const modern = await client(url, { pin: '2026-07-28' })
    expect([modern.getProtocolEra(), modern.getNegotiatedProtocolVersion()]).toEqual(['modern', '2026-07-28'])
    const { tools } = await modern.listTools()
    expect(tools.map((t) => t.name)).toEqual(['add', 'count', 'deploy'])
    await expectServedAdd(modern)
  })

  it('Y1.14: progress reaches the caller; an ask fails closed as DENIED (the revision has no elicitation request)', async () => {
    const url = await endpoint(served())
    const modern = await client(url, { pin: '2026-07-28' })
    const updates: unknown[] = []
    const counted = await modern.callTool(
      { name: 'count', arguments: { to: 3 } },
      { onprogress: (p) => updates.push(p) },
    )
    expect(textOf(counted)).toBe('3')
    expect(updates).toEqual(progressSteps(3, 'at'))
    const deploy = await modern.callTool({ name: 'deploy', arguments: { service: 'api' } })
    expect([deploy.isError, codeOf(deploy), textOf(deploy)]).toEqual([
      true,
      'DENIED',
      'Error: tool "deploy" requires approval, but the approval channel is unavailable',
    ])
  })

  it('Y1.14, Y1.9: a registration reaches a 2026 client through its subscriptions/listen stream', async () => {
    const runtime = served()
    const url = await endpoint(runtime)
    let changed: (names: string[]) => void = () => undefined
    const seen = new Promise<string[]>((resolve) => {
      changed = resolve
    })
    const modern = new Client(
      { name: 'modern-client', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        listChanged: { tools: { onChanged: (_error, tools) => changed((tools ?? []).map((t) => t.name)) } },
      },
    )
    await modern.connect(new StreamableHTTPClientTransport(url))
    cleanups.push(() => modern.close())
    await modern.listTools()
    // Give the auto-opened listen stream its acknowledgement before the change.
    await new Promise((resolve) => setTimeout(resolve, 300))
    runtime.register(
      defineTool({
        name: 'echo',
        description: 'Echo.',
        parameters: { text: { type: 'string' } },
        execute: (a) => a,
      }),
    )
    expect(await seen).toEqual(['add', 'count', 'deploy', 'echo'])
  })

  it('Y1.14: an auto-negotiating client picks 2026-07-28; a 2025 client on the same endpoint keeps its session', async () => {
    const url = await endpoint(served())
    const auto = await client(url, 'auto')
    const legacy = await client(url, undefined)
    expect(auto.getProtocolEra()).toBe('modern')
    expect([legacy.getProtocolEra(), legacy.getNegotiatedProtocolVersion()]).toEqual(['legacy', '2025-11-25'])
    for (const c of [auto, legacy]) {
      const r = await c.callTool({ name: 'add', arguments: { a: 1, b: 1 } })
      expect(r.structuredContent).toEqual({ sum: 2 })
    }
  })

  it('Y1.14, Y2.10, Y2.11: mcpTools over HTTP speaks 2026-07-28 to a server that offers it, with the same results', async () => {
    const url = await endpoint(served())
    const set = await mcpTools({ url }, { name: 'modern' })
    cleanups.push(() => set.close())
    expect(set.client.getProtocolEra()).toBe('modern')
    const runtime = createToolRuntime()
    set.register(runtime)
    const signal = new AbortController().signal
    const r = await runtime.execute({
      callId: 'c1',
      name: 'mcp__modern__add',
      arguments: { a: 4, b: 5 },
      signal,
    })
    expect(r).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: '4 + 5 = 9' }],
      value: { structuredContent: { sum: 9 } },
    })
  })
})

describe('Y1.35 a body form on a 2026-07-28 request', () => {
  it('Y1.35 run.elicit reads a cancel saying the request cannot be asked, even from a client with elicitation', async () => {
    const runtime = createToolRuntime()
    runtime.register(
      defineTool({
        name: 'ask',
        description: 'Ask for a name.',
        parameters: {},
        execute: (_args, run) =>
          run.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          }),
      }),
    )
    const url = await endpoint(runtime)
    const modern = new Client(
      { name: 'modern-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await modern.connect(new StreamableHTTPClientTransport(url))
    cleanups.push(() => modern.close())
    const result = await modern.callTool({ name: 'ask', arguments: {} })
    expect(JSON.parse(textOf(result))).toEqual({
      action: 'cancel',
      reason:
        'the MCP client of this call cannot be asked a form: a 2026-07-28 request has no server-to-client requests',
    })
  })
})
