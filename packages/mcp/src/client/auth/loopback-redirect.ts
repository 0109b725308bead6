/**
 * The redirect target of the authorization code flow on this machine (RFC 8252 §7.3, Y5.8): an
 * HTTP listener on 127.0.0.1 that takes exactly one authorization response for the state it
 * was given, answers the browser with a short page, and hands the code to the flow.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** An authorization response that came back to the listener. */
export interface AuthorizationResponse {
  code: string
  /** The `iss` parameter (RFC 9207), when the authorization server sent one. */
  iss?: string
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>tooltx</title><p>${text}</p>`

/** Every answer ends its connection, so a browser's kept-alive socket never holds `close()` open. */
const HTML = { 'content-type': 'text/html', connection: 'close' }

/** A loopback listener for one authorization at a time; start it before asking for the URL. */
export class LoopbackRedirect {
  /** The port asked for; after the first start, the port it got, so the redirect URL stays. */
  #port: number
  #server: Server | undefined
  #waiting:
    | { state: string; resolve(response: AuthorizationResponse): void; reject(error: Error): void }
    | undefined

  /** `port` 0 (the default) takes any free port. */
  constructor(port = 0) {
    this.#port = port
  }

  /** Listens (once) and resolves with the redirect URL `http://127.0.0.1:<port>/callback`. */
  async start(): Promise<URL> {
    if (this.#server === undefined) {
      const server = createServer((request, response) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1')
        const waiting = this.#waiting
        if (url.pathname !== '/callback' || waiting === undefined) {
          response.writeHead(404, HTML).end(PAGE('Nothing is waiting here.'))
          return
        }
        // A response for another state is not ours (a stale tab, a forged link): ignore it.
        if (url.searchParams.get('state') !== waiting.state) {
          response.writeHead(400, HTML).end(PAGE('Unexpected state.'))
          return
        }
        this.#waiting = undefined
        const code = url.searchParams.get('code')
        const iss = url.searchParams.get('iss')
        if (code === null) {
          const error = url.searchParams.get('error') ?? 'no code'
          const description = url.searchParams.get('error_description')
          response.writeHead(400, HTML).end(PAGE('Authorization failed.'))
          waiting.reject(
            new Error(
              `the authorization server refused: ${error}${description === null ? '' : ` (${description})`}`,
            ),
          )
          return
        }
        response.writeHead(200, HTML).end(PAGE('tooltx is authorized. You can close this tab.'))
        waiting.resolve(iss === null ? { code } : { code, iss })
      })
      this.#server = server
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject)
          server.listen(this.#port, '127.0.0.1', () => resolve())
        })
      } catch (error) {
        this.#server = undefined
        throw new Error(
          `cannot listen for the authorization response on 127.0.0.1:${this.#port}: ${String(error)}`,
        )
      }
      server.unref()
      this.#port = (server.address() as AddressInfo).port
    }
    return new URL(`http://127.0.0.1:${this.#port}/callback`)
  }

  /**
   * Resolves with the authorization response carrying `state`; rejects when the server sent
   * an error, after `timeoutMs`, or when another wait replaces this one.
   */
  wait(state: string, timeoutMs: number): Promise<AuthorizationResponse> {
    this.#waiting?.reject(new Error('a newer authorization replaced this one'))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.#waiting?.state === state) this.#waiting = undefined
        reject(new Error(`no authorization arrived within ${Math.round(timeoutMs / 1000)} s`))
      }, timeoutMs)
      timer.unref()
      const settle =
        <T>(f: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer)
          f(value)
        }
      this.#waiting = { state, resolve: settle(resolve), reject: settle(reject) }
    })
  }

  /** Stops listening until the next start (on the same port); a pending wait rejects. */
  async close(): Promise<void> {
    this.#waiting?.reject(new Error('the authorization was abandoned: the connection closed'))
    this.#waiting = undefined
    const server = this.#server
    this.#server = undefined
    if (server !== undefined) await new Promise((resolve) => server.close(resolve))
  }
}
