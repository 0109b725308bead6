/**
 * The contract every database event store keeps (Y1.34 for PostgreSQL, L11.10 for SQLite), run
 * against each: a real `serveHttp` on 127.0.0.1 and the official client resuming a dropped call
 * stream from the database, and two store objects on one database standing for two server
 * instances (or one restarted). Not a test file itself: each store's file calls it.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { closeCallStream, mcpServer, serveHttp } from '@tooltx/mcp'
import type { DatabaseEventStore } from '@tooltx/session'
import { afterEach, expect, it } from 'vitest'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

/** One database event store under test. */
export interface EventStoreSubject<Place> {
  /** The SPEC id each test title starts with. */
  readonly id: string
  /** A fresh, empty database. */
  fresh(): Promise<Place>
  /** A store object on `place`. */
  open(place: Place, maxEventsPerStream?: number): DatabaseEventStore
  /** How many events of streams starting with `prefix` the database holds. */
  storedEvents(place: Place, prefix: string): Promise<number>
}

/** What a replay after `eventId` sends, as `[id, message]` pairs. */
async function replayed(events: DatabaseEventStore, eventId: string) {
  const sent: [string, unknown][] = []
  const stream = await events.replayEventsAfter(eventId, {
    send: async (id, message) => {
      sent.push([id, message])
    },
  })
  return { stream, sent }
}

const message = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: n } })

/** Registers the contract's tests for `subject` in the current `describe`. */
export function eventStoreConformance<Place>(subject: EventStoreSubject<Place>): void {
  const { id } = subject
  afterEach(cleanupAll)
  const store = (place: Place, maxEventsPerStream?: number) => {
    const events = subject.open(place, maxEventsPerStream)
    cleanups.push(() => events.close())
    return events
  }

  it(`${id} a dropped call stream resumes from the database and the call result arrives`, async () => {
    const place = await subject.fresh()
    const runtime = createToolRuntime()
    runtime.register(
      defineTool({
        name: 'long',
        description: 'Report, release the stream, report again, finish.',
        parameters: {},
        async execute(_args, run) {
          run.progress({ progress: 1, total: 2 })
          closeCallStream(run)
          await new Promise((resolve) => setTimeout(resolve, 150))
          run.progress({ progress: 2, total: 2 })
          return 'done'
        },
      }),
    )
    const server = mcpServer(runtime, { name: 'db-resume', version: '1.0.0' })
    const endpoint = await serveHttp(server, { eventStore: store(place), retryInterval: 50 })
    cleanups.push(async () => {
      await endpoint.close()
      await server.close()
    })
    const client = new Client({ name: 'resumer', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(endpoint.url))
    cleanups.push(() => client.close())
    const progress: number[] = []
    const result = await client.callTool(
      { name: 'long', arguments: {} },
      { onprogress: (update) => progress.push(update.progress) },
    )
    expect((result.content as { text: string }[])[0]!.text).toBe('"done"')
    expect(progress).toEqual([1, 2])
    const session = (client.transport as StreamableHTTPClientTransport).sessionId
    expect(await subject.storedEvents(place, `${session}/`)).toBeGreaterThan(0)
  })

  it(`${id} another store on the database replays what one stored, in order; a stream keeps its latest events`, async () => {
    const place = await subject.fresh()
    const first = store(place, 3)
    const second = store(place, 3)
    const ids: string[] = []
    for (let n = 1; n <= 5; n++) ids.push(await first.storeEvent('s/a', message(n)))
    await first.storeEvent('s/b', message(99))
    expect(ids.every((eventId) => eventId.startsWith('s/a#'))).toBe(true)
    expect(await second.getStreamIdForEventId(ids[2]!)).toBe('s/a')
    expect(await replayed(second, ids[2]!)).toEqual({
      stream: 's/a',
      sent: [
        [ids[3], message(4)],
        [ids[4], message(5)],
      ],
    })
    // The stream kept 3 of its 5 events: after the first, a replay would have a gap.
    expect(await second.getStreamIdForEventId(ids[0]!)).toBeUndefined()
    await expect(replayed(second, ids[0]!)).rejects.toThrow(`event id ${ids[0]} is not in the event store`)
    await expect(replayed(second, 's/a#999999')).rejects.toThrow('is not in the event store')
    await expect(replayed(second, 'not an id')).rejects.toThrow('is not in the event store')
    // An id names its stream: the same number under another stream is not that event.
    await expect(replayed(second, ids[4]!.replace('s/a#', 's/b#'))).rejects.toThrow(
      'is not in the event store',
    )
  })
}
