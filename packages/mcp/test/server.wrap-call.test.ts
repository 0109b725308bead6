/** `mcpServer`'s `wrapCall` (Y1.15), over a real loopback HTTP server and the official client. */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { defineTool, type ExecuteInput } from '@tooltx/core'
import { mcpServer, serveHttp } from '@tooltx/mcp'
import { describe, expect, it } from 'vitest'
import { runtimeWith } from '../../core/test/pipeline.fixtures.js'

describe('Y1.15 wrapCall', () => {
  it('Y1.15: every served call runs through wrapCall, whose result the client gets', async () => {
    const runtime = runtimeWith(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: { text: { type: 'string', required: true } },
        execute: ({ text }) => text,
      }),
    )
    const seen: ExecuteInput[] = []
    const server = mcpServer(runtime, {
      name: 't',
      version: '1',
      wrapCall: async (input, execute) => {
        seen.push(input)
        return execute({
          ...input,
          arguments: { text: `wrapped ${(input.arguments as { text: string }).text}` },
        })
      },
    })
    const endpoint = await serveHttp(server)
    const client = new Client({ name: 'test', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(endpoint.url))
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
      expect(result.content).toEqual([{ type: 'text', text: '"wrapped hi"' }])
      expect(seen).toHaveLength(1)
      expect(seen[0]).toMatchObject({
        name: 'echo',
        arguments: { text: 'hi' },
        callId: expect.stringMatching(/^mcp_/),
      })
      expect(typeof seen[0]!.approver).toBe('function')
    } finally {
      await client.close()
      await endpoint.close()
      await server.close()
    }
    expect(() => mcpServer(runtime, { name: 'n', version: '1', wrapCall: 1 as never })).toThrow(
      'mcpServer: wrapCall must be a function',
    )
  })
})
