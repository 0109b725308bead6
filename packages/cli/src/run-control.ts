import type { Output } from './output.js'

/** Why a run was stopped from outside: Ctrl-C, or the reader of stdout went away. */
export type StopReason = 'interrupted' | 'output-closed'

/** The exit status of a stopped run: 128 + the signal a shell would report (SIGINT, SIGPIPE). */
export const STOPPED_EXIT_STATUS: Readonly<Record<StopReason, number>> = Object.freeze({
  interrupted: 130,
  'output-closed': 141,
})

/** What the CLI says on stderr when a run was stopped. */
export const STOP_NOTES: Readonly<Record<StopReason, string>> = Object.freeze({
  interrupted: 'interrupted (Ctrl-C)',
  'output-closed': 'stdout was closed, so the run was stopped',
})

/**
 * Watches for the ways a person stops a run: Ctrl-C (SIGINT, or `interrupt()` from a prompt
 * that reads the keys itself) and a closed stdout. The first one calls `abort` once and is
 * remembered as `reason`; a second Ctrl-C while the run winds down ends the process at once.
 */
export class RunControl {
  #reason: StopReason | undefined
  readonly #abort: () => void
  readonly #offClosed: () => void
  readonly #onSigint = () => this.interrupt()

  constructor(out: Output, abort: () => void) {
    this.#abort = abort
    this.#offClosed = out.onClosed(() => this.#stop('output-closed'))
    process.on('SIGINT', this.#onSigint)
  }

  /** Why the run was stopped, or `undefined` while it was not. */
  get reason(): StopReason | undefined {
    return this.#reason
  }

  /** Ctrl-C: aborts the run; a second one exits with status 130 without waiting. */
  interrupt(): void {
    if (this.#reason === 'interrupted') process.exit(STOPPED_EXIT_STATUS.interrupted)
    this.#stop('interrupted')
  }

  /** Stops watching. */
  dispose(): void {
    this.#offClosed()
    process.off('SIGINT', this.#onSigint)
  }

  #stop(reason: StopReason): void {
    if (this.#reason !== undefined) return
    this.#reason = reason
    this.#abort()
  }
}
