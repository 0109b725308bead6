import {
  type CodeBinding,
  type CodeRunErrorKind,
  type CodeRunResult,
  type JsonValue,
  snapshotJson,
  TOOL_ARGS_NOT_LOSSLESS,
} from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import { ComputeWatch } from './compute-watch.js'
import { abortMessage, type LimitKind, limitMessage, type SandboxLimits } from './limits.js'
import type { WorkerMessage, WorkerOutcome } from './protocol.js'
import type { SandboxWorker, WorkerPool } from './worker-pool.js'

/** What one run needs from the runtime. */
export interface ProgramRunInput {
  /** The TypeScript program; the worker transpiles it (X8.13). */
  program: string
  /** The bindings visible at run start, by name. */
  bindings: ReadonlyMap<string, CodeBinding>
  signal: AbortSignal
  limits: SandboxLimits
  pool: WorkerPool
  /** `performance.now()` when `run` was called: the wall clock counts from there. */
  startedAt: number
}

const RESOLUTION_NOT_LOSSLESS = 'binding resolution must be lossless JSON'
const TOO_DEEP = 'binding resolution is nested too deeply to pass into the sandbox'
const COMPLETION_NOT_LOSSLESS = 'program completion must be lossless JSON'

/** A rejection as the guest will rebuild it: `name` and `message`, plus `toolName`/`code` when strings. */
function describeRejection(reason: unknown): {
  name: string
  message: string
  toolName?: string
  code?: string
} {
  const read = (key: string): string | undefined => {
    try {
      const value: unknown = (reason as Record<string, unknown>)[key]
      return typeof value === 'string' ? value : undefined
    } catch {
      return undefined
    }
  }
  if (reason === null || (typeof reason !== 'object' && typeof reason !== 'function'))
    return { name: 'Error', message: errorMessage(reason) }
  const info: { name: string; message: string; toolName?: string; code?: string } = {
    name: read('name') || 'Error',
    message: read('message') ?? errorMessage(reason),
  }
  const toolName = read('toolName')
  const code = read('code')
  if (toolName !== undefined) info.toolName = toolName
  if (code !== undefined) info.code = code
  return info
}

/**
 * One program run on the host side: it owns a worker, answers binding calls, collects logs,
 * enforces the wall clock, abort, output and pending budgets, backs up the compute budget,
 * and turns whatever happens into exactly one `CodeRunResult`. The worker goes back to the
 * pool only after a clean finish; after any forced stop it is terminated.
 */
export class ProgramRun {
  /** Settles once, with the run's outcome; never rejects. */
  readonly result: Promise<CodeRunResult>
  private resolveResult!: (result: CodeRunResult) => void
  private readonly logs: string[] = []
  private outputBytes = 0
  /** UTF-8 bytes of every call's arguments and settlement so far; minus what the program received, the pending bytes (X8.12). */
  private exchangedBytes = 0
  private settled = false
  private worker: SandboxWorker | undefined
  private wallTimer: NodeJS.Timeout | undefined
  private computeTimer: NodeJS.Timeout | undefined
  private readonly onAbort = () => this.stop('abort', abortMessage('run aborted', this.input.signal.reason))

  constructor(private readonly input: ProgramRunInput) {
    this.result = new Promise((resolve) => {
      this.resolveResult = resolve
    })
  }

  /** Starts the run; `result` settles later. */
  async start(names: string[]): Promise<void> {
    const { limits, signal } = this.input
    const remaining = Math.max(0, limits.wallMs - (performance.now() - this.input.startedAt))
    this.wallTimer = setTimeout(() => this.stop('wall-limit'), remaining)
    signal.addEventListener('abort', this.onAbort, { once: true })
    let worker: SandboxWorker
    try {
      worker = await this.input.pool.acquire()
    } catch (error) {
      this.settle({ kind: 'crash', message: `sandbox engine failed to load: ${errorMessage(error)}` })
      return
    }
    if (this.settled) {
      this.input.pool.release(worker)
      return
    }
    this.worker = worker
    worker.attach({
      message: (message) => this.onMessage(message),
      failure: (error) => this.onFailure(error),
    })
    worker.post({ type: 'run', program: this.input.program, names })
    const every = Math.min(100, Math.max(5, Math.floor(limits.computeMs / 20)))
    const watch = new ComputeWatch(worker.meters, limits.computeMs)
    this.computeTimer = setInterval(() => {
      if (watch.overBudget()) this.stop('compute-limit')
    }, every)
  }

  /** Ends the run from outside the worker (limits, abort, shutdown); the worker is terminated. */
  stop(kind: LimitKind): void
  stop(kind: CodeRunErrorKind, message: string): void
  stop(kind: CodeRunErrorKind, message?: string): void {
    if (this.settled) return
    this.settle({ kind, message: message ?? limitMessage(kind as LimitKind, this.input.limits) }, 'retire')
  }

  /**
   * Counts `bytes` more of binding data in flight and ends the run with `pending-limit` when
   * the pending total goes over the budget; true when the run goes on. The worker checks
   * arguments before posting them; settlements are checked only here, before posting.
   */
  private exchange(bytes: number): boolean {
    this.exchangedBytes += bytes
    const delivered = this.worker?.meters[2] ?? 0
    if (this.exchangedBytes - delivered <= this.input.limits.maxPendingBytes) return true
    this.stop('pending-limit')
    return false
  }

