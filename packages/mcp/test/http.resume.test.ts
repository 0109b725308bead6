/**
 * Resumable Streamable HTTP (Y1.25–Y1.27): a real `serveHttp` on 127.0.0.1, a raw HTTP client
 * that drops a call's SSE stream and resumes it with `Last-Event-ID`, the official client doing
 * the same on its own, and the bounds of the default in-memory event store.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool } from '@tooltx/core'
import {
  DEFAULT_MAX_EVENTS,
  DEFAULT_MAX_EVENTS_PER_STREAM,
  DEFAULT_RETRY_INTERVAL_MS,
  mcpServer,
  memoryEventStore,
  type ServeHttpOptions,
  serveHttp,
} from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, progressSteps } from './mcp.fixtures.js'
import { messageOf, rawSession, readAll, type SseEvent, send, sseEvents } from './sse-client.js'

afterEach(cleanupAll)

const STEPS = 6
const STEP_MS = 120

/**
 * A served view with `count`, which reports `to` progress steps, `STEP_MS` apart; `close` stops
 * it as a process exit would (also done after the test).
 */
async function served(options: ServeHttpOptions = {}): Promise<{ url: URL; close: () => Promise<void> }> {
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'count',
      description: 'Count up slowly, reporting progress.',
      parameters: { to: { type: 'integer', required: true } },
      async execute({ to }, run) {
        for (let i = 1; i <= to; i++) {
          run.progress({ progress: i, total: to, message: `at ${i}` })
          await new Promise((resolve) => setTimeout(resolve, STEP_MS))
        }
        return to
      },
    }),
  )
  const server = mcpServer(runtime, { name: 'resumable', version: '1.0.0' })
  const http = await serveHttp(server, options)
  let closed: Promise<void> | undefined
  const close = () => {
    closed ??= http.close().then(() => server.close())
    return closed
  }
  cleanups.push(close)
  return { url: http.url, close }
}

/** The URL of a fresh `served` view. */
const endpoint = async (options: ServeHttpOptions = {}): Promise<URL> => (await served(options)).url

const countCall = (id: number, token: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'count', arguments: { to: STEPS }, _meta: { progressToken: token } },
})

describe('Y1.25 a dropped SSE stream resumes with Last-Event-ID', () => {
  it('Y1.25, Y1.26: a raw client drops a call mid-stream and gets the rest exactly once, and nothing of another stream', async () => {
    const url = await endpoint()
    const headers = await rawSession(url)
    // A second call on its own stream, whose events must never reach the first one's replay.
    const other = await send(url, 'POST', headers, countCall(2, 'other'))
    const otherEvents = readAll(other.res)
    const first = await send(url, 'POST', headers, countCall(1, 'mine'))
    expect(first.res.headers['content-type']).toContain('text/event-stream')
    const before: SseEvent[] = []
    for await (const event of sseEvents(first.res)) {
      before.push(event)
      if (before.length === 3) break
    }
    first.drop()
    const [priming, ...seen] = before
    expect(priming).toEqual({ id: expect.any(String), retry: DEFAULT_RETRY_INTERVAL_MS, data: '' })
    expect(priming!.id).toContain(`${headers['mcp-session-id']}/`)
    // Progress goes on while nobody listens.
    await new Promise((resolve) => setTimeout(resolve, 2 * STEP_MS))
    const resumed = await send(url, 'GET', { ...headers, 'last-event-id': seen.at(-1)!.id! })
    expect(resumed.res.statusCode).toBe(200)
    const after = await readAll(resumed.res)
    const messages = [...seen, ...after].map(messageOf)
    const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params)
    expect(progress.map((p) => p.progressToken)).toEqual(Array(STEPS).fill('mine'))
    expect(progress.map(({ progressToken, ...rest }) => rest)).toEqual(progressSteps(STEPS, 'at'))
    const results = messages.filter((m) => 'result' in m)
    expect(results.map((m) => [m.id, m.result.structuredContent ?? m.result.content[0].text])).toEqual([
      [1, expect.anything()],
    ])
    expect(messages).toHaveLength(STEPS + 1)
    const ids = [...seen, ...after].map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length)
    // The other stream was never touched: all its progress and its result, on its own.
    const otherMessages = (await otherEvents).map(messageOf).filter((m) => m !== undefined)
    expect(otherMessages.filter((m) => m.method !== undefined).map((m) => m.params.progressToken)).toEqual(
      Array(STEPS).fill('other'),
    )
    expect(otherMessages.filter((m) => 'result' in m).map((m) => m.id)).toEqual([2])
  })

  it('Y1.25: reconnecting after the call ended replays the rest and the result, then the stream ends', async () => {
    const url = await endpoint({ retryInterval: 50 })
    const headers = await rawSession(url)
    const call = await send(url, 'POST', headers, countCall(1, 'late'))
    const before: SseEvent[] = []
    for await (const event of sseEvents(call.res)) {
      before.push(event)
      if (before.length === 2) break
    }
    call.drop()
    expect(before[0]!.retry).toBe(50)
    await new Promise((resolve) => setTimeout(resolve, (STEPS + 2) * STEP_MS))
    const resumed = await send(url, 'GET', { ...headers, 'last-event-id': before[1]!.id! })
    const after = (await readAll(resumed.res)).map(messageOf)
    expect(after.map((m) => m.params?.progress ?? `result ${m.id}`)).toEqual([2, 3, 4, 5, 6, 'result 1'])
  })

  it('Y1.25: with eventStore false, a stream has no priming event and no event ids', async () => {
    const url = await endpoint({ eventStore: false })
    const headers = await rawSession(url)
    const call = await send(url, 'POST', headers, countCall(1, 'plain'))
    const events = await readAll(call.res)
    expect(events.map((e) => e.id)).toEqual(Array(STEPS + 1).fill(undefined))
    expect(events.every((e) => e.data !== '')).toBe(true)
  })
})

