/**
 * A raw HTTP client of a 2025 Streamable HTTP session, for the tests that drop an SSE stream and
 * resume it with `Last-Event-ID` by hand (Y1.25, Y1.36, Y3.9): requests, the SSE events of a
 * response as they arrive, and a session's initialization. Not a test file itself.
 */
import { type IncomingMessage, request } from 'node:http'
import { expect } from 'vitest'

/** One SSE event: its id, its retry and its data. */
export interface SseEvent {
  id?: string
  retry?: number
  data: string
}

/** The SSE events of `res` as they arrive; keep-alive comments are skipped. */
export async function* sseEvents(res: IncomingMessage): AsyncGenerator<SseEvent> {
  let buffer = ''
  for await (const chunk of res) {
    buffer += (chunk as Buffer).toString('utf8')
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event: SseEvent = { data: '' }
      let seen = false
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':')
        if (colon <= 0) continue
        const field = line.slice(0, colon)
        const value = line.slice(colon + 1).replace(/^ /, '')
        if (field === 'id') event.id = value
        else if (field === 'retry') event.retry = Number(value)
        else if (field === 'data') event.data += value
        else continue
        seen = true
      }
      if (seen) yield event
    }
  }
}

/** The JSON-RPC message an event carries; `undefined` for a priming event. */
export const messageOf = (event: SseEvent) => (event.data === '' ? undefined : JSON.parse(event.data))

/** One raw HTTP request to `url`; resolves with the response (its body unread). */
export function send(
  url: URL,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ res: IncomingMessage; drop: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...headers,
      },
    })
    req.on('error', reject)
    req.on('response', (res) => resolve({ res, drop: () => req.destroy() }))
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

/** A raw 2025-11-25 session: initialize and initialized; resolves with its headers. */
export async function rawSession(url: URL): Promise<Record<string, string>> {
  const { res } = await send(
    url,
    'POST',
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      },
    },
  )
  const sessionId = res.headers['mcp-session-id'] as string
  for await (const event of sseEvents(res)) if (messageOf(event)?.id === 0) break
  const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }
  const initialized = await send(url, 'POST', headers, {
    jsonrpc: '2.0',
    method: 'notifications/initialized',
  })
  initialized.res.resume()
  expect(initialized.res.statusCode).toBe(202)
  return headers
}

/** Every SSE event of `res` until it ends. */
export async function readAll(res: IncomingMessage): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const event of sseEvents(res)) events.push(event)
  return events
}
