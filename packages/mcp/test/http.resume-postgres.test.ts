/**
 * Resumable HTTP with its events in the session store's PostgreSQL database (Y1.34): a real
 * PostgreSQL, a real `serveHttp` on 127.0.0.1 and the official client, and two store objects on
 * one database standing for two server instances.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { closeCallStream, mcpServer, serveHttp } from '@tooltx/mcp'
import { postgresEventStore } from '@tooltx/session'
import { afterEach, expect, it } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** A store on `url`, closed after the test. */
function store(url: string, maxEventsPerStream?: number) {
  const events = postgresEventStore(url, maxEventsPerStream === undefined ? {} : { maxEventsPerStream })
  cleanups.push(() => events.close())
  return events
}

/** What a replay after `eventId` sends, as `[id, message]` pairs. */
async function replayed(events: ReturnType<typeof store>, eventId: string) {
  const sent: [string, unknown][] = []
  const stream = await events.replayEventsAfter(eventId, {
    send: async (id, message) => {
      sent.push([id, message])
    },
  })
  return { stream, sent }
}

const message = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: n } })

describePostgres('Y1.34 the event store in PostgreSQL', () => {
  it('Y1.34 a dropped call stream resumes from the database and the call result arrives', async () => {
    const url = await freshPostgres()
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
    const server = mcpServer(runtime, { name: 'pg-resume', version: '1.0.0' })
    const endpoint = await serveHttp(server, { eventStore: store(url), retryInterval: 50 })
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
    expect(await storedEvents(url, `${session}/`)).toBeGreaterThan(0)
  })

  it('Y1.34 another store on the database replays what one stored, in order; a stream keeps its latest events', async () => {
    const url = await freshPostgres()
    const first = store(url, 3)
    const second = store(url, 3)
    const ids: string[] = []
    for (let n = 1; n <= 5; n++) ids.push(await first.storeEvent('s/a', message(n)))
    await first.storeEvent('s/b', message(99))
    expect(ids.every((id) => id.startsWith('s/a#'))).toBe(true)
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
  })

  it('Y1.34 a bad bound or connection is refused when the store is made', () => {
    expect(() => postgresEventStore('postgres://x@127.0.0.1:1/db', { maxEventsPerStream: 0 })).toThrow(
      'postgresEventStore: maxEventsPerStream must be a positive integer',
    )
    expect(() => postgresEventStore(42 as never)).toThrow(
      'postgresEventStore needs a connection string (postgres://…) or a pg.Pool',
    )
  })
})

/** How many events of streams starting with `prefix` the database holds. */
async function storedEvents(url: string, prefix: string): Promise<number> {
  const pg = (await import('pg')).default
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const found = await client.query(
      'SELECT count(*)::int AS n FROM tooltx_mcp_events WHERE stream LIKE $1',
      [`${prefix}%`],
    )
    return (found.rows[0] as { n: number }).n
  } finally {
    await client.end()
  }
}
