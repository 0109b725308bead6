import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, connect, progressSteps, startHttpFixture } from './mcp.fixtures.js'
import { rawInitialize } from './raw-initialize.js'

afterEach(cleanupAll)

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text?: string }[]).map((b) => b.text ?? `<${b.type}>`).join('\n')
const metaOf = (result: { _meta?: Record<string, unknown> }) =>
  result._meta?.['tooltx/result'] as Record<string, unknown>

/** Calls a tool over `client` and asserts an isError result with exactly `text` and a `_meta` matching `meta`. */
async function expectFailedCall(
  client: Client,
  call: { name: string; arguments: Record<string, unknown> },
  text: string,
  meta: Record<string, unknown>,
): Promise<void> {
  const result = await client.callTool(call)
  expect(result.isError).toBe(true)
  expect(textOf(result)).toBe(text)
  expect(metaOf(result)).toMatchObject(meta)
}

/** The fixture's `results` text once it names the `slow` call (asked up to 50 times, 50 ms apart). */
async function slowResult(client: Client): Promise<string> {
  let seen = ''
  for (let i = 0; i < 50 && !seen.includes('slow:'); i++) {
    seen = textOf(await client.callTool({ name: 'results', arguments: {} }))
    if (!seen.includes('slow:')) await new Promise((r) => setTimeout(r, 50))
  }
  return seen
}

