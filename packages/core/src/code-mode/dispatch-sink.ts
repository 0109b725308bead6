/**
 * The contained `onCodeDispatch` sink of one run (X5.4, X5.5): events go out without delaying
 * anything, throws and rejections are reported, and pending promises can be drained.
 */
import type { CodeDispatchSettle, CodeDispatchSink, CodeDispatchStart } from '../contract/code-runtime.js'

/** Wraps an optional sink; without one, `emit` does nothing (X5.5). */
export class DispatchSink {
  private readonly pending = new Set<Promise<void>>()

  constructor(
    private readonly sink: CodeDispatchSink | undefined,
    private readonly report: (error: unknown) => void,
  ) {}

  /** Hands a frozen event to the sink; never throws and never waits for it. */
  emit(event: CodeDispatchStart | CodeDispatchSettle): void {
    if (this.sink === undefined) return
    let thenable: PromiseLike<unknown>
    try {
      const returned: unknown = this.sink(Object.freeze(event))
      if (returned === null || typeof returned !== 'object') return
      if (typeof (returned as { then?: unknown }).then !== 'function') return
      thenable = returned as PromiseLike<unknown>
    } catch (error) {
      this.report(error)
      return
    }
    const settled = Promise.resolve(thenable).then(
      () => undefined,
      (error: unknown) => this.report(error),
    )
    this.pending.add(settled)
    void settled.finally(() => this.pending.delete(settled))
  }

  /** Resolves once every sink promise emitted so far (and during the wait) has settled. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending])
  }
}
