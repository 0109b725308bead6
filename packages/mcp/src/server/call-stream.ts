/**
 * Polling a long call (Y1.32, the 2025-11-25 spec's SSE polling): a tool body may close the SSE
 * stream its served call answers on; the client reconnects after the stream's `retry` with
 * `Last-Event-ID` and gets what it missed, then the rest, from the event store (Y1.25).
 */
import type { Execution } from '@tooltx/core'
import { CallRoutes } from './call-routes.js'

/** The stream closers of the calls every `serveHttp` endpoint of this process serves. */
export const streamClosers = new CallRoutes<() => void>()

/**
 * Closes the SSE stream of the served call `run` belongs to, so the client polls for the rest
 * instead of holding a connection open (Y1.32). True when a stream was closed; false for a call
 * not served over Streamable HTTP with an event store (there the call just goes on).
 */
export function closeCallStream(run: Pick<Execution, 'rootCallId'>): boolean {
  const close = streamClosers.find(run.rootCallId)
  close?.()
  return close !== undefined
}