describe('Y1.36 an endpoint that does not hold a session still replays its stored events', () => {
  it('Y1.36 after a restart on the same store, a GET with the old session and Last-Event-ID gets what it missed, then the stream ends', async () => {
    const store = memoryEventStore()
    const first = await served({ eventStore: store, retryInterval: 50 })
    const headers = await rawSession(first.url)
    const call = await send(first.url, 'POST', headers, countCall(1, 'gone'))
    const before: SseEvent[] = []
    for await (const event of sseEvents(call.res)) {
      before.push(event)
      if (before.length === 2) break
    }
    call.drop()
    // The call goes on while its stream is dropped; its result is stored before the "restart".
    const resultStored = async () => {
      const stored: object[] = []
      await store.replayEventsAfter(before[1]!.id!, {
        send: async (_id, message) => {
          stored.push(message)
        },
      })
      return stored.some((message) => 'result' in message)
    }
    while (!(await resultStored())) await new Promise((resolve) => setTimeout(resolve, STEP_MS))
    await first.close()
    const second = await served({ eventStore: store, retryInterval: 50 })
    const resumed = await send(second.url, 'GET', { ...headers, 'last-event-id': before[1]!.id! })
    expect(resumed.res.statusCode).toBe(200)
    const after = await readAll(resumed.res)
    expect(after.map(messageOf).map((m) => m.params?.progress ?? `result ${m.id}`)).toEqual([
      2,
      3,
      4,
      5,
      6,
      'result 1',
    ])
    expect(after.every((e) => e.id?.startsWith(`${headers['mcp-session-id']}/`))).toBe(true)
    // Nothing else of the ended session is served: it starts a new one.
    const post = await send(second.url, 'POST', headers, countCall(2, 'again'))
    post.res.resume()
    expect(post.res.statusCode).toBe(404)
    const unknown = await send(second.url, 'GET', { ...headers, 'last-event-id': 'other/0#1' })
    unknown.res.resume()
    expect(unknown.res.statusCode).toBe(404)
  })
})

describe('Y1.25 options', () => {
  it('Y1.25: an eventStore without the SDK methods, or a bad retryInterval, throws', async () => {
    const server = mcpServer(createToolRuntime(), { name: 'bad', version: '1.0.0' })
    cleanups.push(() => server.close())
    for (const options of [{ eventStore: {} as never }, { retryInterval: -1 }, { retryInterval: 1.5 }])
      await expect(serveHttp(server, options)).rejects.toThrow(/serveHttp: (eventStore|retryInterval)/)
  })
})

describe('Y1.26 one session never replays another', () => {
  it("Y1.26: another session's event id, or an unknown one, is refused with 400 and nothing replayed", async () => {
    const url = await endpoint()
    const mine = await rawSession(url)
    const call = await send(url, 'POST', mine, countCall(1, 'mine'))
    const events = await readAll(call.res)
    const theirs = await rawSession(url)
    for (const lastEventId of [events[1]!.id!, `${theirs['mcp-session-id']}/nope#1`]) {
      const refused = await send(url, 'GET', { ...theirs, 'last-event-id': lastEventId })
      const body = await readAll(refused.res).catch(() => [])
      expect([refused.res.statusCode, body.filter((e) => e.id !== undefined)]).toEqual([400, []])
    }
  })

  it('Y1.26: a store of your own (the SDK interface, without getStreamIdForEventId) is used per session', async () => {
    const inner = memoryEventStore()
    const stored: string[] = []
    const url = await endpoint({
      retryInterval: 50,
      eventStore: {
        storeEvent: (stream, message) => {
          stored.push(stream)
          return inner.storeEvent(stream, message)
        },
        replayEventsAfter: (last, replay) => inner.replayEventsAfter(last, replay),
      },
    })
    const headers = await rawSession(url)
    const call = await send(url, 'POST', headers, countCall(1, 'own'))
    const before: SseEvent[] = []
    for await (const event of sseEvents(call.res)) {
      before.push(event)
      if (before.length === 2) break
    }
    call.drop()
    const resumed = await send(url, 'GET', { ...headers, 'last-event-id': before[1]!.id! })
    const after = (await readAll(resumed.res)).map(messageOf)
    expect(after.map((m) => m.params?.progress ?? `result ${m.id}`)).toEqual([2, 3, 4, 5, 6, 'result 1'])
    expect(stored.every((s) => s.startsWith(`${headers['mcp-session-id']}/`))).toBe(true)
    const theirs = await rawSession(url)
    const refused = await send(url, 'GET', { ...theirs, 'last-event-id': before[1]!.id! })
    const body = await readAll(refused.res).catch(() => [])
    expect([refused.res.statusCode, body.filter((e) => e.id !== undefined)]).toEqual([500, []])
  })
})

