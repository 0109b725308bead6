/** The executions of one runtime that are in progress, by token (I1.2, X1.6). */
import type { Call } from './call.js'

/**
 * The calls in flight, keyed by their token. Two parallel arrays rather than a `Map`: a `Map`
 * that gains and loses a fresh symbol on every call keeps rehashing its small table (~200 ns
 * per call on V8, against ~50 ns here; bench/pipeline.bench.ts, no hooks). Lookups scan,
 * which stays cheap for the number of calls a runtime has in flight at once.
 */
export class LiveCalls {
  private readonly tokens: symbol[] = []
  private readonly calls: Call[] = []

  /** Records `call` as in progress under `token`. */
  add(token: symbol, call: Call): void {
    this.tokens.push(token)
    this.calls.push(call)
  }

  /** The call in progress under `token`, or `undefined`. */
  get(token: symbol): Call | undefined {
    const index = this.tokens.lastIndexOf(token)
    return index < 0 ? undefined : this.calls[index]
  }

  /** True iff a call is in progress under `token`. */
  has(token: symbol): boolean {
    return this.tokens.lastIndexOf(token) >= 0
  }

  /** Forgets the call under `token` (the last entry takes its slot); a no-op when absent. */
  delete(token: symbol): void {
    const index = this.tokens.lastIndexOf(token)
    if (index < 0) return
    const lastToken = this.tokens.pop()!
    const lastCall = this.calls.pop()!
    if (index < this.tokens.length) {
      this.tokens[index] = lastToken
      this.calls[index] = lastCall
    }
  }
}
