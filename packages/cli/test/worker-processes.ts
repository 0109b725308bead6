/**
 * `tooltx worker` processes for the worker tests: spawned from the built CLI against a fake
 * model, with their output collected line by line so a test can wait for a job's line.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { BIN, cleanEnv, SAMPLE } from './cli-harness.js'

/** A running `tooltx worker`: its process and the lines it printed. */
export interface WorkerProcess {
  readonly proc: ChildProcess
  readonly lines: string[]
  /** Resolves with the first line (printed so far or later) that `match` accepts. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>
}

/** Options of `startWorker`: the database, queue and fake model, and the worker's own flags. */
export interface WorkerSetup {
  db: string
  queue: string
  baseURL: string
  flags?: string[]
}

/** Starts `tooltx worker` over the sample workspace (read-only tools only are called). */
export function startWorker(setup: WorkerSetup): WorkerProcess {
  const args = [
    BIN,
    'worker',
    '--db',
    setup.db,
    '--queue',
    setup.queue,
    '--provider',
    'openai',
    '--base-url',
    setup.baseURL,
    '--workspace',
    SAMPLE,
    ...(setup.flags ?? []),
  ]
  const proc = spawn(process.execPath, args, {
    env: cleanEnv({ OPENAI_API_KEY: 'test-key' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const waiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>()
  const take = (stream: NodeJS.ReadableStream, prefix: string) => {
    let buffer = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      buffer += chunk
      let nl = buffer.indexOf('\n')
      while (nl !== -1) {
        const line = prefix + buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        lines.push(line)
        for (const w of waiters) {
          if (w.match(line)) {
            waiters.delete(w)
            w.resolve(line)
          }
        }
        nl = buffer.indexOf('\n')
      }
    })
  }
  take(proc.stdout!, '')
  take(proc.stderr!, 'stderr: ')
  const exited = new Promise<number | string>((resolve) => {
    proc.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'))
  })
  return {
    proc,
    lines,
    exited,
    waitFor(match, timeoutMs = 30_000) {
      const found = lines.find(match)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const entry = { match, resolve }
        waiters.add(entry)
        setTimeout(() => {
          if (waiters.delete(entry))
            reject(new Error(`no matching worker line in ${timeoutMs} ms; it printed:\n${lines.join('\n')}`))
        }, timeoutMs).unref()
      })
    },
  }
}

/** What `tooltx worker` printed about one job: `job <submission> <session>: <result> (<plan>)[ — reason]`. */
export interface JobLine {
  readonly submission: string
  readonly session: string
  readonly result: 'done' | 'waiting' | 'handed-back' | 'failed'
  readonly plan?: 'answered' | 'resume' | 'fresh'
  readonly reason?: string
}

const JOB_LINE =
  /^job (\S+) (\S+): (done|waiting|handed-back|failed)(?: \((answered|resume|fresh)\))?(?: — (.*))?$/

/** The job lines among a worker's printed lines (N2.2's report results), in order. */
export function jobLines(lines: readonly string[]): JobLine[] {
  return lines.flatMap((line) => {
    const match = JOB_LINE.exec(line)
    if (match === null) return []
    const [, submission, session, result, plan, reason] = match
    return [
      {
        submission: submission!,
        session: session!,
        result: result as JobLine['result'],
        ...(plan === undefined ? {} : { plan: plan as NonNullable<JobLine['plan']> }),
        ...(reason === undefined ? {} : { reason }),
      },
    ]
  })
}

/** The next step of a stateless fake model: tool calls after a user message, text after tool results. */
export function lastRole(request: { messages: { role: string }[] }): string | undefined {
  return request.messages.at(-1)?.role
}
