/**
 * The `AroundExecution` wrapExecute handlers get (the SPEC's "around view", I1.8): the same
 * identity values, read-only, plus a writable `signal` that accepts only an `AbortSignal` and
 * cannot be deleted. Called an around execution here, so "view" means only a scope's `ToolView`.
 */
import type { AnyToolDefinition } from '../contract/definition.js'
import type { AroundExecution } from '../contract/hooks.js'
import { TargetStamp } from '../foundation/target-stamp.js'
import type { Call } from './call.js'

/**
 * What an around execution carries besides its own properties: the call behind it and its current
 * signal, as private fields stamped on the object before it is frozen (not a `WeakMap`, for the
 * cost measured in target-stamp.ts).
 */
class AroundState extends TargetStamp {
  readonly #call: Call
  #signal: AbortSignal

  constructor(around: object, call: Call) {
    super(around)
    this.#call = call
    this.#signal = call.exec.signal
  }

  static callOf(exec: unknown): Call | undefined {
    return typeof exec === 'object' && exec !== null && #call in exec ? exec.#call : undefined
  }

  static signalOf(around: unknown): AbortSignal {
    if (typeof around !== 'object' || around === null || !(#signal in around)) throw notAround()
    return around.#signal
  }

  static setSignal(around: unknown, signal: unknown): void {
    if (!(signal instanceof AbortSignal)) throw new TypeError('exec.signal only accepts an AbortSignal')
    if (typeof around !== 'object' || around === null || !(#signal in around)) throw notAround()
    around.#signal = signal
  }
}

const notAround = () => new TypeError('exec.signal accessed on an object that is not an around view')

/**
 * The `signal` property of every around execution: one getter and one setter shared by all,
 * reading the object's own state through `this`. Per-object closures gave each its own V8
 * map (an accessor pair is part of the map), several times dearer per call with a wrapper
 * (bench/pipeline.bench.ts, Pipeline hot-path mechanisms).
 */
const SIGNAL_PROPERTY: PropertyDescriptor = Object.freeze({
  enumerable: true,
  configurable: false,
  get(this: unknown): AbortSignal {
    return AroundState.signalOf(this)
  },
  set(this: unknown, signal: unknown): void {
    AroundState.setSignal(this, signal)
  },
})

/** Creates the frozen around execution of `call`; its `signal` starts as the caller's signal. */
export function createAroundExecution(call: Call): AroundExecution {
  const { exec } = call
  const around: Record<string, unknown> = {
    callId: exec.callId,
    rootCallId: exec.rootCallId,
    name: exec.name,
  }
  if ('arguments' in exec) around.arguments = exec.arguments
  if (exec.scope !== undefined) around.scope = exec.scope
  if (exec.provenance !== undefined) around.provenance = exec.provenance
  if (exec.parent !== undefined) around.parent = exec.parent
  around.token = exec.token
  Object.defineProperty(around, 'signal', SIGNAL_PROPERTY)
  new AroundState(around, call)
  Object.freeze(around)
  return around as unknown as AroundExecution
}

/**
 * The definition visible now in the view of the call behind an around execution (used by the
 * built-in wrappers, P7.2); `undefined` when none is visible or `exec` is not an around execution.
 */
export function visibleDefinition(exec: unknown): AnyToolDefinition | undefined {
  return AroundState.callOf(exec)?.resolve()?.def
}

/** The caller's signal of the call behind an around execution (P7.7), or `undefined`. */
export function callerSignal(exec: unknown): AbortSignal | undefined {
  return AroundState.callOf(exec)?.signal
}

/** Whether some attempt of the call behind an around execution invoked its body (C1.4, F1.5). */
export function bodyStarted(exec: unknown): boolean {
  return AroundState.callOf(exec)?.bodyInvoked === true
}
