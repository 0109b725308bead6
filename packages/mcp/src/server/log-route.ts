/** Logging over MCP (Y1.21): a served call's `run.log` entries as `notifications/message`. */
import type { LogEntry } from '@tooltx/core'

/** Log sinks of the calls in flight, by root call id (a Code Mode sub-call logs to its root). */
export class LogRoutes {
  readonly #sinks = new Map<string, (entry: LogEntry) => void>()

  /** Routes the entries of the call `callId` (and its sub-calls) to `send` until the returned disposer runs. */
  open(callId: string, send: (entry: LogEntry) => void): () => void {
    this.#sinks.set(callId, send)
    return () => this.#sinks.delete(callId)
  }

  /**
   * Delivers one entry of a call whose root is `rootCallId`; true when that call is served here
   * (the entry is taken, sent or filtered out by the client's level), false for any other call.
   */
  deliver(rootCallId: string, entry: LogEntry): boolean {
    const send = this.#sinks.get(rootCallId)
    if (send === undefined) return false
    send(entry)
    return true
  }
}
