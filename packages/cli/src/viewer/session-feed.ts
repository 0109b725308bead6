import type { AnyToolDefinition } from '@tooltx/core'
import type { SessionEvent, SessionReader } from '@tooltx/session'
import { recordedLookup, recordedPresenter } from '../display/presenters.js'
import { type DisplayEntry, SessionDisplay } from '../display/session-display.js'

/** What one refresh of a feed found: new entries after the last ones, or all of them anew. */
export interface FeedUpdate {
  /** True when every entry was rebuilt (a tool's presenter became known): replace, do not append. */
  readonly reset: boolean
  readonly entries: readonly DisplayEntry[]
}

/**
 * The display of one stored session kept up to date (G2.2): it reads the session's events, turns
 * them into display entries once, and on each `refresh` adds only the entries of new events.
 * Cards come from the presenters of `definitions` that the log's results record (`recordedLookup`);
 * when a new result records one, the entries are rebuilt so earlier call cards use it too. Events
 * seen arriving get their arrival time, so their results carry a duration.
 */
export class SessionFeed {
  readonly id: string
  readonly #reader: SessionReader
  readonly #definitions: readonly AnyToolDefinition[]
  readonly #arrivals = new Map<number, number>()
  readonly #presenters = new Set<string>()
  #events: readonly SessionEvent[] = []
  #entries: DisplayEntry[] = []
  #display: SessionDisplay | undefined
  #pending: Promise<FeedUpdate | undefined> = Promise.resolve(undefined)
  /** When the last new event was seen (ms), or `undefined` before any was seen arriving. */
  lastChangeAt: number | undefined

  constructor(reader: SessionReader, id: string, definitions: readonly AnyToolDefinition[]) {
    this.#reader = reader
    this.id = id
    this.#definitions = definitions
  }

  /** The events read so far, in seq order. */
  get events(): readonly SessionEvent[] {
    return this.#events
  }

  /** The display entries of `events`, in order. */
  get entries(): readonly DisplayEntry[] {
    return this.#entries
  }

  /**
   * Reads the session again and resolves with what changed, or `undefined` when nothing did (or
   * the session is not stored). The first call stamps no arrival times: those events were
   * already there. Calls run one after another.
   */
  refresh(): Promise<FeedUpdate | undefined> {
    this.#pending = this.#pending.then(
      () => this.#read(),
      () => this.#read(),
    )
    return this.#pending
  }

  async #read(): Promise<FeedUpdate | undefined> {
    const first = this.#display === undefined
    // Listing is one small query; reading a long session is not: read only when it grew.
    const info = (await this.#reader.listSessions()).find((row) => row.id === this.id)
    if (!first && (info === undefined || info.events <= this.#events.length)) return undefined
    const events = (await this.#reader.read(this.id)) ?? []
    if (!first && events.length <= this.#events.length) return undefined
    const fresh = events.slice(this.#events.length)
    const now = Date.now()
    if (!first) {
      for (const event of fresh) this.#arrivals.set(event.seq, now)
      if (fresh.length > 0) this.lastChangeAt = now
    }
    this.#events = events
    if (this.#learnPresenters(fresh) || first) {
      this.#display = new SessionDisplay(recordedLookup(events, this.#definitions))
      this.#entries = this.#displayed(events)
      return { reset: true, entries: this.#entries }
    }
    const added = this.#displayed(fresh)
    this.#entries.push(...added)
    return { reset: false, entries: added }
  }

  #displayed(events: readonly SessionEvent[]): DisplayEntry[] {
    const entries: DisplayEntry[] = []
    for (const event of events) {
      const entry = this.#display!.add(event, this.#arrivals.get(event.seq))
      if (entry !== undefined) entries.push(entry)
    }
    return entries
  }

  /** Records the presenters `events`' results name; true when one was new. */
  #learnPresenters(events: readonly SessionEvent[]): boolean {
    let learned = false
    for (const event of events) {
      if (event.type !== 'tool/result') continue
      const presenter = recordedPresenter(event.data.meta)
      if (presenter === undefined) continue
      const key = `${event.data.name}\u0000${presenter}`
      if (!this.#presenters.has(key)) {
        this.#presenters.add(key)
        learned = true
      }
    }
    return learned
  }
}
