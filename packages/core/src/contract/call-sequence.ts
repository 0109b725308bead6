/**
 * Call sequences (P1.8, P1.9): the calls that share a sequence run their policy phases one
 * at a time, in the order they entered `execute`. A call's decision (pre-execute, approval,
 * guards) starts only once the decision of the call that entered before it is over, and its
 * post-execute chain only once that call's post-execute is over. Bodies are not ordered, so
 * parallel calls still run side by side.
 */

/** A group of calls whose policy phases run in entry order; pass it as `execute` input `sequence`. */
export interface CallSequence {
  readonly __brand: 'CallSequence'
}

/** A point in a line that opens once; the promise exists only if somebody waits. */
class Gate {
  opened = false
  #promise: Promise<void> | undefined
  #resolve: (() => void) | undefined

  open(): void {
    if (this.opened) return
    this.opened = true
    this.#resolve?.()
  }

  wait(): Promise<void> {
    if (this.opened) return Promise.resolve()
    this.#promise ??= new Promise((resolve) => {
      this.#resolve = resolve
    })
    return this.#promise
  }
}

const OPEN = new Gate()
OPEN.open()

/** One call's place in the line of one phase. */
export class PhaseSlot {
  readonly #before: Gate
  readonly own = new Gate()

  constructor(before: Gate) {
    this.#before = before
  }

  /** `undefined` when the call may run the phase now, else a promise that resolves when it may. */
  ready(): Promise<void> | undefined {
    return this.#before.opened ? undefined : this.#before.wait()
  }

  /**
   * Runs `phase` once the call before it is through the phase (at once, synchronously, when it
   * already is), then ends this call's slot when `phase` settles. `wait: false` runs it at once: a call with no
   * handler for the phase has nothing to order and waits for nobody.
   */
  run<T>(phase: () => T | Promise<T>, wait = true): T | Promise<T> {
    const ready = wait ? this.ready() : undefined
    if (ready !== undefined) return ready.then(() => this.run(phase, false))
    const out = phase()
    if (out instanceof Promise) return out.finally(() => this.done())
    this.done()
    return out
  }

  /**
   * The call's phase is over, or the call skips it: the next call's slot opens as soon as
   * this one's has. Idempotent.
   */
  done(): void {
    if (this.own.opened) return
    if (this.#before.opened) this.own.open()
    else void this.#before.wait().then(() => this.own.open())
  }
}

/** One call's places in both lines. */
export interface Place {
  readonly decide: PhaseSlot
  readonly post: PhaseSlot
}

class Sequence implements CallSequence {
  declare readonly __brand: 'CallSequence'
  #decided: Gate = OPEN
  #posted: Gate = OPEN

  /** The next places in both lines; taken once per call, at entry. */
  enter(): Place {
    const decide = new PhaseSlot(this.#decided)
    const post = new PhaseSlot(this.#posted)
    this.#decided = decide.own
    this.#posted = post.own
    return { decide, post }
  }
}

/** A new, empty call sequence (P1.8). */
export function callSequence(): CallSequence {
  return new Sequence()
}

/** The places of a call entering with `sequence`, or `undefined` when it is not a sequence. */
export function enterSequence(sequence: unknown): Place | undefined {
  return sequence instanceof Sequence ? sequence.enter() : undefined
}
