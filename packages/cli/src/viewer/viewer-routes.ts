import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { DisplayEntry } from '../display/session-display.js'
import { CONTENT_TYPES, json, notFound, queryCount, SECURITY_HEADERS, text } from './http-responses.js'
import type { Route, RouteRequest } from './route-table.js'
import { sessionStream } from './session-stream.js'
import type { ViewerState } from './viewer-state.js'

/**
 * What a session page loads: entries `offset` to `offset + limit` of the `total` entries of the
 * events up to `lastSeq` (`through`, or all so far), and whether the session is being written.
 */
export interface SessionPayload {
  readonly id: string
  readonly store: string
  readonly lastSeq: number
  readonly idle: boolean
  readonly total: number
  readonly entries: readonly DisplayEntry[]
}

type Request = RouteRequest<ViewerState>

/** `GET /api/sessions`: every session's overview row, newest first (G3.1). */
async function sessionList({ res, state }: Request): Promise<void> {
  json(res, 200, { store: state.source.label, sessions: await state.overviews() })
}

/** `GET /api/sessions/:id?offset=&limit=&through=`: a page of the session's entries (G2.3). */
async function sessionEntries({ res, url, params, state }: Request): Promise<void> {
  const id = params.id!
  const feed = await state.storedFeed(id, res)
  if (feed === undefined) return
  const through = queryCount(url, 'through', feed.events.length)
  const all = through >= feed.events.length ? feed.entries : feed.entries.filter((e) => e.seq <= through)
  const offset = queryCount(url, 'offset', 0)
  const payload: SessionPayload = {
    id,
    store: state.source.label,
    lastSeq: Math.min(through, feed.events.length),
    idle: await state.idle(feed),
    total: all.length,
    entries: all.slice(offset, offset + queryCount(url, 'limit', all.length)),
  }
  json(res, 200, payload)
}

/** `GET /api/sessions/:id/events/:seq`: the raw stored event (G2.3). */
async function sessionEvent({ res, params, state }: Request): Promise<void> {
  const id = params.id!
  const feed = await state.storedFeed(id, res)
  if (feed === undefined) return
  const seq = Number(params.seq)
  const event = Number.isSafeInteger(seq) && seq >= 1 ? feed.events[seq - 1] : undefined
  if (event === undefined) return notFound(res, `no event ${params.seq} in session "${id}"`)
  json(res, 200, event)
}

/** Any other `/api` path. */
function noApi({ res, url }: Request): void {
  notFound(res, `no API ${url.pathname}`)
}

/** The built page's `index.html`, or `undefined` once `res` says it is not built (G2.3). */
function builtIndex({ res, state }: Request): string | undefined {
  const index = path.join(state.assets, 'index.html')
  if (existsSync(index)) return index
  text(res, 500, `the viewer's page is not built (no ${index}); run \`npm run build\` in the checkout`)
  return undefined
}

/** `GET /assets/*`: a file of the built page, only from its `assets` folder. */
function asset(request: Request): void {
  const { res, url, state } = request
  if (builtIndex(request) === undefined) return
  const file = path.resolve(state.assets, `.${url.pathname}`)
  if (!file.startsWith(path.resolve(state.assets, 'assets') + path.sep) || !existsSync(file)) {
    notFound(res, `no file ${url.pathname}`)
    return
  }
  const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream'
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'max-age=3600' })
  res.end(readFileSync(file))
}

/** `GET /` and `GET /session/*`: the page, which routes itself. */
function page(request: Request): void {
  const index = builtIndex(request)
  if (index === undefined) return
  request.res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': CONTENT_TYPES['.html']!,
    'cache-control': 'no-store',
  })
  request.res.end(readFileSync(index))
}

/** Any other path. */
function noPage(request: Request): void {
  if (builtIndex(request) !== undefined) notFound(request.res, `no page ${request.url.pathname}`)
}

/** Everything the viewer serves (G2.3), first match wins; it only reads, so every route is a GET. */
export const VIEWER_ROUTES: readonly Route<ViewerState>[] = [
  { method: 'GET', path: '/api/sessions', handler: sessionList },
  { method: 'GET', path: '/api/sessions/:id', handler: sessionEntries },
  { method: 'GET', path: '/api/sessions/:id/stream', handler: sessionStream },
  { method: 'GET', path: '/api/sessions/:id/events/:seq', handler: sessionEvent },
  { method: 'GET', path: '/api/*', handler: noApi },
  { method: 'GET', path: '/assets/*', handler: asset },
  { method: 'GET', path: '/', handler: page },
  { method: 'GET', path: '/session/*', handler: page },
  { method: 'GET', path: '/*', handler: noPage },
]
