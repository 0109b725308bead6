import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AnyToolDefinition } from '@tooltx/core'
import type { SessionInfo } from '@tooltx/session'
import type { DisplayEntry } from '../display/session-display.js'
import { type FeedUpdate, SessionFeed } from './session-feed.js'
import { damagedOverview, overviewOf, type SessionOverview } from './session-overview.js'
import type { ViewSource } from './viewer-source.js'

/** The built page: `dist/web` of the CLI package, from `src/view` and `dist/view` alike. */
export const VIEW_ASSETS = fileURLToPath(new URL('../../dist/web/', import.meta.url))

/** How long without a new event before a followed session counts as idle, by default (G4.2). */
export const DEFAULT_IDLE_MS = 10_000

/** Options of `startViewServer`. */
export interface ViewServerOptions {
  readonly source: ViewSource
  /** The definitions whose presenters build the cards (those the log's results record). */
  readonly definitions: readonly AnyToolDefinition[]
  /** Loopback by default (G2.3). */
  readonly host?: string
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly idleMs?: number
  /** Where the built page is (default `VIEW_ASSETS`). */
  readonly assets?: string
}

/** A running viewer. */
export interface ViewServer {
  /** `http://host:port`, without a trailing slash. */
  readonly url: string
  /** Ends every open stream and stops listening. */
  close(): Promise<void>
}

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

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

// The page loads nothing from elsewhere and talks to nothing but this server (G5.1).
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])

/** A listener of one open event stream. */
type StreamListener = (update: FeedUpdate) => void

