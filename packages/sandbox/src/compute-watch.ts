/**
 * The host's backstop for a run's compute budget (X8.3, X8.20). The worker interrupts itself
 * at the budget; this catches native operations that never consult its interrupt handler. It
 * reads the meters the worker writes (`WorkerStart.meters`) and times the running slice with
 * the host's own monotonic clock, from the first tick that sees that slice's number, so no
 * clock reading crosses threads: a wall-clock step or another thread's time origin can never
 * end a run. It may see a slice one tick late, which only makes the backstop later.
 */
export class ComputeWatch {
  #slice = 0
  #seenAt = 0

  constructor(
    private readonly meters: Float64Array,
    private readonly computeMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** True once finished slices plus the running one exceed the budget by more than 5%. */
  overBudget(): boolean {
    const slice = this.meters[1]!
    let busy = 0
    if (slice !== 0) {
      const now = this.clock()
      if (slice !== this.#slice) {
        this.#slice = slice
        this.#seenAt = now
      }
      busy = now - this.#seenAt
    }
    return this.meters[0]! + busy > this.computeMs * 1.05
  }
}
