/** Where a command writes: normal lines and error lines. Tests pass their own. */
export interface Output {
  line(text?: string): void
  error(text: string): void
  /** True when stdout is an interactive terminal (live spinners are shown only then). */
  readonly interactive: boolean
  /** Rewrites the transient status line (interactive terminals only). */
  status(text: string): void
}

/** Output to the process's stdout and stderr. */
export function processOutput(): Output {
  // A reader that goes away (`tooltx replay … | head`) is not an error: stop quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw error
    })
  }
  const interactive = process.stdout.isTTY === true
  let statusShown = false
  const clearStatus = () => {
    if (statusShown) process.stdout.write('\r\x1b[2K')
    statusShown = false
  }
  return {
    interactive,
    line(text = '') {
      clearStatus()
      process.stdout.write(`${text}\n`)
    },
    error(text) {
      clearStatus()
      process.stderr.write(`${text}\n`)
    },
    status(text) {
      if (!interactive) return
      clearStatus()
      if (text !== '') {
        process.stdout.write(text.slice(0, (process.stdout.columns ?? 80) - 1))
        statusShown = true
      }
    },
  }
}

/** A failure the user can fix: printed without a stack trace, exit code 1 (or `exitCode`). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = 'UsageError'
  }
}