  private onMessage(message: WorkerMessage): void {
    if (this.settled) return
    if (message.type === 'log') {
      // As the worker's `lineCost` counts it (X8.9): the line's UTF-8 bytes plus its line break.
      const bytes = Buffer.byteLength(message.line) + 1
      if (this.outputBytes + bytes > this.input.limits.maxOutputBytes) this.stop('output-limit')
      else {
        this.outputBytes += bytes
        this.logs.push(message.line)
      }
    } else if (message.type === 'call') this.dispatch(message.id, message.name, message.args)
    else if (message.type === 'done') {
      const { error, value } = this.interpret(message.outcome)
      this.settle(error, message.retire || message.outcome.status === 'crash' ? 'retire' : 'release', value)
    }
  }

  private onFailure(error: Error | undefined): void {
    if ((error as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY')
      this.stop('memory-limit')
    else if (error !== undefined) this.stop('crash', `sandbox worker crashed: ${errorMessage(error)}`)
    else this.stop('crash', 'sandbox worker exited unexpectedly')
  }

  /** Answers one binding call: snapshot the arguments, call the host binding, snapshot what it settles with. */
  private dispatch(id: number, name: string, argsText: string): void {
    const reply = (ok: boolean, data: unknown) => {
      if (this.settled) return
      let text: string
      try {
        text = JSON.stringify(data)
      } catch {
        // Lossless but nested deeper than the host's JSON.stringify can go.
        text = JSON.stringify({ name: 'RangeError', message: TOO_DEEP })
        ok = false
      }
      if (this.exchange(Buffer.byteLength(text))) this.worker?.post({ type: 'settle', id, ok, text })
    }
    // Counted on arrival: the host holds the arguments until the program has its settlement.
    if (!this.exchange(Buffer.byteLength(argsText))) return
    const binding = this.input.bindings.get(name)
    if (binding === undefined) {
      reply(false, { name: 'TypeError', message: `no binding named ${name}` })
      return
    }
    let args: ReturnType<typeof snapshotJson>
    try {
      args = snapshotJson(JSON.parse(argsText))
    } catch {
      args = { ok: false, reason: 'unreadable' }
    }
    if (!args.ok) {
      reply(false, { name: 'TypeError', message: TOOL_ARGS_NOT_LOSSLESS })
      return
    }
    let settled: Promise<JsonValue>
    try {
      settled = Promise.resolve(binding(args.value))
    } catch (error) {
      settled = Promise.reject(error)
    }
    settled.then(
      (resolution) => {
        let snapshot: ReturnType<typeof snapshotJson>
        try {
          snapshot = snapshotJson(resolution)
        } catch {
          snapshot = { ok: false, reason: 'a getter threw' }
        }
        if (snapshot.ok) reply(true, snapshot.value)
        else reply(false, { name: 'TypeError', message: RESOLUTION_NOT_LOSSLESS })
      },
      (reason: unknown) => reply(false, describeRejection(reason)),
    )
  }

  /** The result a worker's outcome stands for; the completion is parsed and re-validated here. */
  private interpret(outcome: WorkerOutcome): Pick<CodeRunResult, 'error' | 'value'> {
    const limits = this.input.limits
    switch (outcome.status) {
      case 'value': {
        let snapshot: ReturnType<typeof snapshotJson>
        try {
          snapshot = snapshotJson(JSON.parse(outcome.text))
        } catch {
          snapshot = { ok: false, reason: 'unreadable' }
        }
        if (!snapshot.ok) return { error: { kind: 'invalid-output', message: COMPLETION_NOT_LOSSLESS } }
        if (this.outputBytes + Buffer.byteLength(outcome.text) > limits.maxOutputBytes)
          return { error: { kind: 'output-limit', message: limitMessage('output-limit', limits) } }
        return { value: snapshot.value }
      }
      case 'empty':
        return {}
      case 'exception':
        // The message leaves the sandbox too, so it counts as output (X8.16).
        if (this.outputBytes + Buffer.byteLength(outcome.message) > limits.maxOutputBytes)
          return { error: { kind: 'output-limit', message: limitMessage('output-limit', limits) } }
        return { error: { kind: 'exception', message: outcome.message } }
      case 'invalid-output':
        return { error: { kind: 'invalid-output', message: COMPLETION_NOT_LOSSLESS } }
      case 'limit':
        return { error: { kind: outcome.kind, message: limitMessage(outcome.kind, limits) } }
      case 'crash':
        return { error: { kind: 'crash', message: outcome.message } }
    }
  }

  private settle(
    error: CodeRunResult['error'],
    disposition: 'release' | 'retire' = 'retire',
    value?: CodeRunResult['value'],
  ): void {
    if (this.settled) return
    this.settled = true
    clearTimeout(this.wallTimer)
    clearInterval(this.computeTimer)
    this.input.signal.removeEventListener('abort', this.onAbort)
    const worker = this.worker
    if (worker !== undefined) {
      if (disposition === 'release') this.input.pool.release(worker)
      else this.input.pool.retire(worker)
    }
    const result: CodeRunResult = { logs: this.logs }
    if (value !== undefined) result.value = value
    if (error !== undefined) result.error = error
    this.resolveResult(result)
  }
}