/**
 * Serves the viewer (G2.3): the built page, the sessions list, each session's display entries,
 * raw events, and a server-sent event stream per session fed by the source's change
 * notifications. Requests whose `Host` is not this server's loopback name are refused (403), so
 * another web site cannot read sessions through DNS rebinding.
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const { source, definitions } = options
  const host = options.host ?? '127.0.0.1'
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS
  const assets = options.assets ?? VIEW_ASSETS
  const feeds = new Map<string, SessionFeed>()
  const listeners = new Map<string, Set<StreamListener>>()
  const overviews = new Map<string, { events: number; overview: SessionOverview }>()
  const streams = new Set<ServerResponse>()

  const feedOf = (id: string): SessionFeed => {
    let feed = feeds.get(id)
    if (feed === undefined) {
      feed = new SessionFeed(source.reader, id, definitions)
      feeds.set(id, feed)
    }
    return feed
  }

  let timer: NodeJS.Timeout | undefined
  // Notifications come in bursts (SQLite touches the WAL and its index): read once per burst.
  const onChange = () => {
    timer ??= setTimeout(() => {
      timer = undefined
      for (const [id, set] of listeners) {
        if (set.size === 0) continue
        feedOf(id)
          .refresh()
          .then(
            (update) => {
              if (update !== undefined) for (const listener of set) listener(update)
            },
            () => {},
          )
      }
    }, 40)
  }
  const stopWatching = source.watch(onChange)

  const overviewList = async (): Promise<SessionOverview[]> => {
    const infos = await source.reader.listSessions()
    const now = Date.now()
    const rows: SessionOverview[] = []
    for (const info of infos) rows.push(await overviewOfInfo(info, now))
    return rows.sort((a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id))
  }

  const overviewOfInfo = async (info: SessionInfo, now: number): Promise<SessionOverview> => {
    const cached = overviews.get(info.id)
    if (cached !== undefined && cached.events === info.events && cached.overview.status !== 'live') {
      return { ...cached.overview, updated: info.updated }
    }
    try {
      // Through the session's feed, so the page opened from this list does not read it again.
      const feed = feedOf(info.id)
      await feed.refresh()
      const overview = overviewOf(info, feed.events, { now, idleMs })
      overviews.set(info.id, { events: info.events, overview })
      return overview
    } catch (error) {
      return damagedOverview(info, (error as Error).message)
    }
  }

  const idleOf = async (feed: SessionFeed): Promise<boolean> => {
    if (feed.lastChangeAt !== undefined) return Date.now() - feed.lastChangeAt >= idleMs
    const info = (await source.reader.listSessions()).find((row) => row.id === feed.id)
    return info === undefined || Date.now() - Date.parse(info.updated) >= idleMs
  }

  /**
   * The feed of stored session `id`, read at least once; `undefined` once the response says why
   * there is none: 404 when it is not stored, 422 with the damage when its log cannot be read
   * (G2.5), so one damaged session fails only its own requests.
   */
  const storedFeed = async (id: string, res: ServerResponse): Promise<SessionFeed | undefined> => {
    const known = (await source.reader.listSessions()).some((row) => row.id === id)
    if (!known) return void notFound(res, `no session "${id}" in ${source.label}`)
    const feed = feedOf(id)
    try {
      await feed.refresh()
    } catch (error) {
      return void json(res, 422, { error: (error as Error).message, damaged: true })
    }
    return feed
  }

  const stream = async (id: string, after: number, req: IncomingMessage, res: ServerResponse) => {
    const feed = await storedFeed(id, res)
    if (feed === undefined) return
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    })
    streams.add(res)
    // Each batch carries the last seq it covers as its id, so a reconnecting EventSource
    // (Last-Event-ID) resumes after it instead of receiving entries twice.
    const send = (event: string, data: unknown, id?: number) =>
      res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    let idleTimer: NodeJS.Timeout | undefined
    const busy = () => {
      send('state', { idle: false })
      clearTimeout(idleTimer)
      idleTimer = setTimeout(() => send('state', { idle: true }), idleMs)
    }
    const missed = feed.entries.filter((entry) => entry.seq > after)
    if (missed.length > 0) send('entries', { reset: false, entries: missed }, feed.events.length)
    if (await idleOf(feed)) send('state', { idle: true })
    else busy()
    const listener: StreamListener = (update) => {
      send('entries', update, feed.events.length)
      busy()
    }
    const set = listeners.get(id) ?? new Set<StreamListener>()
    listeners.set(id, set)
    set.add(listener)
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000)
    req.on('close', () => {
      clearInterval(heartbeat)
      clearTimeout(idleTimer)
      set.delete(listener)
      streams.delete(res)
    })
  }

  const api = async (parts: string[], url: URL, req: IncomingMessage, res: ServerResponse) => {
    if (parts.length === 1 && parts[0] === 'sessions') {
      return json(res, 200, { store: source.label, sessions: await overviewList() })
    }
    if (parts[0] !== 'sessions' || parts.length < 2) return notFound(res, `no API ${url.pathname}`)
    const id = parts[1]!
    if (parts.length === 2) {
      const feed = await storedFeed(id, res)
      if (feed === undefined) return
      const through = count(url, 'through', feed.events.length)
      const all = through >= feed.events.length ? feed.entries : feed.entries.filter((e) => e.seq <= through)
      const offset = count(url, 'offset', 0)
      const payload: SessionPayload = {
        id,
        store: source.label,
        lastSeq: Math.min(through, feed.events.length),
        idle: await idleOf(feed),
        total: all.length,
        entries: all.slice(offset, offset + count(url, 'limit', all.length)),
      }
      return json(res, 200, payload)
    }
    if (parts.length === 3 && parts[2] === 'stream') {
      const resumed = req.headers['last-event-id']
      const after = Number(typeof resumed === 'string' ? resumed : (url.searchParams.get('after') ?? '0'))
      return stream(id, Number.isSafeInteger(after) ? after : 0, req, res)
    }
    if (parts.length === 4 && parts[2] === 'events') {
      const feed = await storedFeed(id, res)
      if (feed === undefined) return
      const seq = Number(parts[3])
      const event = Number.isSafeInteger(seq) && seq >= 1 ? feed.events[seq - 1] : undefined
      if (event === undefined) return notFound(res, `no event ${parts[3]} in session "${id}"`)
      return json(res, 200, event)
    }
    return notFound(res, `no API ${url.pathname}`)
  }

  const page = (pathname: string, res: ServerResponse) => {
    const index = path.join(assets, 'index.html')
    if (!existsSync(index)) {
      return text(
        res,
        500,
        `the viewer's page is not built (no ${index}); run \`npm run build\` in the checkout`,
      )
    }
    if (pathname.startsWith('/assets/')) {
      const file = path.resolve(assets, `.${pathname}`)
      if (!file.startsWith(path.resolve(assets, 'assets') + path.sep) || !existsSync(file)) {
        return notFound(res, `no file ${pathname}`)
      }
      const type = TYPES[path.extname(file)] ?? 'application/octet-stream'
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': 'max-age=3600' })
      return res.end(readFileSync(file))
    }
    if (pathname === '/' || pathname.startsWith('/session/')) {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': TYPES['.html']!,
        'cache-control': 'no-store',
      })
      return res.end(readFileSync(index))
    }
    return notFound(res, `no page ${pathname}`)
  }

  const server = createServer((req, res) => {
    const port = (server.address() as AddressInfo).port
    const hostHeader = req.headers.host ?? ''
    const name = hostHeader.replace(/:\d+$/, '')
    if (hostHeader !== `${name}:${port}` || !(LOOPBACK_NAMES.has(name) || name === host)) {
      return text(res, 403, `this viewer answers only to its own address (Host ${hostHeader} refused)`)
    }
    if (req.method !== 'GET') return text(res, 405, 'the viewer only reads: use GET')
    const url = new URL(req.url ?? '/', `http://${hostHeader}`)
    let parts: string[]
    try {
      parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
    } catch {
      return notFound(res, `no page ${url.pathname}`)
    }
    const handled = parts[0] === 'api' ? api(parts.slice(1), url, req, res) : page(url.pathname, res)
    Promise.resolve(handled).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (error as Error).message })
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${port}`,
    async close() {
      stopWatching()
      clearTimeout(timer)
      for (const res of streams) res.end()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The whole number query parameter `name` of `url`, or `fallback` when it is absent or not one. */
function count(url: URL, name: string, fallback: number): number {
  const value = Number(url.searchParams.get(name) ?? Number.NaN)
  return Number.isSafeInteger(value) && value >= 0 ? value : fallback
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json',
    'cache-control': 'no-store',
  })
  res.end(JSON.stringify(body))
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
  res.end(`${body}\n`)
}

function notFound(res: ServerResponse, message: string): void {
  json(res, 404, { error: message })
}
