/** How `mcpTools` reaches a server (Y2.1): a spawned command over stdio, or Streamable HTTP. */
import {
  Client,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

/** A server to spawn and talk to over its stdin/stdout. */
export interface StdioConnection {
  command: string
  args?: readonly string[]
  /** The child's environment; default: the SDK's safe inherited subset (PATH, HOME, …). */
  env?: Record<string, string>
  cwd?: string
  /** Where the child's stderr goes; default `inherit`. */
  stderr?: 'inherit' | 'ignore' | 'pipe'
  /**
   * The largest message the server may send, in bytes; default the SDK's 10 MB. A larger one
   * closes the connection, so its call fails `MCP_CONNECTION_CLOSED` (Y2.13).
   */
  maxMessageBytes?: number
}

/** A server reached over Streamable HTTP. */
export interface HttpConnection {
  url: string | URL
  /** Extra request headers, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>
}

/** Either kind of connection. */
export type McpConnection = StdioConnection | HttpConnection

/** The SDK transport for `connection`. */
export function transportFor(connection: McpConnection): Transport {
  if ('url' in connection) {
    return new StreamableHTTPClientTransport(new URL(connection.url), {
      ...(connection.headers === undefined ? {} : { requestInit: { headers: connection.headers } }),
    })
  }
  return new StdioClientTransport({
    command: connection.command,
    args: [...(connection.args ?? [])],
    stderr: connection.stderr ?? 'inherit',
    ...(connection.env === undefined ? {} : { env: connection.env }),
    ...(connection.cwd === undefined ? {} : { cwd: connection.cwd }),
    ...(connection.maxMessageBytes === undefined ? {} : { maxBufferSize: connection.maxMessageBytes }),
  })
}

/**
 * A client for `connection` (Y2.1), announcing `clientName` and the package version, and the
 * function that connects it over a fresh transport, again after each drop (Y2.14). Over HTTP it
 * probes for the 2026-07-28 revision first and falls back to the 2025 handshake (Y2.11); over
 * stdio it speaks the 2025 handshake, which every stdio server answers. `onToolsChanged`
 * receives the server's new listing after each change it announces (Y2.12).
 */
export function createClient(
  connection: McpConnection,
  clientName: string,
  onToolsChanged: (tools: Tool[]) => void,
): { client: Client; connect: () => Promise<void> } {
  // The SDK re-lists the tools on `list_changed` (2025) or its listen stream (2026); a failed
  // re-listing keeps what was imported.
  const listChanged = {
    tools: {
      onChanged: (error: Error | null, tools: Tool[] | null) =>
        error === null && tools !== null && onToolsChanged(tools),
    },
  }
  const client = new Client(
    { name: clientName, version: '0.1.0' },
    'url' in connection ? { versionNegotiation: { mode: 'auto' }, listChanged } : { listChanged },
  )
  return { client, connect: () => client.connect(transportFor(connection)) }
}
