// @ts-check
/**
 * The sandbox worker: one QuickJS WebAssembly instance, one program at a time, each in a
 * fresh QuickJS runtime and context. Plain JavaScript so Node loads it unchanged from `src/`
 * (tests) and from `dist/` (CLI, benchmarks).
 *
 * The wasm memory is created here with a hard maximum, and that maximum is the memory limit
 * (X8.14): QuickJS's own allocator accounting is not used, because this build counts only 8
 * bytes per allocation. A refused growth of that memory is the only evidence of running out
 * of memory, so a program cannot fake it. The host terminates this thread for the wall
 * clock, aborts, and compute spent inside native operations the interrupt handler never sees.
 */
import { parentPort, workerData } from 'node:worker_threads'
import RELEASE_SYNC_VARIANT from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { guestSetup } from './guest-prelude.js'
import { cutLine, lineCost } from './output-budget.js'
import { transpileProgram } from './transpile.js'

/** @typedef {import('./protocol.js').WorkerStart} WorkerStart */
/** @typedef {import('./protocol.js').HostMessage} HostMessage */
/** @typedef {import('./protocol.js').WorkerMessage} WorkerMessage */
/** @typedef {import('./protocol.js').WorkerOutcome} WorkerOutcome */
/** @typedef {import('quickjs-emscripten-core').QuickJSRuntime} QuickJSRuntime */
/** @typedef {import('quickjs-emscripten-core').QuickJSContext} QuickJSContext */
/** @typedef {import('quickjs-emscripten-core').QuickJSHandle} QuickJSHandle */

const PAGE = 65536
/** The memory the module starts with (its declared minimum). */
const INITIAL_BYTES = 16 * 2 ** 20
/** Memory the engine needs besides the program's heap: its 5 MiB stack, static data and runtime. */
const ENGINE_BYTES = 6 * 2 ** 20
/** A worker whose wasm memory grew past this after a run is replaced (wasm memory never shrinks). */
const RECYCLE_BYTES = 64 * 2 ** 20
/**
 * QuickJS's stack limit. The host gives this thread a 64 MiB native stack, so QuickJS's own
 * check fires first even for the parser and `JSON.parse`, whose recursion takes far more of
 * the native stack than of QuickJS's (X8.15).
 */
const STACK_BYTES = 2 ** 20
const PRELUDE = `(${guestSetup.toString()})`

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
const start = /** @type {WorkerStart} */ (workerData)
const { limits } = start
const meters = new Float64Array(start.meters)
const maximumPages = Math.min(
  32768,
  Math.ceil(Math.max(INITIAL_BYTES, limits.memoryBytes + ENGINE_BYTES) / PAGE),
)
/** @type {import('quickjs-emscripten-core').QuickJSSyncVariant} */
const RELEASE_SYNC = /** @type {any} */ (RELEASE_SYNC_VARIANT)
/** Node's WebAssembly API (the ES library this project compiles against does not declare it). */
const wasm = /** @type {any} */ (globalThis).WebAssembly
const wasmMemory = new wasm.Memory({ initial: INITIAL_BYTES / PAGE, maximum: maximumPages })
/** True while the latest request to grow the wasm memory was refused: the heap is out of memory. */
let growthRefused = false
const growMemory = wasmMemory.grow.bind(wasmMemory)
// The engine's heap grows only through this method; wrapping it observes every refusal.
wasmMemory.grow = (/** @type {number} */ pages) => {
  try {
    const previous = growMemory(pages)
    growthRefused = false
    return previous
  } catch (error) {
    growthRefused = true
    throw error
  }
}
const quickjs = await newQuickJSWASMModuleFromVariant(
  newVariant(RELEASE_SYNC, { wasmModule: start.wasmModule, wasmMemory }),
)

/** @param {WorkerMessage} message */
function post(message) {
  port.postMessage(message)
}

const now = () => performance.now()

/**
 * The outcome of an error the program did not catch. It is `memory-limit` only when it looks
 * like the engine's out-of-memory error (`null` or `InternalError: out of memory`) and the
 * heap really could not grow, so a program throwing a look-alike gets its exception (X8.14).
 * @param {string} message
 * @param {boolean} looksOutOfMemory
 * @returns {WorkerOutcome}
 */
function uncaught(message, looksOutOfMemory) {
  return looksOutOfMemory && growthRefused
    ? { status: 'limit', kind: 'memory-limit' }
    : { status: 'exception', message }
}

