// @ts-check
/**
 * The sandbox worker: one QuickJS WebAssembly instance, one program at a time, each in a
 * fresh QuickJS runtime and context. Plain JavaScript so Node loads it unchanged from `src/`
 * (tests) and from `dist/` (CLI, benchmarks).
 *
 * The wasm memory is created here with a hard maximum, so no allocation QuickJS forgets to
 * count can grow the process past the limit; the host terminates this thread for the wall
 * clock, aborts, and compute spent inside native operations the interrupt handler never sees.
 */
import { parentPort, workerData } from 'node:worker_threads'
import RELEASE_SYNC_VARIANT from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { guestSetup } from './guest-prelude.js'

/** @typedef {import('./protocol.js').WorkerStart} WorkerStart */
/** @typedef {import('./protocol.js').HostMessage} HostMessage */
/** @typedef {import('./protocol.js').WorkerMessage} WorkerMessage */
/** @typedef {import('./protocol.js').WorkerOutcome} WorkerOutcome */
/** @typedef {import('quickjs-emscripten-core').QuickJSRuntime} QuickJSRuntime */
/** @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext */
/** @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle */

const PAGE = 65536
/** Memory the module needs besides the program's heap: its stack, static data and allocator slack. */
const BASELINE_BYTES = 16 * 2 ** 20
/** A worker whose wasm memory grew past this after a run is replaced (wasm memory never shrinks). */
const RECYCLE_BYTES = 64 * 2 ** 20
const PRELUDE = `(${guestSetup.toString()})`

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
const start = /** @type {WorkerStart} */ (workerData)
const { limits } = start
const clock = new Float64Array(start.clock)
const maximumPages = Math.min(32768, Math.ceil((limits.memoryBytes + BASELINE_BYTES) / PAGE))
/** @type {import('quickjs-emscripten-core').QuickJSSyncVariant} */
const RELEASE_SYNC = /** @type {any} */ (RELEASE_SYNC_VARIANT)
/** Node's WebAssembly API (the ES library this project compiles against does not declare it). */
const wasm = /** @type {any} */ (globalThis).WebAssembly
const wasmMemory = new wasm.Memory({ initial: BASELINE_BYTES / PAGE, maximum: maximumPages })
const quickjs = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmModule: start.wasmModule, wasmMemory }),
)

/** @param {WorkerMessage} message */
function post(message) {
  port.postMessage(message)
}

const now = () => performance.timeOrigin + performance.now()

/**
 * Everything one run owns. Every QuickJS handle it creates is disposed by `finish`, on
 * every path, because one leaked handle aborts the whole module when the runtime is freed.
 */
class Run {
  constructor() {
    /** @type {QuickJSRuntime} */
    this.rt = quickjs.newRuntime()
    /** @type {QuickJSContext} */
    this.ctx = this.rt.newContext()
    /** @type {QuickJSHandle | undefined} */
    this.control = undefined
    this.usedMs = 0
    this.sliceStart = 0
    this.outputBytes = 0
    this.nextCallId = 0
    this.pendingCalls = 0
    /** @type {WorkerOutcome | undefined} set once: the program completed or was stopped */
    this.outcome = undefined
    /** False while the context is prepared ahead of its run: only the prelude (ours) runs then. */
    this.started = false
    this.rt.setMemoryLimit(limits.memoryBytes)
    this.rt.setInterruptHandler(() => {
      if (!this.started) return false
      if (this.outcome !== undefined) return true
      if (this.usedMs + (now() - this.sliceStart) > limits.computeMs) {
        this.outcome = { status: 'limit', kind: 'compute-limit' }
        return true
      }
      return false
    })
  }

  /** Installs the bridge; afterwards `control` holds the guest's control function (unless it failed). */
  install() {
    const { ctx } = this
    const hostCall = ctx.newFunction('call', (nameHandle, argsHandle) => {
      if (
        this.outcome !== undefined ||
        ctx.typeof(nameHandle) !== 'string' ||
        ctx.typeof(argsHandle) !== 'string'
      )
        return ctx.newNumber(-1)
      const id = ++this.nextCallId
      this.pendingCalls++
      post({ type: 'call', id, name: ctx.getString(nameHandle), args: ctx.getString(argsHandle) })
      return ctx.newNumber(id)
    })
    const hostLog = ctx.newFunction('log', (lineHandle) => {
      if (this.outcome !== undefined || ctx.typeof(lineHandle) !== 'string') return
      const line = ctx.getString(lineHandle)
      this.outputBytes += Buffer.byteLength(line)
      if (this.outputBytes > limits.maxOutputBytes) this.outcome = { status: 'limit', kind: 'output-limit' }
      else post({ type: 'log', line })
    })
    const hostDone = ctx.newFunction('done', (statusHandle, textHandle) => {
      if (this.outcome !== undefined) return
      const status = ctx.getNumber(statusHandle)
      const text = ctx.getString(textHandle)
      if (status === 1) this.outcome = { status: 'value', text }
      else if (status === 2) this.outcome = { status: 'invalid-output' }
      else if (status === 3) this.outcome = { status: 'empty' }
      else if (status === 4) this.outcome = { status: 'limit', kind: 'memory-limit' }
      else this.outcome = { status: 'exception', message: text }
    })
    try {
      const setup = this.unwrap(ctx.evalCode(PRELUDE, 'prelude.js'))
      if (setup === undefined) return
      try {
        this.control = this.unwrap(ctx.callFunction(setup, ctx.undefined, hostCall, hostLog, hostDone))
      } finally {
        setup.dispose()
      }
    } finally {
      hostDone.dispose()
      hostLog.dispose()
      hostCall.dispose()
    }
  }

