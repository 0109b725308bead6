/**
 * One session's view of a shared event store (Y1.26): every MCP session numbers its standalone
 * stream the same way, so the store sees each stream under its session's name, and a session
 * can never replay another session's events.
 */
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server'

/**
 * `store` as seen by session `sessionId`: streams are stored as `<sessionId>/<stream>` and
 * reported back without the prefix; an event id of another session (or unknown to the store) is
 * refused before anything is sent. A store without `getStreamIdForEventId` has its replay held
 * back until the stream it names is known to be this session's.
 */
export function sessionEventStore(store: EventStore, sessionId: string): EventStore {
  const prefix = `${sessionId}/`
  const own = (stream: StreamId | undefined): StreamId | undefined =>
    stream?.startsWith(prefix) ? stream.slice(prefix.length) : undefined
  const foreign = (eventId: EventId) => new Error(`event id ${eventId} is not of this session`)
  const storeEvent = (stream: StreamId, message: JSONRPCMessage) => store.storeEvent(prefix + stream, message)

  if (store.getStreamIdForEventId !== undefined) {
    const streamOf = store.getStreamIdForEventId.bind(store)
    return {
      storeEvent,
      getStreamIdForEventId: async (eventId) => own(await streamOf(eventId)),
      async replayEventsAfter(lastEventId, replay) {
        if (own(await streamOf(lastEventId)) === undefined) throw foreign(lastEventId)
        const stream = own(await store.replayEventsAfter(lastEventId, replay))
        if (stream === undefined) throw foreign(lastEventId)
        return stream
      },
    }
  }
  return {
    storeEvent,
    async replayEventsAfter(lastEventId, { send }) {
      const held: [EventId, JSONRPCMessage][] = []
      const stream = own(
        await store.replayEventsAfter(lastEventId, {
          send: async (id, message) => {
            held.push([id, message])
          },
        }),
      )
      if (stream === undefined) throw foreign(lastEventId)
      for (const [id, message] of held) await send(id, message)
      return stream
    },
  }
}
