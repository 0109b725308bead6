import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { ToolError } from '@tooltx/core'
import { workspaceTool } from './workspace-tool.js'

/** The command's deadline when the call names none, and the longest it may name, in seconds. */
export const SHELL_TIMEOUT_SECONDS = { default: 120, max: 600 } as const
/** Output characters kept: the first half and the last half of this many. */
export const SHELL_OUTPUT_CHARS = 30_000

/** The CLI's own model keys, which a command of the model has no business reading. */
const MODEL_KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']

/** Output of a command, kept to its first and last `SHELL_OUTPUT_CHARS / 2` characters. */
class CappedOutput {
  #head = ''
  #tail = ''
  #dropped = 0

  add(chunk: string): void {
    const half = SHELL_OUTPUT_CHARS / 2
    const room = half - this.#head.length
    if (room > 0) {
      this.#head += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    this.#tail += chunk
    if (this.#tail.length > half) {
      this.#dropped += this.#tail.length - half
      this.#tail = this.#tail.slice(-half)
    }
  }

  /** The output kept, saying how many characters were left out between its two halves. */
  text(): string {
    if (this.#dropped === 0) return this.#head + this.#tail
    return `${this.#head}\n[… ${this.#dropped.toLocaleString('en-US')} characters of output not kept …]\n${this.#tail}`
  }
}

/** Kills the process group `pid` leads; nothing when it is gone already. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // The group has no process left.
  }
}

/**
 * `shell`: runs a command with `/bin/sh -c` in the workspace root, as its own process group,
 * with stdin closed and the environment without the CLI's model keys (K2.17). It returns the
 * exit code and the output (stdout and stderr interleaved, kept to its first and last 15,000
 * characters, saying how much was left out). The whole process group is killed when the
 * command exits (nothing it started in the background outlives it), when it runs past its
 * deadline (`SHELL_TIMEOUT`, with the output so far) and when the call is aborted
 * (`SHELL_STOPPED`: Ctrl-C, SIGTERM, SIGHUP). The command is asked about unless allowed
 * (K2.19); the boundary guard reads its words as paths (K1.9).
 */
export const shellTool = workspaceTool({
  name: 'shell',
  description:
    'Run a shell command (sh -c) in the workspace root and return its exit code and output. ' +
    `It is stopped after timeout_seconds (default ${SHELL_TIMEOUT_SECONDS.default}).`,
  parameters: {
    command: { type: 'string', required: true, description: 'The command line, e.g. npm test' },
    timeout_seconds: {
      type: 'integer',
      minimum: 1,
      maximum: SHELL_TIMEOUT_SECONDS.max,
      description: `Seconds before the command is killed (default ${SHELL_TIMEOUT_SECONDS.default})`,
    },
  },
  fields: { exitCode: 'integer', output: 'string' },
  // A command line is code for a shell; the guard reads its words instead (`commandWords`).
  freeText: ['command'],
  text: (_args, value) => `exit code ${value.exitCode}\n${value.output}`.trimEnd(),
  meta: 'value',
  execute(args, run, workspace) {
    const seconds = args.timeout_seconds ?? SHELL_TIMEOUT_SECONDS.default
    const env = { ...process.env }
    for (const key of MODEL_KEYS) delete env[key]
    return new Promise((resolve, reject) => {
      run.signal.throwIfAborted()
      const child = spawn('/bin/sh', ['-c', args.command], {
        cwd: workspace.root,
        detached: true,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const output = new CappedOutput()
      let stopped: ToolError | undefined
      const stop = (error: ToolError) => {
        stopped ??= error
        killGroup(child.pid)
      }
      const onAbort = () =>
        stop(
          new ToolError(
            'SHELL_STOPPED',
            'the command was stopped with the run; it and every process it started were killed',
          ),
        )
      run.signal.addEventListener('abort', onAbort, { once: true })
      const timer = setTimeout(() => {
        stop(
          new ToolError(
            'SHELL_TIMEOUT',
            `the command ran longer than ${seconds} s, so it and every process it started were killed; ` +
              'pass a larger timeout_seconds if it needs longer',
          ),
        )
      }, seconds * 1000)
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk))
      // What the command left running in the background would hold the pipes open.
      child.on('exit', () => killGroup(child.pid))
      child.on('error', (error) =>
        stop(new ToolError('SHELL_FAILED', `the shell could not start: ${error.message}`)),
      )
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        run.signal.removeEventListener('abort', onAbort)
        if (stopped === undefined)
          return resolve({ exitCode: code ?? 128 + signalNumber(signal), output: output.text() })
        const said = output.text().trimEnd()
        reject(
          said === '' ? stopped : new ToolError(stopped.code, `${stopped.message}\noutput so far:\n${said}`),
        )
      })
    })
  },
  presentCall: (args) => ({ card: 'terminal', title: args.command, cwd: '.' }),
  presentResult: (args, result) => {
    const meta = result.meta as { exitCode?: number; output?: string } | undefined
    if (meta === undefined) return undefined
    return {
      card: 'terminal',
      title: args.command,
      ...(meta.output !== undefined ? { output: meta.output } : {}),
      ...(meta.exitCode !== undefined ? { exitCode: meta.exitCode } : {}),
    }
  },
})

/** A signal's number, as a shell reports a command it ended (`128 + n`); 1 when unknown. */
function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 1 : constants.signals[signal]
}
