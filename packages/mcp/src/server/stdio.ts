/** The stdio transport of a served view (Y1.10). */
import type { Readable, Writable } from 'node:stream'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import type { TooltxMcpServer } from './server.js'

/**
 * Serves one MCP session over stdin/stdout (or the given streams) and resolves once the session
 * is open. Nothing else may write to stdout meanwhile: log to stderr.
 */
export async function serveStdio(
  server: TooltxMcpServer,
  streams: { stdin?: Readable; stdout?: Writable } = {},
): Promise<void> {
  await server.connect(new StdioServerTransport(streams.stdin, streams.stdout))
}