/** Text the guest sent JSON-encoded, so lone surrogates survive the bridge (X8.18). @param {string} json */
function decodeText(json) {
  try {
    const text = JSON.parse(json)
    return typeof text === 'string' ? text : json
  } catch {
    return json
  }
}

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
    /** Slices begun so far: the number the host sees for the running one (X8.20). */
    this.slices = 0
    this.outputBytes = 0
    this.nextCallId = 0
    /** @type {Map<number, number>} argument bytes of each call whose settlement the program has not received */
    this.pendingArgs = new Map()
    this.pendingArgBytes = 0
    /** @type {WorkerOutcome | undefined} set once: the program completed or was stopped */
    this.outcome = undefined
    /** False while the context is prepared ahead of its run: only the prelude (ours) runs then. */
    this.started = false
    this.rt.setMemoryLimit(-1)
    this.rt.setMaxStackSize(STACK_BYTES)
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
      const args = ctx.getString(argsHandle)
      const bytes = Buffer.byteLength(args)
      // Checked before posting, so arguments over the budget never reach the host (X8.12).
      if (this.pendingArgBytes + bytes > limits.maxPendingBytes) {
        this.outcome = { status: 'limit', kind: 'pending-limit' }
        return ctx.newNumber(-1)
      }
      const id = ++this.nextCallId
      this.pendingArgs.set(id, bytes)
      this.pendingArgBytes += bytes
      post({ type: 'call', id, name: ctx.getString(nameHandle), args })
      return ctx.newNumber(id)
    })
    const hostLog = ctx.newFunction('log', (lineHandle) => {
      if (this.outcome !== undefined || ctx.typeof(lineHandle) !== 'string') return
      const line = decodeText(ctx.getString(lineHandle))
      const room = limits.maxOutputBytes - this.outputBytes
      const cost = lineCost(line)
      if (cost <= room) {
        this.outputBytes += cost
        post({ type: 'log', line })
        return
      }
      // The line that overflows keeps the prefix that fits, marked as cut (X8.17).
      const cut = cutLine(line, room)
      if (cut !== undefined) {
        this.outputBytes += lineCost(cut)
        post({ type: 'log', line: cut })
      }
      this.outcome = { status: 'limit', kind: 'output-limit' }
    })
    const hostDone = ctx.newFunction('done', (statusHandle, textHandle) => {
      if (this.outcome !== undefined) return
      const status = ctx.getNumber(statusHandle)
      const text = ctx.getString(textHandle)
      if (status === 1) this.outcome = { status: 'value', text }
      else if (status === 2) this.outcome = { status: 'invalid-output' }
      else if (status === 3) this.outcome = { status: 'empty' }
      else if (status === 5)
        this.outcome = growthRefused
          ? { status: 'limit', kind: 'memory-limit' }
          : { status: 'invalid-output' }
      else this.outcome = uncaught(decodeText(text), status === 4)
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
    this.fail(result.error)
    return undefined
  }

  /** Records an error that reached the engine's top level, unless the run already has an outcome. @param {QuickJSHandle} error */
  fail(error) {
    const message = this.describe(error)
    error.dispose()
    this.outcome ??= uncaught(
      message,
      message === 'InternalError: out of memory' || message === 'Uncaught null',
    )
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
        this.fail(result.error)
        return
      }
      if (result.value === 0) return
    }
  }

  beginSlice() {
    this.started = true
    this.sliceStart = now()
    meters[1] = ++this.slices
  }

  endSlice() {
    this.usedMs += now() - this.sliceStart
    meters[0] = this.usedMs
    meters[1] = 0
  }

  /**
   * Hands a binding settlement to the program; its call's bytes stop being pending (X8.12).
   * @param {number} id @param {boolean} ok @param {string} text
   */
  receive(id, ok, text) {
    const argBytes = this.pendingArgs.get(id)
    if (argBytes === undefined) return
    this.pendingArgs.delete(id)
    this.pendingArgBytes -= argBytes
    meters[2] = /** @type {number} */ (meters[2]) + argBytes + Buffer.byteLength(text)
    this.callControl([1, id, ok, text])
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
  if (run.outcome === undefined && run.pendingArgs.size > 0) return
  /** @type {WorkerOutcome} */
  let outcome = run.outcome ?? {
    status: 'exception',
    message: 'the program can never finish: it awaits a promise that nothing will settle',
  }
  // The exception message leaves the sandbox too, so it counts as output (X8.16).
  if (
    outcome.status === 'exception' &&
    run.outputBytes + Buffer.byteLength(outcome.message) > limits.maxOutputBytes
  )
    outcome = { status: 'limit', kind: 'output-limit' }
  current = undefined
  const clean = run.dispose()
  const retire = !clean || wasmMemory.buffer.byteLength > RECYCLE_BYTES
  post({ type: 'done', outcome, retire })
  if (!retire) setImmediate(prepare)
}

/**
 * A thrown host exception means the wasm module itself failed: report it and never reuse
 * this worker. Overflowing this thread's native stack is still the program's own stack
 * overflow (X8.15); a full or unable-to-grow heap is the memory limit.
 */
function moduleFailure(/** @type {unknown} */ error) {
  current = undefined
  meters[1] = 0
  const full = growthRefused || wasmMemory.buffer.byteLength >= maximumPages * PAGE
  /** @type {WorkerOutcome} */
  const outcome =
    error instanceof RangeError && error.message === 'Maximum call stack size exceeded'
      ? { status: 'exception', message: 'InternalError: stack overflow' }
      : full
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
      growthRefused = false
      // Transpiling is not program code: it runs before the compute clock, under the wall clock.
      const transpiled = transpileProgram(message.program)
      run.beginSlice()
      if (!transpiled.ok) run.outcome = { status: 'exception', message: transpiled.message }
      if (run.control === undefined && run.outcome === undefined) run.install()
      if (run.control !== undefined && run.outcome === undefined)
        run.callControl([2, JSON.stringify(message.names)])
      if (run.control !== undefined && run.outcome === undefined && transpiled.ok) {
        const { ctx } = run
        const program = run.unwrap(ctx.evalCode(transpiled.code, 'program.ts'))
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
      run.beginSlice()
      run.receive(message.id, message.ok, message.text)
      run.drain()
      afterSlice(run)
    }
  } catch (error) {
    moduleFailure(error)
  }
})

// The first transform of a fresh thread is slow (cold code); pay it before reporting ready.
transpileProgram('const warm: number = 1')
prepare()
post({ type: 'ready' })
