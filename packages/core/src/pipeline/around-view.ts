/**
 * The execution as wrapExecute handlers see it (I1.8): the same identity values, read-only,
 * plus a writable `signal` that accepts only an `AbortSignal` and cannot be deleted.
 */
import type { AnyToolDefinition } from '../definition.js'
import type { AroundExecution } from '../hooks.js'
import { TargetStamp } from '../target-stamp.js'
import type { Call } from './call.js'

/**
 * What an around view carries besides its own properties: the call behind it and its current
 * signal, as private fields stamped on the view before it is frozen (not a `WeakMap`, for the
 * cost measured in target-stamp.ts).
 */
class ViewState extends TargetStamp {
  readonly #call: Call
  #signal: AbortSignal

  constructor(view: object, call: Call) {
    super(view)
    this.#call = call
    this.#signal = call.exec.signal
  }

  static callOf(exec: unknown): Call | undefined {
    return typeof exec === 'object' && exec !== null && #call in exec ? exec.#call : undefined
  }

  static signalOf(view: unknown): AbortSignal {
    if (typeof view !== 'object' || view === null || !(#signal in view)) throw notAView()
    return view.#signal
  }

  static setSignal(view: unknown, signal: unknown): void {
    if (!(signal instanceof AbortSignal)) throw new TypeError('exec.signal only accepts an AbortSignal')
    if (typeof view !== 'object' || view === null || !(#signal in view)) throw notAView()
    view.#signal = signal
  }
}

const notAView = () => new TypeError('exec.signal accessed on an object that is not an around view')

/**
 * The `signal` property of every around view: one getter and one setter shared by all views,
 * reading the view's own state through `this`. Per-view closures gave each view its own V8
 * map (an accessor pair is part of the map), several times dearer per call with a wrapper
 * (bench/pipeline.bench.ts, Pipeline hot-path mechanisms).
 */
const SIGNAL_PROPERTY: PropertyDescriptor = Object.freeze({
  enumerable: true,
  configurable: false,
  get(this: unknown): AbortSignal {
    return ViewState.signalOf(this)
  },
  set(this: unknown, signal: unknown): void {
    ViewState.setSignal(this, signal)
  },
})

/** Creates the frozen around view of `call`; its `signal` starts as the caller's signal. */
export function createAroundView(call: Call): AroundExecution {
  const { exec } = call
  const view: Record<string, unknown> = { callId: exec.callId, rootCallId: exec.rootCallId, name: exec.name }
  if ('arguments' in exec) view.arguments = exec.arguments
  if (exec.scope !== undefined) view.scope = exec.scope
  if (exec.provenance !== undefined) view.provenance = exec.provenance
  if (exec.parent !== undefined) view.parent = exec.parent
  view.token = exec.token
  Object.defineProperty(view, 'signal', SIGNAL_PROPERTY)
  new ViewState(view, call)
  Object.freeze(view)
  return view as unknown as AroundExecution
}

/**
 * The definition visible now in the view of the call behind an around view (used by the
 * built-in wrappers, P7.2); `undefined` when none is visible or `exec` is not an around view.
 */
export function visibleDefinition(exec: unknown): AnyToolDefinition | undefined {
  return ViewState.callOf(exec)?.resolve()?.def
}

/** The caller's signal of the call behind an around view (P7.7), or `undefined`. */
export function callerSignal(exec: unknown): AbortSignal | undefined {
  return ViewState.callOf(exec)?.signal
}

/** Whether some attempt of the call behind an around view invoked its body (C1.4, F1.5). */
export function bodyStarted(exec: unknown): boolean {
  return ViewState.callOf(exec)?.bodyInvoked === true
}
