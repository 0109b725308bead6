/**
 * The default event store of `serveHttp` (Y1.25, Y1.27): the SDK's `EventStore` interface over
 * memory, bounded per stream and in total, the oldest event evicted first.
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server'
import { ToolError } from '@tooltx/core'

/** Events one stream keeps by default before its oldest is evicted. */
export const DEFAULT_MAX_EVENTS_PER_STREAM = 1_000

/** Events the whole store keeps by default before the oldest (of any stream) is evicted. */
export const DEFAULT_MAX_EVENTS = 10_000

/** Options of {@link memoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; default {@link DEFAULT_MAX_EVENTS_PER_STREAM}. */
  maxEventsPerStream?: number
  /** Events kept in total; default {@link DEFAULT_MAX_EVENTS}. */
  maxEvents?: number
}

/** An in-memory event store; `size` is the number of events it holds now. */
export interface MemoryEventStore extends EventStore {
  readonly size: number
}

interface StoredEvent {
  readonly stream: StreamId
  readonly message: JSONRPCMessage
}

function bound(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1)
    throw new ToolError('INVALID_DEFINITION', `memoryEventStore: ${name} must be a positive integer`, {
      name: 'DefinitionError',
    })
  return value
}

/**
 * An event store in memory (Y1.27). Event ids are `<stream>#<n>` with `n` counting up across the
 * store, so an id names its stream. It keeps at most `maxEventsPerStream` events of a stream and
 * `maxEvents` in all (counting events, not bytes), evicting the oldest first; so the events after
 * a retained one are always retained, and a replay after an evicted id is refused (it throws, and
 * `getStreamIdForEventId` answers `undefined`) rather than delivered with a gap. A replay skips
 * priming events (stored only to have an id) and never sends another stream's events.
 */
export function memoryEventStore(options: MemoryEventStoreOptions = {}): MemoryEventStore {
  const perStream = bound(options.maxEventsPerStream, DEFAULT_MAX_EVENTS_PER_STREAM, 'maxEventsPerStream')
  const total = bound(options.maxEvents, DEFAULT_MAX_EVENTS, 'maxEvents')
  // Insertion order is age: the first key is the oldest event of the store.
  const events = new Map<EventId, StoredEvent>()
  const streams = new Map<StreamId, EventId[]>()
  let counter = 0

  function evictOldestOf(stream: StreamId): void {
    const ids = streams.get(stream)
    const oldest = ids?.shift()
    if (oldest !== undefined) events.delete(oldest)
    if (ids?.length === 0) streams.delete(stream)
  }

  return {
    get size() {
      return events.size
    },
    async storeEvent(stream, message) {
      counter += 1
      const id = `${stream}#${counter}`
      events.set(id, { stream, message })
      const ids = streams.get(stream) ?? []
      ids.push(id)
      streams.set(stream, ids)
      if (ids.length > perStream) evictOldestOf(stream)
      // The store's oldest event is the oldest of its own stream too.
      if (events.size > total) evictOldestOf(events.values().next().value!.stream)
      return id
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.stream
    },
    async replayEventsAfter(lastEventId, { send }) {
      const stream = events.get(lastEventId)?.stream
      if (stream === undefined) throw new Error(`unknown or evicted event id: ${lastEventId}`)
      let last = lastEventId
      // Re-read the stream after every send: events stored meanwhile are replayed too, and
      // eviction only ever removes from the front.
      for (;;) {
        const ids = streams.get(stream) ?? []
        const next = ids[ids.indexOf(last) + 1]
        if (next === undefined) break
        last = next
        const message = events.get(next)?.message
        if (message !== undefined && 'jsonrpc' in message) await send(next, message)
      }
      return stream
    },
  }
}