describe.each(['stdio', 'http'] as const)('Y1 served over %s', (kind) => {
  it('Y1.2, Y1.3, Y1.4: tools/list pages the view in name order with schemas, titles and annotations', async () => {
    const client = await connect(kind)
    // listTools() without a cursor walks every page; one raw request shows the first page.
    const first = await client.request({ method: 'tools/list', params: {} })
    expect(first.tools.map((t) => t.name)).toEqual(['add', 'deploy', 'read_note'])
    expect(typeof first.nextCursor).toBe('string')
    const names = first.tools.map((t) => t.name)
    for (let cursor = first.nextCursor; cursor !== undefined; ) {
      const page = await client.listTools({ cursor })
      names.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
    }
    expect(names).toEqual(['add', 'deploy', 'read_note', 'results', 'shout', 'slow', 'toggle'])
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names)
    const add = first.tools[0]!
    expect(add).toMatchObject({
      name: 'add',
      title: 'Add',
      description: 'Add two integers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a', 'b'],
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { sum: { type: 'integer' } },
        required: ['sum'],
      },
      annotations: { title: 'Add', readOnlyHint: true, idempotentHint: true },
    })
    const deploy = first.tools[1]!
    expect(deploy.outputSchema).toBeUndefined()
    expect(deploy.annotations).toEqual({ title: 'Deploy', readOnlyHint: false })
    expect(first.tools[2]!.title).toBe('Read note')
  })

  it('Y1.2: a cursor the server never issued is an invalid-params error', async () => {
    const client = await connect(kind)
    await expect(client.listTools({ cursor: 'not a cursor!' })).rejects.toMatchObject({ code: -32602 })
  })

  it('Y1.5, Y1.6: a call runs through the pipeline: content, structuredContent only with an output schema, _meta', async () => {
    const client = await connect(kind)
    await client.listTools()
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    expect(sum.isError).toBe(false)
    expect(sum.content).toEqual([{ type: 'text', text: '2 + 3 = 5' }])
    expect(sum.structuredContent).toEqual({ sum: 5 })
    expect(metaOf(sum)).toEqual({ callId: expect.stringMatching(/^mcp_[0-9a-f-]{36}$/), isError: false })
    const loud = await client.callTool({ name: 'shout', arguments: { text: 'hi' } })
    expect(loud.content).toEqual([{ type: 'text', text: 'HI' }])
    expect(loud.structuredContent).toBeUndefined()
    const again = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })
    expect(metaOf(again).callId).not.toBe(metaOf(sum).callId)
  })

  it('Y1.5: invalid arguments and unknown tools are isError results with the tooltx message, never JSON-RPC errors', async () => {
    const client = await connect(kind)
    await expectFailedCall(
      client,
      { name: 'add', arguments: { a: 'two' } },
      'Error: invalid arguments: missing required property "b"; "a" must be an integer',
      { isError: true, code: 'INVALID_ARGS', name: 'ToolArgsError' },
    )
    await expectFailedCall(client, { name: 'nope', arguments: {} }, 'Error: unknown tool "nope"', {
      code: 'UNKNOWN_TOOL',
    })
  })

  it('Y1.5: guards apply to MCP calls', async () => {
    const client = await connect(kind)
    const denied = await client.callTool({ name: 'read_note', arguments: { name: 'secret' } })
    expect(denied.isError).toBe(true)
    expect(textOf(denied)).toContain('secret notes are off limits')
    expect(metaOf(denied)).toMatchObject({ code: 'DENIED' })
    const allowed = await client.callTool({ name: 'read_note', arguments: { name: 'todo' } })
    expect(textOf(allowed)).toBe('note todo')
  })

  it('Y1.7: an ask fails closed (DENIED) when the client cannot elicit', async () => {
    const client = await connect(kind)
    await expectFailedCall(
      client,
      { name: 'deploy', arguments: { service: 'staging' } },
      'Error: tool "deploy" requires approval, but the approval channel is unavailable',
      { code: 'DENIED' },
    )
  })

  it('Y1.7: an ask is elicited, bound to the arguments digest; only an exact approval runs the tool', async () => {
    const asked: { message: string; digest: unknown }[] = []
    const answers: ((digest: string) => Record<string, unknown>)[] = [
      (digest) => ({ action: 'accept', content: { approve: true, argumentsDigest: digest } }),
      (digest) => ({ action: 'accept', content: { approve: false, argumentsDigest: digest } }),
      () => ({ action: 'accept', content: { approve: true, argumentsDigest: '0'.repeat(64) } }),
      () => ({ action: 'decline' }),
    ]
    const client = await connect(kind, { capabilities: { elicitation: { form: {} } } }, (c) => {
      c.setRequestHandler('elicitation/create', (request) => {
        const params = request.params as {
          message: string
          requestedSchema: { properties: Record<string, { default?: unknown }> }
        }
        const digest = params.requestedSchema.properties.argumentsDigest!.default as string
        asked.push({ message: params.message, digest })
        return answers.shift()!(digest) as never
      })
    })
    const ok = await client.callTool({ name: 'deploy', arguments: { service: 'staging' } })
    expect(textOf(ok)).toBe('deployed staging')
    expect(asked[0]!.digest).toMatch(/^[0-9a-f]{64}$/)
    expect(asked[0]!.message).toContain('deploy {"service":"staging"} (deploys change production)')
    const rejected = await client.callTool({ name: 'deploy', arguments: { service: 'staging' } })
    expect(textOf(rejected)).toBe('Error: the user rejected tool "deploy"')
    const wrongDigest = await client.callTool({ name: 'deploy', arguments: { service: 'staging' } })
    expect(metaOf(wrongDigest)).toMatchObject({ code: 'DENIED' })
    // The SDK checks the answer against the form, whose digest field admits only the digest asked.
    expect(textOf(wrongDigest)).toBe(
      'Error: tool "deploy" requires approval, but the approval channel is unavailable',
    )
    const declined = await client.callTool({ name: 'deploy', arguments: { service: 'prod' } })
    expect(textOf(declined)).toBe('Error: the user rejected tool "deploy"')
    expect(asked[3]!.digest).not.toBe(asked[0]!.digest)
  })

  it('P4.11, Y1.7: an ask about a name the served view does not resolve elicits nothing and fails UNKNOWN_TOOL', async () => {
    let elicited = 0
    const client = await connect(kind, { capabilities: { elicitation: { form: {} } } }, (c) => {
      c.setRequestHandler('elicitation/create', () => {
        elicited++
        return { action: 'accept', content: { approve: true } } as never
      })
    })
    await expectFailedCall(client, { name: 'ghost', arguments: {} }, 'Error: unknown tool "ghost"', {
      code: 'UNKNOWN_TOOL',
    })
    expect(elicited).toBe(0)
  })

  it('Y1.8: run.progress becomes notifications/progress when the client sent a token', async () => {
    const client = await connect(kind)
    const updates: unknown[] = []
    const result = await client.callTool(
      // A short wait before the answer: the SDK client drops progress it reads in one chunk with the answer (Y2.9).
      { name: 'slow', arguments: { steps: 3, waitMs: 50 } },
      { onprogress: (p) => updates.push(p) },
    )
    expect(textOf(result)).toBe('done')
    expect(updates).toEqual(progressSteps(3, 'step'))
  })

  it("Y1.8: cancelling mid-call aborts the call's signal and the result is ABORTED", async () => {
    const client = await connect(kind)
    const controller = new AbortController()
    const call = client.callTool(
      { name: 'slow', arguments: { steps: 1, waitMs: 20_000 } },
      { signal: controller.signal, onprogress: () => controller.abort() },
    )
    await expect(call).rejects.toThrow()
    expect(await slowResult(client)).toBe('slow:ABORTED')
  })

  it('Y1.9: a change of the served view sends notifications/tools/list_changed', async () => {
    let changed = 0
    const client = await connect(kind, {}, (c) =>
      c.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++
      }),
    )
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true })
    await client.callTool({ name: 'toggle', arguments: {} })
    for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(changed).toBe(1)
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('extra')
    // A call that changes no view sends nothing.
    await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })
    await new Promise((r) => setTimeout(r, 100))
    expect(changed).toBe(1)
  })
})

