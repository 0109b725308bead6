/**
 * Streamable HTTP for a served view (Y1.11–Y1.13, Y1.17): a Node HTTP server, bound to loopback
 * unless told otherwise, that checks `Host` (by default: the names of the bound address only) and
 * `Origin` against allow-lists (DNS-rebinding protection) and, with `bearerToken`, an
 * `Authorization: Bearer` header, before any MCP message is read.
 * Each MCP session (`Mcp-Session-Id`) of the 2025 revisions gets its own transport over the same
 * view, its SSE streams resumable through an event store (Y1.25–Y1.27); a request of the
 * stateless 2026-07-28 revision is answered by a fresh server instance.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import {
  createMcpHandler,
  type EventStore,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { ToolError } from '@tooltx/core'
import { boundHostNames, hostName, urlHost } from './bound-host.js'
import { endedSessionReplay } from './ended-session-replay.js'
import { memoryEventStore } from './event-store.js'
import type { TooltxMcpServer } from './server.js'
import { sessionEventStore } from './session-events.js'

/** The SSE `retry` (milliseconds) `serveHttp` suggests to reconnecting clients by default. */
export const DEFAULT_RETRY_INTERVAL_MS = 1_000

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /**
   * The address to bind; default `127.0.0.1`. Binding anything else is an explicit choice, which
   * serves whoever can reach the address: pair it with `bearerToken` (or your own gate in front).
   */
  host?: string
  /** The port; default 0 (any free port, see `url`). */
  port?: number
  /** The endpoint path; default `/mcp`. */
  path?: string
  /**
   * Host names (no port) a request's `Host` may name; default: the names of the bound address
   * only (`boundHostNames`): loopback names for a loopback `host`, the machine's name and
   * non-loopback addresses for `0.0.0.0` or `::`, else `host` alone.
   */
  allowedHosts?: readonly string[]
  /** Origin host names a browser request may come from; default: loopback names. */
  allowedOrigins?: readonly string[]
  /** When set, every request must carry `Authorization: Bearer <bearerToken>`. */
  bearerToken?: string
  /**
   * Where the SSE events of the 2025 sessions are kept so a dropped stream can resume with
   * `Last-Event-ID` (Y1.25, Y1.26): default a {@link memoryEventStore} with its default bounds,
   * shared by all sessions of this endpoint; your own store (the SDK's `EventStore`); or `false`
   * for streams that cannot resume (no priming event, no event ids).
   */
  eventStore?: EventStore | false
  /**
   * The SSE `retry` field, in milliseconds, of each priming event: how long a client waits before
   * it reconnects a dropped stream; default {@link DEFAULT_RETRY_INTERVAL_MS}.
   */
  retryInterval?: number
}

/** A listening HTTP endpoint. */
export interface HttpEndpoint {
  /**
   * Where clients connect, e.g. `http://127.0.0.1:51234/mcp`; bound to a wildcard, the machine's
   * first non-loopback IPv4 address (else its host name) stands for the host (`urlHost`).
   */
  readonly url: URL
  /** Stops listening and closes every session. */
  close(): Promise<void>
}

function optionError(message: string): ToolError {
  return new ToolError('INVALID_DEFINITION', `serveHttp: ${message}`, { name: 'DefinitionError' })
}

function sameToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '')
  if (match === null) return false
  const given = Buffer.from(match[1]!, 'utf8')
  const expected = Buffer.from(token, 'utf8')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The Web `Request` for a Node request; its signal aborts when the client goes away. */
function webRequest(req: IncomingMessage, res: ServerResponse, base: URL): Request {
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value)
    else if (Array.isArray(value)) for (const v of value) headers.append(key, v)
  }
  const controller = new AbortController()
  res.on('close', () => controller.abort())
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE'
  return new Request(new URL(req.url ?? '/', base), {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit)
}

/** Writes a Web `Response` to a Node response, streaming its body (SSE included). */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  res.on('close', () => reader.cancel().catch(() => undefined))
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
  } catch {
    // The client went away mid-stream; there is nobody left to answer.
  }
  res.end()
}

function textResponse(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } })
}

