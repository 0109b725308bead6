import { SECURITY_HEADERS } from './http-responses.js'
import type { RouteRequest } from './route-table.js'
import type { StreamListener, ViewerState } from './viewer-state.js'

/** How often an open stream sends a comment, so proxies and browsers keep it open. */
const HEARTBEAT_MS = 15_000

/**
 * `GET /api/sessions/:id/stream` (G4.1, G4.2): a server-sent event stream of session `id`'s new
 * display entries (`entries`, carrying the last seq they cover as the event id) and of whether it
 * is being written (`state`). It starts with the entries after `Last-Event-ID` (a reconnecting
 * EventSource) or `?after=` and ends when the client goes away.
 */
export async function sessionStream({
  req,
  res,
  url,
  params,
  state,
}: RouteRequest<ViewerState>): Promise<void> {
  const resumed = req.headers['last-event-id']
  const given = Number(typeof resumed === 'string' ? resumed : (url.searchParams.get('after') ?? '0'))
  const after = Number.isSafeInteger(given) ? given : 0
  const id = params.id!
  const feed = await state.storedFeed(id, res)
  if (feed === undefined) return
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  })
  state.streams.add(res)
  const send = (event: string, data: unknown, seq?: number) =>
    res.write(`${seq === undefined ? '' : `id: ${seq}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  let idleTimer: NodeJS.Timeout | undefined
  const busy = () => {
    send('state', { idle: false })
    clearTimeout(idleTimer)
    idleTimer = setTimeout(() => send('state', { idle: true }), state.idleMs)
  }
  const missed = feed.entries.filter((entry) => entry.seq > after)
  if (missed.length > 0) send('entries', { reset: false, entries: missed }, feed.events.length)
  if (await state.idle(feed)) send('state', { idle: true })
  else busy()
  const listener: StreamListener = (update) => {
    send('entries', update, feed.events.length)
    busy()
  }
  const stopListening = state.listen(id, listener)
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS)
  req.on('close', () => {
    clearInterval(heartbeat)
    clearTimeout(idleTimer)
    stopListening()
    state.streams.delete(res)
  })
}