  /**
   * The value of a QuickJS call, or `undefined` after recording why it failed (an
   * interrupt, out of memory, or an exception such as a syntax error in the program).
   * @param {import('quickjs-emscripten-core').VmCallResult<QuickJSHandle>} result
   */
  unwrap(result) {
    if (result.error === undefined) return result.value
    const message = this.describe(result.error)
    result.error.dispose()
    if (this.outcome === undefined) {
      this.outcome =
        message === 'InternalError: out of memory'
          ? { status: 'limit', kind: 'memory-limit' }
          : { status: 'exception', message }
    }
    return undefined
  }

  /** A guest error as `Name: message`, never throwing. @param {QuickJSHandle} handle */
  describe(handle) {
    try {
      const dumped = this.ctx.dump(handle)
      if (dumped !== null && typeof dumped === 'object' && typeof dumped.message === 'string') {
        const name = typeof dumped.name === 'string' ? dumped.name : 'Error'
        return `${name}: ${dumped.message}`
      }
      return `Uncaught ${String(dumped)}`
    } catch {
      return 'Uncaught <unprintable thrown value>'
    }
  }

  /** Calls the guest control function with fresh argument handles, disposing all of them. */
  callControl(/** @type {(number | string | boolean)[]} */ args) {
    const { ctx } = this
    const handles = args.map((a) =>
      typeof a === 'number'
        ? ctx.newNumber(a)
        : typeof a === 'string'
          ? ctx.newString(a)
          : a
            ? ctx.true
            : ctx.false,
    )
    try {
      this.unwrap(
        ctx.callFunction(/** @type {QuickJSHandle} */ (this.control), ctx.undefined, ...handles),
      )?.dispose()
    } finally {
      for (const h of handles) h.dispose()
    }
  }

  /** Runs queued jobs until none are left or the run has an outcome. */
  drain() {
    while (this.outcome === undefined) {
      const result = this.rt.executePendingJobs()
      if (result.error !== undefined) {
        const message = this.describe(result.error)
        result.error.dispose()
        if (this.outcome === undefined) {
          this.outcome =
            message === 'InternalError: out of memory'
              ? { status: 'limit', kind: 'memory-limit' }
              : { status: 'exception', message }
        }
        return
      }
      if (result.value === 0) return
    }
  }

  beginSlice() {
    this.started = true
    this.sliceStart = now()
    clock[1] = this.sliceStart
  }

  endSlice() {
    this.usedMs += now() - this.sliceStart
    clock[0] = this.usedMs
    clock[1] = 0
  }

  /** Frees the QuickJS runtime; false when that failed (the module may be corrupt). */
  dispose() {
    try {
      this.control?.dispose()
      this.ctx.dispose()
      this.rt.dispose()
      return true
    } catch {
      return false
    }
  }
}

/** @type {Run | undefined} */
let current
/**
 * The next run's context, created and bridged while the worker is idle: evaluating the
 * prelude is most of a run's start-up cost. It has never run program code, so every run
 * still gets a fresh sandbox (X8.10).
 * @type {Run | undefined}
 */
let prepared

function prepare() {
  if (prepared !== undefined || current !== undefined) return
  try {
    const run = new Run()
    run.install()
    prepared = run
  } catch (error) {
    moduleFailure(error)
  }
}

/**
 * After a slice: report the outcome and free the run, or keep waiting for binding results.
 * A program with no outcome and no call in flight can never finish: nothing can settle it.
 */
function afterSlice(/** @type {Run} */ run) {
  run.endSlice()
  if (run.outcome === undefined && run.pendingCalls > 0) return
  const outcome = run.outcome ?? {
    status: 'exception',
    message: 'the program can never finish: it awaits a promise that nothing will settle',
  }
  current = undefined
  const clean = run.dispose()
  const retire = !clean || wasmMemory.buffer.byteLength > RECYCLE_BYTES
  post({ type: 'done', outcome, retire })
  if (!retire) setImmediate(prepare)
}

/** A thrown host exception means the wasm module itself failed: report it and never reuse this worker. */
function moduleFailure(/** @type {unknown} */ error) {
  current = undefined
  clock[1] = 0
  const full = wasmMemory.buffer.byteLength >= maximumPages * PAGE
  /** @type {WorkerOutcome} */
  const outcome = full
    ? { status: 'limit', kind: 'memory-limit' }
    : {
        status: 'crash',
        message: `sandbox engine failed: ${error instanceof Error ? error.message : String(error)}`,
      }
  post({ type: 'done', outcome, retire: true })
}

port.on('message', (/** @type {HostMessage} */ message) => {
  try {
    if (message.type === 'run') {
      const run = prepared ?? new Run()
      prepared = undefined
      current = run
      run.beginSlice()
      if (run.control === undefined) run.install()
      if (run.control !== undefined) run.callControl([2, JSON.stringify(message.names)])
      if (run.control !== undefined && run.outcome === undefined) {
        const { ctx } = run
        const program = run.unwrap(ctx.evalCode(message.code, 'program.ts'))
        if (program !== undefined) {
          const op = ctx.newNumber(0)
          try {
            run.unwrap(ctx.callFunction(run.control, ctx.undefined, op, program))?.dispose()
          } finally {
            op.dispose()
            program.dispose()
          }
        }
      }
      run.drain()
      afterSlice(run)
    } else if (message.type === 'settle') {
      const run = current
      if (run === undefined) return
      run.pendingCalls--
      run.beginSlice()
      run.callControl([1, message.id, message.ok, message.text])
      run.drain()
      afterSlice(run)
    }
  } catch (error) {
    moduleFailure(error)
  }
})

prepare()
post({ type: 'ready' })