describe('Y1.25 the official client resumes on its own', () => {
  it('Y1.25: a dropped POST stream resumes transparently: every progress step and the result, once', async () => {
    const url = await endpoint({ retryInterval: 50 })
    const resumedWith: string[] = []
    let dropped = false
    const dropping: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const lastEventId = new Headers(init?.headers).get('last-event-id')
      if (init?.method === 'GET' && lastEventId !== null) resumedWith.push(lastEventId)
      const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"')
      if (!isCall || dropped || response.body === null) return response
      // Pass the stream through until the second progress event has arrived whole, then cut it.
      const reader = response.body.getReader()
      let text = ''
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read()
          if (done) return controller.close()
          controller.enqueue(value)
          text += new TextDecoder().decode(value)
          if (text.split('notifications/progress').length > 2) {
            dropped = true
            await reader.cancel()
            controller.error(new Error('connection dropped'))
          }
        },
      })
      return new Response(body, { status: response.status, headers: response.headers })
    }
    const client = new Client({ name: 'resuming', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: dropping }))
    cleanups.push(() => client.close())
    const updates: unknown[] = []
    const result = await client.callTool(
      { name: 'count', arguments: { to: STEPS } },
      { onprogress: (p) => updates.push(p) },
    )
    expect(dropped).toBe(true)
    expect(resumedWith).toHaveLength(1)
    expect(updates).toEqual(progressSteps(STEPS, 'at'))
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: 'text', text: String(STEPS) }])
  })
})

describe('Y1.27 the in-memory event store is bounded', () => {
  const message = (n: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { n } })
  const replay = async (store: ReturnType<typeof memoryEventStore>, after: string) => {
    const sent: unknown[] = []
    const stream = await store.replayEventsAfter(after, { send: async (_id, m) => void sent.push(m) })
    return { stream, sent: sent.map((m) => (m as ReturnType<typeof message>).params.n) }
  }

  it('Y1.27: the defaults are 1,000 events a stream and 10,000 in all', () => {
    expect([DEFAULT_MAX_EVENTS_PER_STREAM, DEFAULT_MAX_EVENTS]).toEqual([1_000, 10_000])
  })

  it('Y1.27: ids name their stream; a replay sends the later events of that stream only, priming skipped', async () => {
    const store = memoryEventStore()
    const prime = await store.storeEvent('a', {} as never)
    await store.storeEvent('b', message(100))
    const ids = [await store.storeEvent('a', message(1)), await store.storeEvent('a', message(2))]
    expect(prime).toMatch(/^a#\d+$/)
    expect(await store.getStreamIdForEventId!(ids[0]!)).toBe('a')
    expect(await replay(store, prime)).toEqual({ stream: 'a', sent: [1, 2] })
    expect(await replay(store, ids[0]!)).toEqual({ stream: 'a', sent: [2] })
  })

  it('Y1.27: the oldest events are evicted per stream and in all; a replay after an evicted id is refused', async () => {
    const store = memoryEventStore({ maxEventsPerStream: 3, maxEvents: 5 })
    const a = []
    for (let n = 1; n <= 4; n++) a.push(await store.storeEvent('a', message(n)))
    expect(store.size).toBe(3)
    expect(await store.getStreamIdForEventId!(a[0]!)).toBeUndefined()
    await expect(replay(store, a[0]!)).rejects.toThrow(/unknown or evicted/)
    expect(await replay(store, a[1]!)).toEqual({ stream: 'a', sent: [3, 4] })
    for (let n = 1; n <= 3; n++) await store.storeEvent('b', message(10 + n))
    expect(store.size).toBe(5)
    expect(await store.getStreamIdForEventId!(a[1]!)).toBeUndefined()
    expect(await replay(store, a[2]!)).toEqual({ stream: 'a', sent: [4] })
    expect(() => memoryEventStore({ maxEvents: 0 })).toThrow(/maxEvents must be a positive integer/)
  })
})
