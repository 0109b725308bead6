/**
 * What a client resuming a stream of a session this endpoint no longer holds gets (Y1.36): the
 * server that held it was restarted, or the session was closed, but a durable event store still
 * has what the stream sent after the client's `Last-Event-ID`.
 */
import type { EventStore } from '@modelcontextprotocol/server'
import { sessionEventStore } from './session-events.js'

/**
 * The answer to `request` for the session `sessionId`, which no transport of this endpoint holds:
 * for a GET whose `Last-Event-ID` `store` knows as an event of that session, an SSE response with
 * every message of that stream after it, each with its event id, which then ends (the session's
 * calls ended with it, so nothing follows live). `undefined` otherwise (not a GET, no
 * `Last-Event-ID`, a store that cannot tell whose an id is, an id of another session or unknown,
 * a replay that fails): the caller answers 404 and the client starts a new session.
 */
export async function endedSessionReplay(
  request: Request,
  store: EventStore,
  sessionId: string,
): Promise<Response | undefined> {
  const lastEventId = request.headers.get('last-event-id')
  if (request.method !== 'GET' || lastEventId === null || store.getStreamIdForEventId === undefined)
    return undefined
  const own = sessionEventStore(store, sessionId)
  const events: string[] = []
  try {
    if ((await own.getStreamIdForEventId!(lastEventId)) === undefined) return undefined
    await own.replayEventsAfter(lastEventId, {
      send: async (id, message) => {
        events.push(`event: message\nid: ${id}\ndata: ${JSON.stringify(message)}\n\n`)
      },
    })
  } catch {
    return undefined
  }
  return new Response(events.join(''), {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  })
}