describe('Y1 stdio transport', () => {
  it("Y1.10: serveStdio serves one session over the child process's stdin and stdout", async () => {
    const client = await connect('stdio')
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    expect(sum.isError).toBeFalsy()
    expect(sum.structuredContent).toEqual({ sum: 5 })
  })
})

describe('Y1 HTTP transport', () => {
  it('Y1.11: binds loopback by default and serves only its path', async () => {
    const { url } = await startHttpFixture()
    expect(url.hostname).toBe('127.0.0.1')
    expect(url.pathname).toBe('/mcp')
    expect(await rawInitialize(url, {})).toBe(200)
    expect(await rawInitialize(new URL('/other', url), {})).toBe(404)
    expect(await rawInitialize(url, { 'mcp-session-id': 'no-such-session' })).toBe(404)
  })

  it('Y1.12: DNS-rebinding protection: a foreign Host or Origin is refused with 403', async () => {
    const { url } = await startHttpFixture()
    expect(await rawInitialize(url, { host: 'evil.example' })).toBe(403)
    expect(await rawInitialize(url, { origin: 'http://evil.example' })).toBe(403)
    expect(
      await rawInitialize(url, { host: `localhost:${url.port}`, origin: `http://localhost:${url.port}` }),
    ).toBe(200)
  })

  it('Y1.8: a session that ends mid-call aborts the call; the result is ABORTED', async () => {
    const { url } = await startHttpFixture()
    const transport = new StreamableHTTPClientTransport(url)
    const leaving = new Client({ name: 'leaving', version: '1.0.0' })
    await leaving.connect(transport)
    let started!: () => void
    const progressed = new Promise<void>((resolve) => {
      started = resolve
    })
    const call = leaving.callTool(
      { name: 'slow', arguments: { steps: 1, waitMs: 20_000 } },
      { onprogress: () => started() },
    )
    call.catch(() => undefined)
    await progressed
    await transport.terminateSession()
    await leaving.close()
    const watcher = new Client({ name: 'watcher', version: '1.0.0' })
    await watcher.connect(new StreamableHTTPClientTransport(url))
    cleanups.push(() => watcher.close())
    expect(await slowResult(watcher)).toBe('slow:ABORTED')
  })

  it('Y1.13: with a bearer token, requests without it get 401 and clients with it are served', async () => {
    const token = 'test-token-0123456789abcdef'
    const { url } = await startHttpFixture(token)
    expect(await rawInitialize(url, {})).toBe(401)
    expect(await rawInitialize(url, { authorization: 'Bearer wrong-token-0123456789ab' })).toBe(401)
    const client = new Client({ name: 'authed', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    cleanups.push(() => client.close())
    const result = await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })
    expect(result.structuredContent).toEqual({ sum: 42 })
  })
})
