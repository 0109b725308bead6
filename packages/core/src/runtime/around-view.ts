/**
 * The execution as wrapExecute handlers see it (I1.8): the same identity values, read-only,
 * plus a writable `signal` that accepts only an `AbortSignal` and cannot be deleted.
 */
import type { AnyToolDefinition } from '../definition.js'
import type { Call } from './call.js'
import type { AroundExecution } from './hooks.js'
import { TargetStamp } from './target-stamp.js'

/**
 * The call behind an around view, as a private field stamped on the view before it is frozen;
 * not a `WeakMap`, for the cost measured in target-stamp.ts (one handler per hook kind).
 */
class CallOfView extends TargetStamp {
  readonly #call: Call

  constructor(view: object, call: Call) {
    super(view)
    this.#call = call
  }

  static of(exec: unknown): Call | undefined {
    return typeof exec === 'object' && exec !== null && #call in exec ? exec.#call : undefined
  }
}

/** Creates the frozen around view of `call`; its `signal` starts as the caller's signal. */
export function createAroundView(call: Call): AroundExecution {
  const { exec } = call
  let current = exec.signal
  const view: Record<string, unknown> = { callId: exec.callId, rootCallId: exec.rootCallId, name: exec.name }
  if ('arguments' in exec) view.arguments = exec.arguments
  if (exec.scope !== undefined) view.scope = exec.scope
  if (exec.parent !== undefined) view.parent = exec.parent
  view.token = exec.token
  Object.defineProperty(view, 'signal', {
    enumerable: true,
    configurable: false,
    get: () => current,
    set: (signal: unknown) => {
      if (!(signal instanceof AbortSignal)) throw new TypeError('exec.signal only accepts an AbortSignal')
      current = signal
    },
  })
  new CallOfView(view, call)
  Object.freeze(view)
  return view as unknown as AroundExecution
}

/**
 * The definition visible now in the view of the call behind an around view (used by the
 * built-in wrappers, P7.2); `undefined` when none is visible or `exec` is not an around view.
 */
export function visibleDefinition(exec: unknown): AnyToolDefinition | undefined {
  return CallOfView.of(exec)?.resolve()?.def
}

/** The caller's signal of the call behind an around view (P7.7), or `undefined`. */
export function callerSignal(exec: unknown): AbortSignal | undefined {
  return CallOfView.of(exec)?.signal
}