/**
 * Serves `server` over Streamable HTTP and resolves once it listens (Y1.11). Requests to other
 * paths get 404; a `Host` outside `allowedHosts` or an `Origin` outside `allowedOrigins` gets 403
 * (Y1.12); a missing or wrong bearer token gets 401 with `WWW-Authenticate: Bearer` (Y1.13).
 */
export async function serveHttp(
  server: TooltxMcpServer,
  options: ServeHttpOptions = {},
): Promise<HttpEndpoint> {
  const { host = '127.0.0.1', port = 0, path = '/mcp', bearerToken } = options
  if (typeof host !== 'string' || host === '') throw optionError('host must be a non-empty string')
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw optionError('port must be an integer 0–65535')
  if (!path.startsWith('/')) throw optionError('path must start with "/"')
  if (bearerToken !== undefined && (typeof bearerToken !== 'string' || bearerToken.length < 16))
    throw optionError('bearerToken must be a string of at least 16 characters')
  const { eventStore = memoryEventStore(), retryInterval = DEFAULT_RETRY_INTERVAL_MS } = options
  if (
    eventStore !== false &&
    (typeof eventStore?.storeEvent !== 'function' || typeof eventStore.replayEventsAfter !== 'function')
  )
    throw optionError('eventStore must be false or have storeEvent and replayEventsAfter methods')
  if (!Number.isInteger(retryInterval) || retryInterval < 0)
    throw optionError('retryInterval must be a non-negative integer (milliseconds)')
  const allowedHosts = [...(options.allowedHosts ?? boundHostNames(host))]
  const allowedOrigins = [...(options.allowedOrigins ?? localhostAllowedOrigins())]
  const transports = new Map<string, WebStandardStreamableHTTPServerTransport>()
  // The 2026-07-28 revision: stateless, one fresh server instance per request (Y1.14).
  const modern = createMcpHandler(() => server.instance(), { legacy: 'reject' })
  const offListChanged = server.onListChanged(() => modern.notify.toolsChanged())

  async function answer(request: Request): Promise<Response> {
    const rejected =
      hostHeaderValidationResponse(request, allowedHosts) ?? originValidationResponse(request, allowedOrigins)
    if (rejected !== undefined) return rejected
    if (new URL(request.url).pathname !== path)
      return textResponse(404, `not found: MCP is served at ${path}`)
    if (
      bearerToken !== undefined &&
      !sameToken(request.headers.get('authorization') ?? undefined, bearerToken)
    )
      return textResponse(401, 'unauthorized: send Authorization: Bearer <token>', {
        'www-authenticate': 'Bearer',
      })
    if (request.method === 'POST' && !(await isLegacyRequest(request))) return modern.fetch(request)
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId !== null) {
      const transport = transports.get(sessionId)
      if (transport !== undefined) return transport.handleRequest(request)
      // A session this process does not hold may still have its events in a durable store (Y1.36).
      const replay =
        eventStore === false ? undefined : await endedSessionReplay(request, eventStore, sessionId)
      return replay ?? textResponse(404, 'unknown MCP session: initialize a new one')
    }
    // No session yet: a fresh transport, which accepts only an initialize request. Its id is
    // drawn first so that its view of the event store can name it.
    const id = randomUUID()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      ...(eventStore === false ? {} : { eventStore: sessionEventStore(eventStore, id), retryInterval }),
      onsessioninitialized: (id) => {
        transports.set(id, transport)
      },
      onsessionclosed: (id) => {
        transports.delete(id)
      },
    })
    await server.connect(transport)
    const response = await transport.handleRequest(request)
    if (transport.sessionId === undefined) await transport.close()
    return response
  }

  const http = createServer((req, res) => {
    const base = new URL(`http://${hostName(host)}`)
    answer(webRequest(req, res, base))
      .catch(() => textResponse(500, 'internal error'))
      .then((response) => writeResponse(response, res))
      .catch(() => res.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(port, host, () => resolve())
  })
  const { port: bound } = http.address() as AddressInfo
  return {
    url: new URL(`http://${urlHost(host)}:${bound}${path}`),
    async close() {
      offListChanged()
      await Promise.allSettled([modern.close(), ...[...transports.values()].map((t) => t.close())])
      transports.clear()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
