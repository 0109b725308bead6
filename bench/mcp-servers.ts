/**
 * The MCP servers of `mcp.bench.ts`, one per child process: `tooltx` (a tooltx runtime served by
 * `mcpServer`) or `sdk` (the same tool on a plain official-SDK `McpServer`), over `stdio` or
 * `http` (loopback; the URL is printed on stdout). Both serve `add` with the same input and
 * output schemas and answer with the same text and structured content.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import { createToolRuntime } from '@tooltx/core'
import { mcpServer, serveHttp, serveStdio } from '@tooltx/mcp'
import { z } from 'zod'
import { addTool as sharedAddTool } from '../packages/mcp/test/fixtures/add-tool.mjs'

/** The tooltx definition of `add`, shared with the bench's direct `runtime.execute` case. */
export const addTool = sharedAddTool()

function sdkServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' })
  server.registerTool(
    'add',
    {
      description: 'Add two integers.',
      inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
      outputSchema: z.object({ sum: z.number().int() }),
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
      structuredContent: { sum: a + b },
    }),
  )
  return server
}

/** The plain SDK server over Streamable HTTP on loopback, one transport per session. */
async function sdkHttp(): Promise<URL> {
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>()
  const http = createServer(async (req, res) => {
    const headers = new Headers()
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v)
    const hasBody = req.method === 'POST'
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
    } as RequestInit)
    const id = request.headers.get('mcp-session-id')
    let transport = id === null ? undefined : transports.get(id)
    if (transport === undefined) {
      const fresh = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => {
          transports.set(sid, fresh)
        },
      })
      await sdkServer().connect(fresh)
      transport = fresh
    }
    const response = await transport.handleRequest(request)
    res.writeHead(response.status, Object.fromEntries(response.headers))
    if (response.body !== null) for await (const chunk of response.body) res.write(chunk)
    res.end()
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)
}

// Run as a script (not imported by the bench for `addTool`): serve one server.
const [script, kind, transport] = process.argv.slice(1)
const main = script !== undefined && import.meta.url === pathToFileURL(script).href
if (!main) {
  // Imported: nothing to serve.
} else if (kind === 'sdk' && transport === 'stdio') await sdkServer().connect(new StdioServerTransport())
else if (kind === 'sdk' && transport === 'http') process.stdout.write(`${(await sdkHttp()).href}\n`)
else if (kind === 'tooltx') {
  const runtime = createToolRuntime()
  runtime.register(addTool)
  const server = mcpServer(runtime, { name: 'bench-tooltx', version: '1.0.0' })
  if (transport === 'stdio') await serveStdio(server)
  else process.stdout.write(`${(await serveHttp(server)).url.href}\n`)
} else {
  process.stderr.write('usage: mcp-servers.ts <tooltx|sdk> <stdio|http>\n')
  process.exit(2)
}
