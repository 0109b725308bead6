/**
 * Approvals on the 2026-07-28 revision (Y1.16): an ask is an `input_required` round answered by
 * the client's retry, over a real loopback HTTP server and the official SDK client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { mcpServer, serveHttp } from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

const textOf = (result: { content?: unknown }) =>
  (result.content as { text?: string }[]).map((b) => b.text).join('\n')
const codeOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['tooltx/result'] as { code?: string } | undefined)?.code ?? 'ok'

/** A served `deploy` that asks, and the bodies that ran. */
async function endpoint(): Promise<{ url: URL; ran: string[] }> {
  const runtime = createToolRuntime()
  const ran: string[] = []
  runtime.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a service.',
      parameters: { service: { type: 'string', required: true } },
      execute: ({ service }) => {
        ran.push(service)
        return `deployed ${service}`
      },
    }),
  )
  runtime.onPreExecute((exec, next) =>
    exec.name === 'deploy' ? { kind: 'ask', reason: 'it deploys' } : next(),
  )
  const server = mcpServer(runtime, { name: 'modern', version: '1.0.0' })
  const http = await serveHttp(server)
  cleanups.push(async () => {
    await http.close()
    await server.close()
  })
  return { url: http.url, ran }
}

type Answer = (digest: string) => Record<string, unknown>

async function modernClient(
  url: URL,
  answer?: Answer,
  autoFulfill = true,
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = []
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill },
    },
  )
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as {
      message: string
      requestedSchema: { properties: Record<string, { default?: unknown }> }
    }
    asked.push(params.message)
    return answer!(params.requestedSchema.properties.argumentsDigest!.default as string) as never
  })
  await client.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => client.close())
  return { client, asked }
}

const approve: Answer = (digest) => ({
  action: 'accept',
  content: { approve: true, argumentsDigest: digest },
})

describe('Y1.16 approvals as input_required rounds', () => {
  it('Y1.16: an ask is elicited through an input_required round; the approved retry runs the tool once', async () => {
    const { url, ran } = await endpoint()
    const { client, asked } = await modernClient(url, approve)
    const deployed = await client.callTool({ name: 'deploy', arguments: { service: 'api' } })
    expect([deployed.isError, textOf(deployed)]).toEqual([false, '"deployed api"'])
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatch(
      /^Allow the tool call deploy \{"service":"api"\} \(it deploys\)\? Approving covers exactly these arguments, digest [0-9a-f]{64}, once\.$/,
    )
    expect(ran).toEqual(['api'])
    const { client: decliner } = await modernClient(url, () => ({ action: 'decline' }))
    const declined = await decliner.callTool({ name: 'deploy', arguments: { service: 'db' } })
    expect(codeOf(declined)).toBe('DENIED')
    expect(ran).toEqual(['api'])
  })

  it('Y1.16: an answer approves one retry of the same call: replayed, forged or for other arguments it is DENIED', async () => {
    const { url, ran } = await endpoint()
    const { client } = await modernClient(url, undefined, false)
    const first = (await client.callTool(
      { name: 'deploy', arguments: { service: 'api' } },
      { allowInputRequired: true },
    )) as unknown as {
      resultType: string
      requestState: string
      inputRequests: Record<
        string,
        { params: { requestedSchema: { properties: { argumentsDigest: { default: string } } } } }
      >
    }
    expect(first.resultType).toBe('input_required')
    expect(ran).toEqual([])
    const digest =
      first.inputRequests['tooltx/approval']!.params.requestedSchema.properties.argumentsDigest.default
    const inputResponses = { 'tooltx/approval': approve(digest) }
    const retry = (service: string, requestState: string) =>
      client.callTool({ name: 'deploy', arguments: { service }, inputResponses, requestState } as never)
    const other = await client.callTool(
      { name: 'deploy', arguments: { service: 'api' } },
      { allowInputRequired: true },
    )
    const otherState = (other as unknown as { requestState: string }).requestState
    expect(codeOf(await retry('db', otherState))).toBe('DENIED')
    expect(codeOf(await retry('api', 'forged-state'))).toBe('DENIED')
    expect(textOf(await retry('api', first.requestState))).toBe('"deployed api"')
    const replayed = await retry('api', first.requestState)
    expect([codeOf(replayed), textOf(replayed)]).toEqual([
      'DENIED',
      'Error: tool "deploy" requires approval, but the approval channel is unavailable',
    ])
    expect(ran).toEqual(['api'])
  })
})
