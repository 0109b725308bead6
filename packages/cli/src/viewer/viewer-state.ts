import type { ServerResponse } from 'node:http'
import type { AnyToolDefinition } from '@tooltx/core'
import type { SessionInfo } from '@tooltx/session'
import { json, notFound } from './http-responses.js'
import { type FeedUpdate, SessionFeed } from './session-feed.js'
import { damagedOverview, overviewOf, type SessionOverview } from './session-overview.js'
import type { ViewerSource } from './viewer-source.js'

/** A listener of one open event stream. */
export type StreamListener = (update: FeedUpdate) => void

/** How long the viewer waits after a change notification before reading: they come in bursts. */
const BURST_MS = 40

/** What `ViewerState` serves: the store, the definitions of the cards, the idle time and the built page. */
export interface ViewerStateOptions {
  readonly source: ViewerSource
  readonly definitions: readonly AnyToolDefinition[]
  readonly idleMs: number
  /** The folder of the built page. */
  readonly assets: string
}

/**
 * What a running viewer keeps between requests: one feed per session read so far, the overview
 * rows it computed, the listeners of open event streams (told of each refresh the source's
 * change notifications trigger) and the open stream responses, ended by `close`.
 */
export class ViewerState {
  readonly source: ViewerSource
  readonly idleMs: number
  readonly assets: string
  readonly streams = new Set<ServerResponse>()
  readonly #definitions: readonly AnyToolDefinition[]
  readonly #feeds = new Map<string, SessionFeed>()
  readonly #listeners = new Map<string, Set<StreamListener>>()
  readonly #overviews = new Map<string, { events: number; overview: SessionOverview }>()
  readonly #stopWatching: () => void
  #timer: NodeJS.Timeout | undefined

  constructor(options: ViewerStateOptions) {
    this.source = options.source
    this.idleMs = options.idleMs
    this.assets = options.assets
    this.#definitions = options.definitions
    this.#stopWatching = options.source.watch(() => this.#changed())
  }

  /** The feed of session `id`, created (unread) on first use. */
  feedOf(id: string): SessionFeed {
    let feed = this.#feeds.get(id)
    if (feed === undefined) {
      feed = new SessionFeed(this.source.reader, id, this.#definitions)
      this.#feeds.set(id, feed)
    }
    return feed
  }

  /** Every stored session's overview row, newest first (G3.1); a damaged one as such (G2.5). */
  async overviews(): Promise<SessionOverview[]> {
    const infos = await this.source.reader.listSessions()
    const now = Date.now()
    const rows: SessionOverview[] = []
    for (const info of infos) rows.push(await this.#overviewOf(info, now))
    return rows.sort((a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id))
  }

  /** Whether `feed`'s session has gone `idleMs` without a new event (G4.2). */
  async idle(feed: SessionFeed): Promise<boolean> {
    if (feed.lastChangeAt !== undefined) return Date.now() - feed.lastChangeAt >= this.idleMs
    const info = (await this.source.reader.listSessions()).find((row) => row.id === feed.id)
    return info === undefined || Date.now() - Date.parse(info.updated) >= this.idleMs
  }

  /**
   * The feed of stored session `id`, read at least once; `undefined` once `res` says why there
   * is none: 404 when it is not stored, 422 with the damage when its log cannot be read (G2.5),
   * so one damaged session fails only its own requests.
   */
  async storedFeed(id: string, res: ServerResponse): Promise<SessionFeed | undefined> {
    const known = (await this.source.reader.listSessions()).some((row) => row.id === id)
    if (!known) return void notFound(res, `no session "${id}" in ${this.source.label}`)
    const feed = this.feedOf(id)
    try {
      await feed.refresh()
    } catch (error) {
      return void json(res, 422, { error: (error as Error).message, damaged: true })
    }
    return feed
  }

  /** Tells `listener` of each update of session `id` until the returned function is called. */
  listen(id: string, listener: StreamListener): () => void {
    const set = this.#listeners.get(id) ?? new Set<StreamListener>()
    this.#listeners.set(id, set)
    set.add(listener)
    return () => set.delete(listener)
  }

  /** Stops watching the source and ends every open stream. */
  close(): void {
    this.#stopWatching()
    clearTimeout(this.#timer)
    for (const res of this.streams) res.end()
  }

  // Notifications come in bursts (SQLite touches the WAL and its index): read once per burst.
  #changed(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined
      for (const [id, set] of this.#listeners) {
        if (set.size === 0) continue
        this.feedOf(id)
          .refresh()
          .then(
            (update) => {
              if (update !== undefined) for (const listener of set) listener(update)
            },
            () => {},
          )
      }
    }, BURST_MS)
  }

  async #overviewOf(info: SessionInfo, now: number): Promise<SessionOverview> {
    const cached = this.#overviews.get(info.id)
    // `live` and `waiting for approval` change with time alone (the idle time, an ask's expiry).
    const timed = cached?.overview.status === 'live' || cached?.overview.status === 'waiting for approval'
    if (cached !== undefined && cached.events === info.events && !timed) {
      return { ...cached.overview, updated: info.updated }
    }
    try {
      // Through the session's feed, so the page opened from this list does not read it again.
      const feed = this.feedOf(info.id)
      await feed.refresh()
      const overview = overviewOf(info, feed.events, { now, idleMs: this.idleMs })
      this.#overviews.set(info.id, { events: info.events, overview })
      return overview
    } catch (error) {
      return damagedOverview(info, (error as Error).message)
    }
  }
}
