/**
 * What a served call's body may ask of its client besides logging, progress and forms (Y1.32,
 * Y1.33): completions, and releasing its SSE stream. Opened per call, closed when it ends.
 */
import type { ClientCapabilities, ServerContext } from '@modelcontextprotocol/server'
import { samplers } from './body-sample.js'
import { streamClosers } from './call-stream.js'

/**
 * Opens the routes of the call `callId` served through `ctx`: completions when the client of a
 * 2025 session (`client`: its capabilities; `undefined` for a 2026-07-28 request, which has no
 * server-to-client requests) announced sampling, waiting at most `timeoutMs`; the stream closer
 * when the transport offers one. Returns the function closing them.
 */
export function openBodyRoutes(
  callId: string,
  ctx: ServerContext,
  client: ClientCapabilities | undefined,
  timeoutMs: number,
): () => void {
  const closers: (() => void)[] = []
  if (client?.sampling !== undefined)
    closers.push(
      samplers.open(callId, (request, signal) =>
        ctx.mcpReq.requestSampling(request, { signal, timeout: timeoutMs }),
      ),
    )
  const closeSse = ctx.http?.closeSSE
  if (closeSse !== undefined) closers.push(streamClosers.open(callId, closeSse))
  return () => {
    for (const close of closers) close()
  }
}
