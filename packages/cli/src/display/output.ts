import { createInterface } from 'node:readline'
import { terminalSafe } from './terminal-text.js'

/** Where a command writes: normal lines and error lines. Tests pass their own. */
export interface Output {
  line(text?: string): void
  error(text: string): void
  /**
   * Writes `text` (made terminal-safe) without ending the line, as streamed model text; the next
   * `line` or `error` starts on a new line, and the status line stays off until then.
   */
  text(text: string): void
  /** True when stdout is an interactive terminal (live spinners are shown only then). */
  readonly interactive: boolean
  /** The width of the terminal in columns when stdout is one, else `undefined` (no wrapping). */
  readonly columns: number | undefined
  /** Rewrites the transient status line (interactive terminals only). */
  status(text: string): void
  /** A person who can answer questions: present only when stdin and stdout are both terminals. */
  readonly prompt: Prompt | undefined
  /**
   * Calls `listener` once when the reader of stdout goes away (EPIPE); later writes are dropped.
   * Returns the function that removes the listener. With no listener, the process exits quietly.
   */
  onClosed(listener: () => void): () => void
}

/** Questions to the person at the terminal. */
export interface Prompt {
  /**
   * Prints `question` and resolves with the line typed in answer, echoed as it is typed; the
   * status line stays cleared until then. Resolves `undefined` for Ctrl-C, and `''` when the
   * input ends (Ctrl-D) or `signal` aborts.
   */
  ask(question: string, signal: AbortSignal): Promise<string | undefined>
}

/** Output to the process's stdout and stderr. */
export function processOutput(): Output {
  const interactive = process.stdout.isTTY === true
  const listeners = new Set<() => void>()
  const closed = new Set<NodeJS.WriteStream>()
  let asking = false
  let statusShown = false
  // A line `text` began and nothing has ended yet: the status line must not overwrite it.
  let midLine = false
  // A reader that goes away (`tooltx replay … | head`) is not an error: a running command
  // stops its run (its listener), anything else ends quietly. Later writes to that stream are
  // dropped; the other stream still works (to say why the run stopped).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (closed.has(stream)) return
      if (error.code !== 'EPIPE') throw error
      closed.add(stream)
      if (listeners.size === 0) process.exit(process.exitCode ?? 0)
      for (const listener of [...listeners]) listener()
    })
  }
  const write = (stream: NodeJS.WriteStream, text: string) => {
    if (!closed.has(stream)) stream.write(text)
  }
  const clearStatus = () => {
    if (statusShown) write(process.stdout, '\r\x1b[2K')
    statusShown = false
  }
  const endLine = () => {
    if (midLine) write(process.stdout, '\n')
    midLine = false
  }
  const prompt: Prompt = {
    ask(question, signal) {
      if (signal.aborted) return Promise.resolve('')
      clearStatus()
      asking = true
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true })
      return new Promise<string | undefined>((resolve) => {
        const settle = (answer: string | undefined) => {
          signal.removeEventListener('abort', onAbort)
          asking = false
          rl.close()
          resolve(answer)
        }
        const onAbort = () => {
          write(process.stdout, '\n')
          settle('')
        }
        signal.addEventListener('abort', onAbort, { once: true })
        rl.on('SIGINT', () => {
          write(process.stdout, '^C\n')
          settle(undefined)
        })
        rl.on('close', () => {
          if (asking) settle('')
        })
        rl.question(terminalSafe(question), (answer) => settle(answer))
      })
    },
  }
  return {
    interactive,
    get columns() {
      return interactive ? process.stdout.columns : undefined
    },
    prompt: interactive && process.stdin.isTTY === true ? prompt : undefined,
    line(text = '') {
      clearStatus()
      endLine()
      write(process.stdout, `${terminalSafe(text)}\n`)
    },
    error(text) {
      clearStatus()
      endLine()
      write(process.stderr, `${terminalSafe(text)}\n`)
    },
    text(text) {
      if (text === '') return
      clearStatus()
      write(process.stdout, terminalSafe(text))
      midLine = true
    },
    status(text) {
      if (!interactive || asking || midLine) return
      clearStatus()
      if (text !== '') {
        write(process.stdout, terminalSafe(text).slice(0, (process.stdout.columns ?? 80) - 1))
        statusShown = true
      }
    },
    onClosed(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
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

/** The line that ends every usage error: where the help of `command` (or of tooltx) is. */
export function seeHelp(command?: string): string {
  return `see tooltx ${command === undefined ? '' : `${command} `}--help`
}
