import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { SandboxLimits } from './limits.js'
import type { HostMessage, WorkerMessage, WorkerStart } from './protocol.js'

const WORKER_URL = new URL('./sandbox-worker.js', import.meta.url)

/** Node's WebAssembly API, which the ES library this project compiles against does not declare. */
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } })
  .WebAssembly

let compiledWasm: Promise<object> | undefined

/** The QuickJS WebAssembly module, compiled once per process and shared by every worker. */
function quickjsWasm(): Promise<object> {
  compiledWasm ??= (async () => {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')
    return wasmApi.compile(await readFile(path))
  })().catch((error: unknown) => {
    compiledWasm = undefined
    throw error
  })
  return compiledWasm
}

/** What a run listens to while it owns a worker. */
export interface WorkerListener {
  message(message: WorkerMessage): void
  /** The thread died: an uncaught error (with the error) or an exit (without). */
  failure(error: Error | undefined): void
}

/**
 * One sandbox thread. It serves one run at a time; the pool owns it while idle and a run
 * owns it while busy. Idle workers are `unref`ed so they never keep the process alive.
 */
export class SandboxWorker {
  /** The shared compute clock and delivered-bytes meter the worker writes (see `WorkerStart.meters`). */
  readonly meters: Float64Array
  /** Resolves once QuickJS is instantiated in the thread, or once the thread is gone. */
  readonly ready: Promise<void>
  private listener: WorkerListener | undefined
  private gone = false

  constructor(
    private readonly worker: Worker,
    meters: SharedArrayBuffer,
    onIdleExit: (worker: SandboxWorker) => void,
  ) {
    this.meters = new Float64Array(meters)
    let markReady!: () => void
    this.ready = new Promise((resolve) => {
      markReady = resolve
    })
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') markReady()
      else this.listener?.message(message)
    })
    worker.on('error', (error) => {
      this.gone = true
      markReady()
      this.listener?.failure(error)
    })
    worker.on('exit', () => {
      this.gone = true
      markReady()
      if (this.listener !== undefined) this.listener.failure(undefined)
      else onIdleExit(this)
    })
  }

  /** True once the thread has exited or failed. */
  get exited(): boolean {
    return this.gone
  }

  /** Hands the worker to a run: its messages and failures go to `listener`, and it keeps the process alive. */
  attach(listener: WorkerListener): void {
    this.listener = listener
    this.meters.fill(0)
    this.worker.ref()
  }

  /** Takes the worker back from its run. */
  detach(): void {
    this.listener = undefined
    this.worker.unref()
  }

  post(message: HostMessage): void {
    this.worker.postMessage(message)
  }

  /** Stops the thread wherever it is (a stuck native operation included). */
  terminate(): Promise<void> {
    this.listener = undefined
    this.gone = true
    return this.worker.terminate().then(
      () => undefined,
      () => undefined,
    )
  }
}

/**
 * A small pool of warm sandbox workers for one runtime (one set of limits). `acquire` takes
 * an idle worker or starts one; the pool tops itself up in the background.
 */
export class WorkerPool {
  private readonly idle: SandboxWorker[] = []
  private readonly starting = new Set<Promise<void>>()
  private closed = false
  private readonly stopping = new Set<Promise<void>>()

  constructor(private readonly limits: SandboxLimits) {}

  /**
   * A worker for one run; it is started now when none is idle. The pool is not topped up
   * here: a clean run gives its worker back, and only a retired worker is replaced, so a
   * run never competes with a background worker start. Rejects only when the engine cannot load.
   */
  async acquire(): Promise<SandboxWorker> {
    return this.idle.shift() ?? (await this.spawn())
  }

  /** Returns a worker after a clean run; it is kept only while the pool has room. */
  release(worker: SandboxWorker): void {
    worker.detach()
    if (this.closed || worker.exited || this.idle.length >= this.limits.poolSize) this.retire(worker)
    else this.idle.push(worker)
  }

  /** Stops a worker that must not run another program, and starts a replacement for the pool. */
  retire(worker: SandboxWorker): void {
    const stopped = worker.terminate()
    this.stopping.add(stopped)
    void stopped.then(() => this.stopping.delete(stopped))
    this.refill()
  }

  /** Fills the pool and resolves when its workers are ready. */
  async warm(): Promise<void> {
    this.refill()
    await Promise.all(this.starting)
  }

  /** Stops every idle worker and every later one; resolves when their threads are gone. */
  async close(): Promise<void> {
    this.closed = true
    for (const worker of this.idle.splice(0)) this.retire(worker)
    await Promise.all(this.starting)
    await Promise.all(this.stopping)
  }

  private refill(): void {
    while (!this.closed && this.idle.length + this.starting.size < this.limits.poolSize) {
      // A starting worker keeps the process alive until it is ready, so `warm()` can be awaited.
      const started: Promise<void> = this.spawn().then(
        async (worker) => {
          await worker.ready
          this.starting.delete(started)
          worker.detach()
          if (this.closed) this.retire(worker)
          else this.idle.push(worker)
        },
        () => {
          this.starting.delete(started)
        },
      )
      this.starting.add(started)
    }
  }

  private async spawn(): Promise<SandboxWorker> {
    const wasmModule = await quickjsWasm()
    const meters = new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT)
    const workerData: WorkerStart = {
      wasmModule,
      meters,
      limits: {
        computeMs: this.limits.computeMs,
        memoryBytes: this.limits.memoryBytes,
        maxOutputBytes: this.limits.maxOutputBytes,
        maxPendingBytes: this.limits.maxPendingBytes,
      },
    }
    const thread = new Worker(WORKER_URL, {
      workerData,
      // The thread gets no environment and no loader flags of the host process.
      env: {},
      argv: [],
      execArgv: [],
      resourceLimits: {
        maxOldGenerationSizeMb: 64 + 2 * Math.ceil(this.limits.memoryBytes / 2 ** 20),
        // Deep enough that QuickJS's own 1 MiB stack check always fires first (X8.15).
        stackSizeMb: 64,
      },
    })
    return new SandboxWorker(thread, meters, (gone) => {
      const index = this.idle.indexOf(gone)
      if (index >= 0) this.idle.splice(index, 1)
    })
  }
}
