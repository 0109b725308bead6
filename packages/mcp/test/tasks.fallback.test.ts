/**
 * Y6.31: against a server that speaks 2026-07-28 without the Tasks extension but offers the
 * 2025-11-25 tasks utility in a 2025 session, `mcpTools` with `tasks` speaks a 2025 session and
 * calls as tasks there; a server that refuses a 2025 session has no tasks to use, and its calls
 * are ordinary ones on 2026. The server is a real tooltx server over HTTP on loopback; a real
 * HTTP proxy in front of it takes the extension out of its `server/discover` answer, as such a
 * server answers, and (for the refusal) turns the 2025 handshake away.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, mcpTools, memoryTaskStore, serveHttp, type TaskStore } from '../src/index.js'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** A discover answer (a JSON body or SSE `data:` lines) with the extension taken out. */
function withoutExtension(text: string): string {
  const patch = (json: string) => {
    const message = JSON.parse(json) as { result?: { capabilities?: Record<string, unknown> } }
    delete message.result?.capabilities?.extensions
    return JSON.stringify(message)
  }
  if (text.trimStart().startsWith('{')) return patch(text)
  return text.replace(/^data: (.*)$/gm, (_line, json: string) => `data: ${patch(json)}`)
}

/** A proxy on loopback to `target`, rewriting discover answers; with `refuseLegacy`, `initialize` gets HTTP 400. */
async function proxy(target: URL, refuseLegacy: boolean): Promise<URL> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const method =
      body.length === 0 ? undefined : (JSON.parse(body.toString('utf8')) as { method?: string }).method
    if (refuseLegacy && method === 'initialize') {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'this server speaks 2026-07-28 only' },
        }),
      )
      return
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([name]) => !['host', 'content-length', 'connection'].includes(name),
      ),
    ) as Record<string, string>
    const answer = await fetch(new URL(req.url ?? '/', target), {
      method: req.method ?? 'GET',
      headers,
      ...(body.length === 0 ? {} : { body }),
    })
    const out: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding')
        out[name] = value
    })
    res.writeHead(answer.status, out)
    if (method === 'server/discover') res.end(withoutExtension(await answer.text()))
    else if (answer.body === null) res.end()
    else Readable.fromWeb(answer.body as never).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`)
}

/** A tooltx server whose `sum` may be called as a task, behind the proxy. */
async function serve(refuseLegacy = false): Promise<{ url: URL; store: TaskStore }> {
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'sum',
      description: 'Add two integers.',
      parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      effect: 'idempotent',
      execute: (args) => `sum ${args.a + args.b}`,
    }),
  )
  const store = memoryTaskStore()
  const server = mcpServer(runtime, {
    name: 'legacy-tasks',
    version: '1.0.0',
    tasks: { tools: ['sum'], store, pollInterval: 20 },
  })
  const endpoint = await serveHttp(server)
  cleanups.push(async () => {
    await endpoint.close()
    await server.close()
  })
  return { url: await proxy(endpoint.url, refuseLegacy), store }
}

async function importer(url: URL, tasks: boolean) {
  const set = await mcpTools({ url }, { name: 'remote', tasks })
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  const call = () =>
    runtime.execute({
      callId: 'c1',
      name: 'mcp__remote__sum',
      arguments: { a: 2, b: 3 },
      signal: new AbortController().signal,
    })
  return { set, call }
}

describe('Y6.31 a 2026 server with only the 2025 tasks utility', () => {
  it('Y6.31: with tasks the client speaks a 2025 session and calls as a 2025 task; without, it stays on 2026 and calls plainly', async () => {
    const { url, store } = await serve()
    const plain = await importer(url, false)
    expect(plain.set.client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    // The 2026 revision has no place for the 2025 utility: nothing on 2026 says it is there.
    expect(plain.set.client.getServerCapabilities()?.tasks).toBeUndefined()
    expect((await plain.call()).content).toEqual([{ type: 'text', text: 'sum 5' }])
    expect(await store.list(0, 10)).toEqual([])

    const tasked = await importer(url, true)
    expect(tasked.set.client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
    const result = await tasked.call()
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    const [task] = await store.list(0, 10)
    // A task of the 2025 utility: it belongs to the MCP session that created it.
    expect(task).toMatchObject({ tool: 'sum', status: 'completed' })
    expect(typeof task?.session).toBe('string')
  })

  it('Y6.31: a server that refuses a 2025 session keeps its 2026 session, and its calls are ordinary ones', async () => {
    const { url, store } = await serve(true)
    const { set, call } = await importer(url, true)
    expect(set.client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await call()).content).toEqual([{ type: 'text', text: 'sum 5' }])
    expect(await store.list(0, 10)).toEqual([])
  })
})
