/** The viewer server's JSON API, as the page uses it (G2.3). */
import type { DisplayEntry } from '../../src/display/session-display.js'
import type { SessionOverview } from '../../src/viewer/session-overview.js'
import type { SessionPayload } from '../../src/viewer/viewer-routes.js'

export type { DisplayEntry, SessionOverview, SessionPayload }

/** The JSON at `path`, or an error carrying the server's message. */
async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path)
  const body = (await response.json()) as T & { error?: string }
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`)
  return body
}

/** Every session of the store, newest first. */
export function fetchSessions(): Promise<{ store: string; sessions: SessionOverview[] }> {
  return getJson('/api/sessions')
}

/** A slice of a session's display entries: from `offset`, at most `limit`, of the events up to `through`. */
export function fetchSession(
  id: string,
  slice: { offset: number; limit: number; through?: number },
): Promise<SessionPayload> {
  const through = slice.through === undefined ? '' : `&through=${slice.through}`
  return getJson(
    `/api/sessions/${encodeURIComponent(id)}?offset=${slice.offset}&limit=${slice.limit}${through}`,
  )
}

/** One raw event of a session, as stored. */
export function fetchEvent(id: string, seq: number): Promise<unknown> {
  return getJson(`/api/sessions/${encodeURIComponent(id)}/events/${seq}`)
}

/** The live stream of session `id` after `seq`: new entries (or all of them anew) and idle changes. */
export function followSession(
  id: string,
  after: number,
  on: { entries: (reset: boolean, entries: DisplayEntry[]) => void; idle: (idle: boolean) => void },
): () => void {
  const source = new EventSource(`/api/sessions/${encodeURIComponent(id)}/stream?after=${after}`)
  source.addEventListener('entries', (event) => {
    const { reset, entries } = JSON.parse((event as MessageEvent<string>).data) as {
      reset: boolean
      entries: DisplayEntry[]
    }
    on.entries(reset, entries)
  })
  source.addEventListener('state', (event) => {
    on.idle((JSON.parse((event as MessageEvent<string>).data) as { idle: boolean }).idle)
  })
  return () => source.close()
}
