/**
 * What does MCP cost per call? One `tools/call` of the same `add` tool over stdio and over
 * Streamable HTTP (loopback), served by tooltx's `mcpServer` and by a plain official-SDK
 * `McpServer`, next to an in-process `runtime.execute` of it; and the client side: a call
 * through `mcpTools` (tooltx's pipeline, schema checks, content mapping) against the SDK
 * client's own `callTool`, both to the plain SDK server. Every server runs in its own process,
 * as MCP servers do.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createToolRuntime } from '@tooltx/core'
import { mcpTools } from '@tooltx/mcp'
import { type BenchSection, type Measurement, measure, measureInterleaved, ratio } from './harness.js'
import { addTool } from './mcp-servers.js'

const script = fileURLToPath(new URL('./mcp-servers.ts', import.meta.url))
const childArgs = (kind: string, transport: string) => [...process.execArgv, script, kind, transport]
const perOp = { rounds: 30, opsPerRound: 20, warmup: 2 }
const args = { a: 2, b: 3 }

/** A server started over HTTP in a child process, and its URL. */
async function httpChild(kind: string): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, childArgs(kind, 'http'), { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = (await once(child.stdout!, 'data')) as [Buffer]
  return { child, url: new URL(line.toString().trim()) }
}

async function stdioClient(kind: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: childArgs(kind, 'stdio'),
      stderr: 'inherit',
    }),
  )
  return client
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

function checked(result: Awaited<ReturnType<Client['callTool']>>): void {
  if (result.isError === true || (result.structuredContent as { sum?: number } | undefined)?.sum !== 5)
    throw new Error(`unexpected tools/call result: ${JSON.stringify(result)}`)
}

export default async function mcpBench(): Promise<BenchSection[]> {
  const signal = new AbortController().signal
  const runtime = createToolRuntime()
  runtime.register(addTool)
  const direct = await measure(
    'in-process runtime.execute (no MCP)',
    () => runtime.execute({ callId: 'c', name: 'add', arguments: args, signal }),
    { rounds: 20, warmup: 3 },
  )

  const sdkHttpServer = await httpChild('sdk')
  const tooltxHttpServer = await httpChild('tooltx')
  const clients = {
    sdkStdio: await stdioClient('sdk'),
    tooltxStdio: await stdioClient('tooltx'),
    sdkHttp: await httpClient(sdkHttpServer.url),
    tooltxHttp: await httpClient(tooltxHttpServer.url),
  }
  const call = (client: Client) => async () =>
    checked(await client.callTool({ name: 'add', arguments: args }))
  const imported = await mcpTools(
    { command: process.execPath, args: childArgs('sdk', 'stdio'), stderr: 'inherit' },
    { name: 'sdk' },
  )
  const clientRuntime = createToolRuntime()
  imported.register(clientRuntime)
  const importedCall = async () => {
    const r = await clientRuntime.execute({ callId: 'c', name: 'mcp__sdk__add', arguments: args, signal })
    if (r.isError) throw new Error(r.error.message)
  }
  try {
    // Each server runs in a fresh process: warm every path up first, so no row pays for JIT.
    for (const warm of [...Object.values(clients).map(call), importedCall])
      for (let i = 0; i < 500; i++) await warm()
    const [sdkStdio, tooltxStdio, sdkHttp, tooltxHttp, sdkClient, tooltxClient] = (await measureInterleaved(
      [
        { name: 'plain SDK server, stdio', fn: call(clients.sdkStdio), ops: perOp.opsPerRound },
        { name: 'tooltx mcpServer, stdio', fn: call(clients.tooltxStdio), ops: perOp.opsPerRound },
        { name: 'plain SDK server, HTTP', fn: call(clients.sdkHttp), ops: perOp.opsPerRound },
        { name: 'tooltx mcpServer, HTTP', fn: call(clients.tooltxHttp), ops: perOp.opsPerRound },
        {
          name: 'SDK client.callTool → plain SDK server (stdio)',
          fn: call(clients.sdkStdio),
          ops: perOp.opsPerRound,
        },
        {
          name: 'tooltx mcpTools + runtime.execute → plain SDK server (stdio)',
          fn: importedCall,
          ops: perOp.opsPerRound,
        },
      ],
      { rounds: perOp.rounds, warmup: perOp.warmup },
    )) as [Measurement, Measurement, Measurement, Measurement, Measurement, Measurement]
    const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`
    return [
      {
        title: 'MCP server: one tools/call round trip',
        method:
          'The official SDK client (v2) calls `add` (two integers in, `{ sum }` out with an output schema, one text block) on a server in another process: tooltx `mcpServer` (every call a `runtime.execute` with validation, policy hooks, the frozen result and `structuredContent`) against a plain official-SDK `McpServer` registering the same tool with zod schemas, over stdio and over Streamable HTTP on 127.0.0.1 (one session, sequential calls; the cases of both sections are timed round-robin, so drifting machine load weighs on all alike). The in-process row is `runtime.execute` of the same definition without MCP.',
        rows: [direct, sdkStdio, tooltxStdio, sdkHttp, tooltxHttp],
        ratios: [
          `tooltx / plain SDK server, stdio = ${ratio(tooltxStdio, sdkStdio)} (${us(tooltxStdio.medianNs - sdkStdio.medianNs)} per call)`,
          `tooltx / plain SDK server, HTTP = ${ratio(tooltxHttp, sdkHttp)} (${us(tooltxHttp.medianNs - sdkHttp.medianNs)} per call)`,
          `tooltx over stdio / in-process runtime.execute = ${ratio(tooltxStdio, direct)}`,
        ],
      },
      {
        title: 'MCP client: per-call overhead of an imported tool',
        method:
          "The same plain SDK server over stdio, called through `mcpTools` (the imported `mcp__sdk__add` run by `runtime.execute`: the tooltx pipeline, the argument check against the server schema before sending, the `structuredContent` check against its output schema, content mapping and the frozen result) and directly with the SDK client's `callTool` (which validates `structuredContent` itself).",
        rows: [sdkClient, tooltxClient],
        ratios: [
          `mcpTools / SDK callTool = ${ratio(tooltxClient, sdkClient)} (${us(tooltxClient.medianNs - sdkClient.medianNs)} per call)`,
        ],
      },
    ]
  } finally {
    await Promise.allSettled([...Object.values(clients).map((c) => c.close()), imported.close()])
    sdkHttpServer.child.kill()
    tooltxHttpServer.child.kill()
  }
}
