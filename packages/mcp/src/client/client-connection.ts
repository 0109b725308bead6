/** How `mcpTools` reaches a server (Y2.1): a spawned command over stdio, or Streamable HTTP. */
import {
  Client,
  type ClientCapabilities,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { offersTaskExtension } from '../tasks-extension.js'
import { type AuthorizingWrapper, authorizingWrapper, type McpAuth } from './auth/mcp-auth.js'
import type { Backoff } from './backoff.js'
import { boundedFetch } from './bounded-fetch.js'
import { listenScheduler } from './listen-stream.js'
import { DEFAULT_MAX_MESSAGE_BYTES } from './message-bound.js'
import { liftTaskResults } from './task-result-lift.js'

/** A server to spawn and talk to over its stdin/stdout. */
export interface StdioConnection {
  command: string
  args?: readonly string[]
  /** The child's environment; default: the SDK's safe inherited subset (PATH, HOME, …). */
  env?: Record<string, string>
  cwd?: string
  /**
   * Where the child's stderr goes: `inherit` (the default), `ignore`, `pipe`, or a file
   * descriptor open for writing, such as a log file's, which each spawn of the server shares.
   */
  stderr?: 'inherit' | 'ignore' | 'pipe' | number
  /**
   * The largest message the server may send, in bytes; default 10 MB. A larger one closes the
   * connection, so its call fails `MCP_CONNECTION_CLOSED` (Y2.13, Y2.18).
   */
  maxMessageBytes?: number
}

/** A server reached over Streamable HTTP. */
export interface HttpConnection {
  url: string | URL
  /** Extra request headers, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>
  /** OAuth for a server that asks for it (Y5): authorization code with PKCE, or client credentials. */
  auth?: McpAuth
  /**
   * The largest message the server may send, in bytes: one JSON answer, one event of a stream;
   * default 10 MB. A larger one closes the connection, so its call fails
   * `MCP_CONNECTION_CLOSED` (Y2.18), as over stdio.
   */
  maxMessageBytes?: number
}

/** Either kind of connection. */
export type McpConnection = StdioConnection | HttpConnection

/**
 * The SDK transport for `connection`, bounding each message from the server by
 * `maxMessageBytes` (Y2.13, Y2.18): the SDK's read buffer over stdio; over HTTP a counted body
 * that, past the bound, reports the error and closes the transport, as the stdio one does.
 * Over HTTP the reopenings of the GET stream are bounded by `backoff` (Y2.22), and `authorize`
 * (the set's OAuth, Y5) wraps the fetch; task creations of the Tasks extension are lifted into
 * a shape the SDK client hands on (Y6.27).
 */
export function transportFor(
  connection: McpConnection,
  backoff: Backoff,
  authorize: AuthorizingWrapper = (fetch) => fetch,
): Transport {
  const maxBytes = connection.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  if ('url' in connection) {
    const bounded = boundedFetch(maxBytes, (error) => {
      transport.onerror?.(error)
      void transport.close()
    })
    const transport: Transport = liftTaskResults(
      new StreamableHTTPClientTransport(new URL(connection.url), {
        ...(connection.headers === undefined ? {} : { requestInit: { headers: connection.headers } }),
        reconnectionScheduler: listenScheduler(backoff),
        fetch: authorize(bounded),
      }),
    )
    return transport
  }
  return new StdioClientTransport({
    command: connection.command,
    args: [...(connection.args ?? [])],
    stderr: connection.stderr ?? 'inherit',
    ...(connection.env === undefined ? {} : { env: connection.env }),
    ...(connection.cwd === undefined ? {} : { cwd: connection.cwd }),
    maxBufferSize: maxBytes,
  })
}

/**
 * A client for `connection` (Y2.1), announcing `clientName` and the package version, and the
 * function that connects it over a fresh transport, again after each drop (Y2.14). Over HTTP it
 * probes for the 2026-07-28 revision first and falls back to the 2025 handshake (Y2.11), unless
 * `legacy` (Y6.31); over stdio it speaks the 2025 handshake, which every stdio server answers.
 * `onToolsChanged` receives the server's new listing after each change it announces (Y2.12);
 * `backoff` bounds the reopenings of an HTTP server's GET stream (Y2.22); `capabilities` are
 * announced (Y2.24).
 */
export function createClient(
  connection: McpConnection,
  clientName: string,
  onToolsChanged: (tools: Tool[]) => void,
  backoff: Backoff,
  capabilities: ClientCapabilities = {},
  legacy = false,
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
    'url' in connection && !legacy
      ? { capabilities, versionNegotiation: { mode: 'auto' }, listChanged }
      : { capabilities, listChanged },
  )
  // One OAuth flow for the set: tokens and the loopback port outlive each reconnection (Y5.1).
  const authorize =
    'url' in connection && connection.auth !== undefined
      ? authorizingWrapper(new URL(connection.url), connection.auth)
      : undefined
  return { client, connect: () => client.connect(transportFor(connection, backoff, authorize)) }
}

/** True iff `client` speaks the 2026-07-28 revision (or later), whose tasks are the extension's (Y6.22). */
const speaksModern = (client: Client): boolean =>
  (client.getNegotiatedProtocolVersion() ?? '') >= '2026-07-28'

/**
 * Creates (`make`, with `legacy` as `createClient` takes it) and connects the client of a set
 * (Y2.1). The 2026-07-28 revision has no place for the 2025-11-25 tasks utility (the SDK drops
 * its capability and a listing's `execution` there), so when `tasks` are wanted of a server that
 * speaks it without the extension, a 2025 session is tried (Y6.31): kept when it offers tasks for
 * `tools/call`, else closed, and so is one the server refuses; the 2026 client is kept then.
 */
export async function openClient(
  make: (legacy: boolean) => { client: Client; connect: () => Promise<void> },
  tasks: boolean,
): Promise<{ client: Client; connect: () => Promise<void> }> {
  const modern = make(false)
  await modern.connect()
  if (!tasks || !speaksModern(modern.client) || offersTaskExtension(modern.client)) return modern
  const legacy = make(true)
  const offered = await legacy.connect().then(
    () => legacy.client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined,
    () => false,
  )
  const [kept, closed] = offered ? [legacy, modern] : [modern, legacy]
  await closed.client.close().catch(() => undefined)
  return kept
}
