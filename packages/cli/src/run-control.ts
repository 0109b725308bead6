import type { Output } from './display/output.js'

/**
 * Why a run was stopped from outside: Ctrl-C (SIGINT), the reader of stdout went away, the
 * process was asked to end (SIGTERM), or its terminal went away (SIGHUP).
 */
export type StopReason = 'interrupted' | 'output-closed' | 'terminated' | 'hung-up'

/** The exit status of a stopped run: 128 + the signal a shell would report (SIGINT, SIGPIPE, SIGTERM, SIGHUP). */
export const STOPPED_EXIT_STATUS: Readonly<Record<StopReason, number>> = Object.freeze({
  interrupted: 130,
  'output-closed': 141,
  terminated: 143,
  'hung-up': 129,
})

/** What the CLI says on stderr when a run was stopped. */
export const STOP_NOTES: Readonly<Record<StopReason, string>> = Object.freeze({
  interrupted: 'interrupted (Ctrl-C)',
  'output-closed': 'stdout was closed, so the run was stopped',
  terminated: 'terminated (SIGTERM)',
  'hung-up': 'hung up (SIGHUP)',
})

/** The signals that stop a run, each with the reason it is remembered as. */
const STOP_SIGNALS = [
  ['SIGINT', 'interrupted'],
  ['SIGTERM', 'terminated'],
  ['SIGHUP', 'hung-up'],
] as const satisfies readonly (readonly [NodeJS.Signals, StopReason])[]

/**
 * Watches for the ways a run is stopped from outside: Ctrl-C (SIGINT, or `interrupt()` from a
 * prompt that reads the keys itself), SIGTERM, SIGHUP and a closed stdout. The first one calls
 * `abort` once and is remembered as `reason`; a second signal while the run winds down ends the
 * process at once with that signal's status.
 */
export class RunControl {
  #reason: StopReason | undefined
  readonly #abort: () => void
  readonly #offClosed: () => void
  readonly #handlers = STOP_SIGNALS.map(([signal, reason]) => [signal, () => this.#signal(reason)] as const)

  constructor(out: Output, abort: () => void) {
    this.#abort = abort
    this.#offClosed = out.onClosed(() => this.#stop('output-closed'))
    for (const [signal, handler] of this.#handlers) process.on(signal, handler)
  }

  /** Why the run was stopped, or `undefined` while it was not. */
  get reason(): StopReason | undefined {
    return this.#reason
  }

  /** Ctrl-C: aborts the run; a second one exits with status 130 without waiting. */
  interrupt(): void {
    this.#signal('interrupted')
  }

  /** Stops watching. */
  dispose(): void {
    this.#offClosed()
    for (const [signal, handler] of this.#handlers) process.off(signal, handler)
  }

  /** A stopping signal: the first aborts the run; one after a signal already stopped it exits now. */
  #signal(reason: StopReason): void {
    if (this.#reason !== undefined && this.#reason !== 'output-closed') {
      process.exit(STOPPED_EXIT_STATUS[reason])
    }
    this.#stop(reason)
  }

  #stop(reason: StopReason): void {
    if (this.#reason !== undefined) return
    this.#reason = reason
    this.#abort()
  }
}
