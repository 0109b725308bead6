/**
 * The client's connection to one server, reconnected with bounded exponential backoff when it
 * drops (Y2.14): a stdio server is spawned again, a Streamable HTTP server connected again with
 * a fresh handshake. The SDK client object stays the same across reconnections, and a
 * connection that drops again before a call could use it never restarts the count (Y2.23).
 */
import { type Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client'
import { ToolError } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import { type Backoff, backoffDelay } from './backoff.js'
import { noListenStream } from './listen-stream.js'
import { messageTooLarge } from './message-bound.js'

/** Why a call could not be sent: the set was closed, or reconnecting gave up. */
export class LinkDown extends Error {
  constructor(
    readonly reason: 'closed' | 'unreachable',
    message: string,
  ) {
    super(message)
  }
}

/**
 * What a failed request says about the connection: `undelivered` when the server provably never
 * read the request (the connection was refused, or an HTTP 404 or 400: a restarted server
 * does not know the session), `dropped` when the connection broke with the request possibly read, `undefined`
 * for an answer that is an error (the connection is fine).
 */
export function connectionFailure(error: unknown): 'undelivered' | 'dropped' | undefined {
  if (SdkError.isInstance(error)) {
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.SendFailed)
      return 'dropped'
    // The spec answers a session the server does not know with 404; servers built on the SDK's
    // examples answer 400. Either way the server refused the request before reading the call.
    const status = (error as { status?: unknown }).status
    return status === 404 || status === 400 ? 'undelivered' : undefined
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = (error.cause as { code?: unknown } | undefined)?.code
    return cause === 'ECONNREFUSED' ? 'undelivered' : 'dropped'
  }
  return undefined
}

/** A connection's current client, as of one connection generation. */
export interface Lease {
  readonly client: Client
  readonly generation: number
}

/**
 * The connection of one `mcpTools` set. `ready` hands a call the connected client, first
 * reconnecting when the connection is down; `lost` marks it down after a call saw it break.
 */
export class ClientLink {
  readonly client: Client
  readonly #connect: () => Promise<void>
  readonly #backoff: Backoff | undefined
  readonly #onReconnected: () => Promise<void>
  #state: 'up' | 'down' | 'closed' = 'up'
  #generation = 0
  #reconnecting: Promise<void> | undefined
  /** Connection tries since a call last found the connection up, or since a reconnection gave up (Y2.23). */
  #tries = 0
  /** What last marked the connection down, for the message of a reconnection that gives up. */
  #downBecause: unknown
  #wake: (() => void) | undefined
  /** Why a connection generation was closed, when tooltx closed it (a message too large, Y2.18). */
  #closedBecause: { generation: number; reason: string } | undefined

  /**
   * `connect` opens a fresh transport on `client`; `backoff` undefined never reconnects;
   * `onReconnected` runs after each reconnection (the set re-lists the tools, Y2.14).
   */
  constructor(
    client: Client,
    connect: () => Promise<void>,
    backoff: Backoff | undefined,
    onReconnected: () => Promise<void>,
  ) {
    this.client = client
    this.#connect = connect
    this.#backoff = backoff
    this.#onReconnected = onReconnected
    // A stdio server that exits closes the transport; an HTTP stream that breaks reports an error.
    client.onclose = () => this.lost(this.#generation)
    client.onerror = (error) => {
      // A message over the bound closes the transport next: its calls fail saying so (Y2.18).
      const tooLarge = messageTooLarge(error)
      if (tooLarge !== undefined)
        this.#closedBecause = { generation: this.#generation, reason: tooLarge.message }
      // A server that offers no GET stream says nothing about the session (Y2.21).
      if (connectionFailure(error) !== undefined && !noListenStream(error)) {
        this.#downBecause = error
        this.lost(this.#generation)
      }
    }
  }

  /**
   * The client for a call (Y2.14). Up: at once. Down: waits for the reconnection (one shared by
   * every waiting call) and rejects with `LinkDown('unreachable')` when it gives up, or with
   * the signal's reason when the call is aborted first. Closed, or down without reconnection:
   * `LinkDown('closed')`. A connection that is down again when the reconnection ends is
   * reconnected with the tries counted on (Y2.23), so a server that takes the handshake and
   * drops at once is tried at most `attempts` times, waiting longer each time.
   */
  async ready(signal: AbortSignal): Promise<Lease> {
    if (this.#state === 'up') {
      this.#tries = 0
      return { client: this.client, generation: this.#generation }
    }
    if (this.#state === 'closed' || this.#backoff === undefined)
      throw new LinkDown('closed', 'the connection is closed; the call was not sent')
    this.#reconnecting ??= this.#reconnect(this.#backoff).finally(() => {
      this.#reconnecting = undefined
    })
    await abortable(this.#reconnecting, signal)
    return this.ready(signal)
  }

  /** Marks the connection of `generation` down; a later generation, or a closed link, is kept. */
  lost(generation: number): void {
    if (this.#state === 'up' && generation === this.#generation) this.#state = 'down'
  }

  /** Why the connection of `generation` closed, when tooltx knows it (Y2.18); else `undefined`. */
  closedBecause(generation: number): string | undefined {
    const closed = this.#closedBecause
    return closed?.generation === generation ? closed.reason : undefined
  }

  /** Closes the connection for good; a running reconnection stops at its next wait. */
  async close(): Promise<void> {
    this.#state = 'closed'
    this.#wake?.()
    await this.client.close()
  }

  async #reconnect(backoff: Backoff): Promise<void> {
    let last = this.#downBecause
    while (this.#tries < backoff.attempts) {
      this.#tries++
      await this.#sleep(backoffDelay(backoff, this.#tries))
      if (this.#closed()) break
      try {
        // The old transport is spent: closing it ends what is left of it (a stdio child, a session).
        await this.client.close().catch(() => undefined)
        if (this.#closed()) break
        await this.#connect()
      } catch (error) {
        last = error
        continue
      }
      if (this.#closed()) {
        await this.client.close()
        break
      }
      this.#generation++
      this.#state = 'up'
      await this.#onReconnected().catch(() => undefined)
      return
    }
    if (this.#closed()) throw new LinkDown('closed', 'the connection is closed; the call was not sent')
    // The next call starts a new reconnection, with every try again.
    this.#tries = 0
    throw new LinkDown(
      'unreachable',
      `the server could not be reached again (${backoff.attempts} attempts: ${errorMessage(last)}); the call was not sent`,
    )
  }

  /** Read afresh after each await: `close()` may have run meanwhile. */
  #closed(): boolean {
    return this.#state === 'closed'
  }

  #sleep(ms: number): Promise<void> {
    if (ms === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    })
  }
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The failure code of a call the connection could not carry (Y2.8, Y2.14). */
export const CONNECTION_CLOSED = 'MCP_CONNECTION_CLOSED'

/** The `MCP_CONNECTION_CLOSED` failure of a call (Y2.8, Y2.14). */
export function connectionClosed(message: string): ToolError {
  return new ToolError(CONNECTION_CLOSED, message, { name: 'McpConnectionError' })
}
