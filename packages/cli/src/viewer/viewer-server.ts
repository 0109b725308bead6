import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { AnyToolDefinition } from '@tooltx/core'
import { json, notFound, text } from './http-responses.js'
import { matchRoute } from './route-table.js'
import { VIEWER_ROUTES } from './viewer-routes.js'
import type { ViewerSource } from './viewer-source.js'
import { ViewerState } from './viewer-state.js'

/** The built page: `dist/web` of the CLI package, from `src/viewer` and `dist/viewer` alike. */
export const VIEWER_ASSETS = fileURLToPath(new URL('../../dist/web/', import.meta.url))

/** How long without a new event before a followed session counts as idle, by default (G4.2). */
export const DEFAULT_IDLE_MS = 10_000

/** Options of `startViewerServer`. */
export interface ViewerServerOptions {
  readonly source: ViewerSource
  /** The definitions whose presenters build the cards (those the log's results record). */
  readonly definitions: readonly AnyToolDefinition[]
  /** Loopback by default (G2.3). */
  readonly host?: string
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly idleMs?: number
  /** Where the built page is (default `VIEWER_ASSETS`). */
  readonly assets?: string
}

/** A running viewer. */
export interface ViewerServer {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string
  /** Ends every open stream and stops listening. */
  close(): Promise<void>
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** The methods some route answers; any other is refused before routing. */
const METHODS = new Set(VIEWER_ROUTES.map((route) => route.method))

/** The non-empty segments of `pathname`, decoded, or `undefined` when one is not valid percent-encoding. */
function decodedSegments(pathname: string): string[] | undefined {
  try {
    return pathname.split('/').filter(Boolean).map(decodeURIComponent)
  } catch {
    return undefined
  }
}

/** The running viewer a request reaches: its state, and the host and port it listens on. */
interface Listening {
  readonly state: ViewerState
  readonly host: string
  readonly port: number
}

/**
 * Answers one request: refuses (403) a `Host` that is not this server's loopback name and port,
 * so another web site cannot read sessions through DNS rebinding, and (405) a method no route
 * answers; then runs the first route of `VIEWER_ROUTES` that matches the decoded path. A handler
 * that fails answers 500 with its message, or ends a response already under way.
 */
function answer(req: IncomingMessage, res: ServerResponse, { state, host, port }: Listening): void {
  const hostHeader = req.headers.host ?? ''
  const name = hostHeader.replace(/:\d+$/, '')
  if (hostHeader !== `${name}:${port}` || !(LOOPBACK_NAMES.has(name) || name === host)) {
    text(res, 403, `this viewer answers only to its own address (Host ${hostHeader} refused)`)
    return
  }
  if (!METHODS.has(req.method ?? '')) {
    text(res, 405, 'the viewer only reads: use GET')
    return
  }
  const url = new URL(req.url ?? '/', `http://${hostHeader}`)
  const segments = decodedSegments(url.pathname)
  const match = segments && matchRoute(VIEWER_ROUTES, req.method!, segments)
  if (match === undefined) {
    notFound(res, `no page ${url.pathname}`)
    return
  }
  Promise.resolve()
    .then(() => match.route.handler({ req, res, url, params: match.params, state }))
    .catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (error as Error).message })
      else res.end()
    })
}

/**
 * Serves the viewer (G2.3) on `host` (loopback by default): the built page, the sessions list,
 * each session's display entries, raw events, and a server-sent event stream per session fed by
 * the source's change notifications — the routes of `VIEWER_ROUTES`.
 */
export async function startViewerServer(options: ViewerServerOptions): Promise<ViewerServer> {
  const host = options.host ?? '127.0.0.1'
  const state = new ViewerState({
    source: options.source,
    definitions: options.definitions,
    idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
    assets: options.assets ?? VIEWER_ASSETS,
  })
  const server = createServer((req, res) =>
    answer(req, res, { state, host, port: (server.address() as AddressInfo).port }),
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  }).catch((error: unknown) => {
    state.close()
    throw error
  })
  const { port } = server.address() as AddressInfo
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${port}`,
    async close() {
      state.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
