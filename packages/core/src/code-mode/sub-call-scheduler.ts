/**
 * The Code Mode sub-call scheduler (X6): starts binding calls strictly in submission order,
 * runs consecutive parallel calls side by side up to a limit, makes an exclusive call wait
 * for everything before it and hold the barrier until its own result settles, and commits
 * outcomes in submission order.
 */
import type { ExecutionMode } from '../contract/tool-view.js'

/** How a started job ended: its value, or what its runner threw. */
export type JobOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown }

/** What the scheduler does with a job; none of these may throw except `run`. */
export interface SchedulerHooks<J, T> {
  /** Classifies the queue head when it could start; called again while an exclusive head waits (X6.1). */
  classify(job: J): ExecutionMode
  /** Starts a job; the scheduler counts it as running until the promise settles. */
  run(job: J): Promise<T>
  /** Receives each started job's outcome, in submission order (X6.4). */
  commit(job: J, outcome: JobOutcome<T>): void
}

interface Slot<J, T> {
  readonly job: J
  mode?: ExecutionMode
  outcome?: JobOutcome<T>
}

/** One run's scheduler. `close()` stops starting jobs; `drain()` waits for started ones. */
export class SubCallScheduler<J, T> {
  private readonly queue: Slot<J, T>[] = []
  private readonly uncommitted: Slot<J, T>[] = []
  private readonly inFlight = new Set<Promise<void>>()
  private running = 0
  private exclusiveRunning = false
  private closed = false

  /** `limit` is the positive integer `maxParallelSubCalls` (X6.2). */
  constructor(
    private readonly limit: number,
    private readonly hooks: SchedulerHooks<J, T>,
  ) {}

  /** Queues a job and starts whatever may start now. Ignored after `close()`. */
  submit(job: J): void {
    if (this.closed) return
    this.queue.push({ job })
    this.pump()
  }

  /** Stops the scheduler and returns the jobs that never started, in submission order (X7.2). */
  close(): J[] {
    this.closed = true
    return this.queue.splice(0).map((slot) => slot.job)
  }

  /** Resolves once every started job has settled and been committed; never rejects. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      // Strict order (X6.1): a head that may not start yet holds back everything behind it.
      // Behind a running exclusive call or a full pool every head waits, whatever its mode.
      if (this.exclusiveRunning || this.running >= this.limit) return
      const head = this.queue[0]!
      // Classified now, at its start (X6.1); a head that must wait is classified again next time.
      const mode = this.hooks.classify(head.job)
      if (mode === 'exclusive' && this.running > 0) return
      this.queue.shift()
      head.mode = mode
      this.start(head)
    }
  }

  private start(slot: Slot<J, T>): void {
    this.running++
    if (slot.mode === 'exclusive') this.exclusiveRunning = true
    this.uncommitted.push(slot)
    let started: Promise<T>
    try {
      started = this.hooks.run(slot.job)
    } catch (error) {
      started = Promise.reject(error)
    }
    const done = started
      .then(
        (value): JobOutcome<T> => ({ ok: true, value }),
        (error: unknown): JobOutcome<T> => ({ ok: false, error }),
      )
      .then((outcome) => {
        slot.outcome = outcome
        this.running--
        // The barrier is held until the exclusive call's result settled (X6.3).
        if (slot.mode === 'exclusive') this.exclusiveRunning = false
        this.commitReady()
        this.pump()
      })
    this.inFlight.add(done)
    void done.finally(() => this.inFlight.delete(done))
  }

  /** Commits the settled prefix of the started jobs, so outcomes land in submission order. */
  private commitReady(): void {
    while (this.uncommitted.length > 0 && this.uncommitted[0]!.outcome !== undefined) {
      const slot = this.uncommitted.shift()!
      this.hooks.commit(slot.job, slot.outcome!)
    }
  }
}
