import type { CodeBinding, CodeRunRequest, CodeRunResult, CodeRuntime } from '@tooltx/core'
import { invariantError } from '@tooltx/core/internal'
import {
  abortMessage,
  programTooLarge,
  type QuickJSRuntimeOptions,
  resolveLimits,
  type SandboxLimits,
} from './limits.js'
import { ProgramRun } from './program-run.js'
import { WorkerPool } from './worker-pool.js'

/** A `CodeRuntime` backed by QuickJS in worker threads, with a warm pool to manage. */
export interface QuickJSCodeRuntime extends CodeRuntime {
  /** The limits every run of this runtime gets. */
  readonly limits: Readonly<SandboxLimits>
  /** Starts the warm pool and resolves once its workers are ready (optional; runs start it anyway). */
  warm(): Promise<void>
  /**
   * Terminates every worker; runs still going end with kind `abort`. Later `run` calls
   * reject. Resolves once the threads are gone. Idempotent.
   */
  close(): Promise<void>
}

const BAD_REQUEST =
  'a code runtime request needs a string program, an object of binding functions and an AbortSignal'

/** The request's bindings as a map, or `undefined` when the request is malformed. */
function readRequest(
  request: unknown,
): { program: string; bindings: Map<string, CodeBinding>; signal: AbortSignal } | undefined {
  if (request === null || typeof request !== 'object') return undefined
  const { program, bindings, signal } = request as Partial<CodeRunRequest>
  if (typeof program !== 'string') return undefined
  if (bindings === null || typeof bindings !== 'object') return undefined
  if (
    signal === null ||
    typeof signal !== 'object' ||
    typeof signal.aborted !== 'boolean' ||
    typeof signal.addEventListener !== 'function'
  )
    return undefined
  const map = new Map<string, CodeBinding>()
  for (const name of Object.keys(bindings)) {
    const binding: unknown = bindings[name]
    if (typeof binding !== 'function') return undefined
    map.set(name, binding as CodeBinding)
  }
  return { program, bindings: map, signal }
}

class QuickJSSandbox implements QuickJSCodeRuntime {
  readonly language = 'typescript'
  readonly isolation = 'quickjs-wasm-worker'
  readonly limits: Readonly<SandboxLimits>
  private readonly pool: WorkerPool
  private readonly active = new Set<ProgramRun>()
  private closed = false

  constructor(options: QuickJSRuntimeOptions | undefined) {
    this.limits = Object.freeze(resolveLimits(options))
    this.pool = new WorkerPool(this.limits)
  }

  async run(request: CodeRunRequest): Promise<CodeRunResult> {
    const startedAt = performance.now()
    if (this.closed) throw invariantError('quickjsRuntime.run called after close()')
    let read: ReturnType<typeof readRequest>
    try {
      read = readRequest(request)
    } catch {
      read = undefined
    }
    if (read === undefined) throw invariantError(BAD_REQUEST)
    if (read.signal.aborted) {
      const message = abortMessage('run aborted before it started', read.signal.reason)
      return { logs: [], error: { kind: 'abort', message } }
    }
    // Checked before any worker is involved; transpiling happens in the worker (X8.13).
    const programBytes = Buffer.byteLength(read.program)
    if (programBytes > this.limits.maxProgramBytes)
      return { logs: [], error: { kind: 'exception', message: programTooLarge(programBytes, this.limits) } }
    const run = new ProgramRun({
      program: read.program,
      bindings: read.bindings,
      signal: read.signal,
      limits: this.limits,
      pool: this.pool,
      startedAt,
    })
    this.active.add(run)
    void run.start([...read.bindings.keys()])
    try {
      return await run.result
    } finally {
      this.active.delete(run)
    }
  }

  warm(): Promise<void> {
    return this.closed ? Promise.resolve() : this.pool.warm()
  }

  async close(): Promise<void> {
    this.closed = true
    for (const run of this.active) run.stop('abort', 'the sandbox runtime was closed')
    await this.pool.close()
  }
}

/**
 * Creates the QuickJS code runtime (X8): each program runs in a fresh QuickJS context inside
 * a worker thread, with `tools` and `console` as its only capabilities, under the compute,
 * wall-clock, memory and output limits of X8.3 (defaults 60 s, 600 s, 512 MiB, 64 MiB), the
 * pending binding data limit of X8.12 (64 MiB) and the program size limit of X8.13 (256 KiB).
 * `run` resolves for every program outcome and rejects only for a malformed request or use
 * after `close()`. Throws `INVALID_DEFINITION` for a bad option.
 */
export function quickjsRuntime(options?: QuickJSRuntimeOptions): QuickJSCodeRuntime {
  return new QuickJSSandbox(options)
}
