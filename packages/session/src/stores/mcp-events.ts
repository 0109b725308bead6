/**
 * What the database event stores of resumable MCP HTTP streams share (Y1.34, L11.10): the SDK's
 * `EventStore` shape with `close`, the table, the per-stream bound, and their event ids
 * `<stream>#<n>`, `n` the row's id, which never comes back after its row is deleted.
 */
import { definitionError } from '@tooltx/core/internal'

/** The table the events live in. */
export const MCP_EVENTS_TABLE = 'tooltx_mcp_events'

/** Events one stream keeps by default before its oldest are deleted. */
export const DEFAULT_DB_EVENTS_PER_STREAM = 1_000

/** The SDK's `EventStore` shape (`@modelcontextprotocol/server`), and `close`. */
export interface DatabaseEventStore {
  storeEvent(streamId: string, message: unknown): Promise<string>
  getStreamIdForEventId(eventId: string): Promise<string | undefined>
  replayEventsAfter(
    lastEventId: string,
    handlers: { send: (eventId: string, message: never) => Promise<void> },
  ): Promise<string>
  /** Ends the connection the store opened (not one it was given). */
  close(): Promise<void>
}

/** `<stream>#<id>` read back; `undefined` for an id no database event store made. */
export function parseEventId(eventId: string): { stream: string; id: string } | undefined {
  const at = eventId.lastIndexOf('#')
  const id = eventId.slice(at + 1)
  return at > 0 && /^[1-9]\d{0,18}$/.test(id) ? { stream: eventId.slice(0, at), id } : undefined
}

/** The error a replay after an id the table does not hold rejects with, rather than deliver with a gap. */
export const unknownEventId = (eventId: string): Error =>
  new Error(`event id ${eventId} is not in the event store`)

/**
 * The `maxEventsPerStream` option of store `what`, default {@link DEFAULT_DB_EVENTS_PER_STREAM};
 * throws `INVALID_DEFINITION` for a bound that is not a positive integer.
 */
export function eventsPerStream(what: string, options: { maxEventsPerStream?: number }): number {
  const keep = options.maxEventsPerStream ?? DEFAULT_DB_EVENTS_PER_STREAM
  if (!Number.isInteger(keep) || keep < 1)
    throw definitionError(`${what}: maxEventsPerStream must be a positive integer`)
  return keep
}
