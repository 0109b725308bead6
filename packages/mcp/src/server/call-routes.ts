/**
 * Per served call, where what its body sends goes (Y1.21, Y1.32, Y1.33): its `run.log` entries,
 * its completions, its stream release. Keyed by the call id the server gave the call, which a Code Mode sub-call
 * finds as its root call id.
 */
export class CallRoutes<T> {
  readonly #routes = new Map<string, T>()

  /** Routes what the call `callId` (and its sub-calls) sends to `route` until the returned disposer runs. */
  open(callId: string, route: T): () => void {
    this.#routes.set(callId, route)
    return () => this.#routes.delete(callId)
  }

  /** The route of the served call whose root is `rootCallId`; `undefined` for a call not served here. */
  find(rootCallId: string): T | undefined {
    return this.#routes.get(rootCallId)
  }
}
