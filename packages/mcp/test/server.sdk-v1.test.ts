/**
 * Our server against the v1 official client (`@modelcontextprotocol/sdk`), a 2025-11-25 peer
 * independent of the v2 packages tooltx is built on, over stdio and Streamable HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import {
  cleanupAll,
  cleanups,
  expectServedAdd,
  fixture,
  progressSteps,
  startHttpFixture,
} from './mcp.fixtures.js'

afterEach(cleanupAll)

// v1 types a call result as a union with its older `toolResult` shape: read the 2025 fields.
const textOf = (result: object) =>
  (result as { content: { text?: string }[] }).content.map((b) => b.text).join('\n')
const codeOf = (result: object) =>
  ((result as { _meta?: Record<string, unknown> })._meta?.['tooltx/result'] as { code?: string } | undefined)
    ?.code ?? 'ok'

async function v1Client(kind: 'stdio' | 'http', elicit = false): Promise<Client> {
  const client = new Client(
    { name: 'v1-client', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: {} } } : {},
  )
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const { requestedSchema: schema } = request.params as {
        requestedSchema: { properties: Record<string, { default?: unknown }> }
      }
      const digest = schema.properties.argumentsDigest?.default as string
      return { action: 'accept', content: { approve: true, argumentsDigest: digest } }
    })
  }
  const transport =
    kind === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [fixture('tooltx-server.mjs'), 'stdio'] })
      : new StreamableHTTPClientTransport((await startHttpFixture()).url)
  await client.connect(transport)
  cleanups.push(() => client.close())
  return client
}

describe.each(['stdio', 'http'] as const)('Y1 served over %s to the v1 SDK client', (kind) => {
  it('Y1.1, Y1.2, Y1.5, Y1.6: lists every page, calls, and gets tooltx failures as isError results', async () => {
    const client = await v1Client(kind)
    expect(client.getServerVersion()).toMatchObject({ name: 'fixture', version: '1.0.0' })
    // The v1 client does not walk pages itself (the fixture serves 3 tools a page).
    const names: string[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      names.push(...page.tools.map((t) => t.name))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    expect(names).toEqual(['add', 'deploy', 'read_note', 'results', 'shout', 'slow', 'toggle'])
    await expectServedAdd(client)
    const denied = await client.callTool({ name: 'read_note', arguments: { name: 'secret' } })
    expect([denied.isError, codeOf(denied)]).toEqual([true, 'DENIED'])
  })

  it('Y1.7: an ask fails closed without elicitation and is elicited with it', async () => {
    const plain = await v1Client(kind)
    const refused = await plain.callTool({ name: 'deploy', arguments: { service: 'staging' } })
    expect([refused.isError, codeOf(refused)]).toEqual([true, 'DENIED'])
    const asking = await v1Client(kind, true)
    const approved = await asking.callTool({ name: 'deploy', arguments: { service: 'staging' } })
    expect([approved.isError ?? false, textOf(approved)]).toEqual([false, 'deployed staging'])
  })

  it('Y1.8: progress notifications reach the v1 client', async () => {
    const client = await v1Client(kind)
    const updates: unknown[] = []
    // A short wait before the answer: the SDK client drops progress it reads in one chunk with the answer (Y2.9).
    const result = await client.callTool({ name: 'slow', arguments: { steps: 2, waitMs: 50 } }, undefined, {
      onprogress: (p) => updates.push(p),
    })
    expect(textOf(result)).toBe('done')
    expect(updates).toEqual(progressSteps(2, 'step'))
  })
})
