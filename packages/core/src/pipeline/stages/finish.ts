/**
 * The end of both routes (P13.3): cancellation replacement of a success, materialization,
 * `finalizeContent`, the content-size policy, then the observers (P11, P12).
 */

import { checkContent } from '../../content-checks.js'
import { frozenJsonProblem } from '../../frozen.js'
import { isFrozenSnapshot } from '../../lossless-json.js'
import { nextCovering } from '../../registry/hook-list.js'
import type { ToolResult } from '../../result.js'
import type { Call } from '../call.js'
import { capContent } from '../content-policy.js'
import {
  aborted,
  abortedBeforeDispatch,
  finalizerReturnedInvalid,
  notSerializable,
  thrown,
} from '../failures.js'
import { assertPublishable, isBreach, Stage } from '../invariants.js'

const noop = () => {}
/** The result fields materialization checks; `value` was frozen at its boundary (P11.1). */
const MATERIALIZED_FIELDS = ['content', 'error', 'meta', 'additionalContexts'] as const

/** A success gives way to cancellation, keeping its contexts (P10.15, C1.5, C1.6). */
function cancellation(call: Call, result: ToolResult): ToolResult {
  if (result.isError || !call.signal.aborted) return result
  const contexts = result.additionalContexts
  return call.bodyInvoked ? aborted(contexts) : abortedBeforeDispatch(contexts)
}

/**
 * Materialization (P11.1, P11.2): every field must be deep-frozen lossless JSON; the value
 * was frozen at its boundary and is kept by reference. A field that is not turns the result
 * into `RESULT_NOT_SERIALIZABLE` without value, meta or contexts.
 */
function materialize(result: ToolResult): ToolResult {
  // A result the output boundary vouched for was built from checked snapshots (V1.3's walk skips it too).
  if (isFrozenSnapshot(result)) return result
  for (const field of MATERIALIZED_FIELDS) {
    if (
      field in result &&
      frozenJsonProblem((result as unknown as Record<string, unknown>)[field]) !== undefined
    ) {
      return notSerializable(field)
    }
  }
  return result
}

/**
 * Applies the finalizer captured at entry once (P11.3–P11.6): `undefined` keeps the
 * content, content blocks replace it and nothing else, anything else is
 * `RESULT_NOT_SERIALIZABLE`, and a throw is `TOOL_FAILED` (a `ToolError` keeps its code).
 */
function finalize(call: Call, result: ToolResult): ToolResult {
  call.enter(Stage.finalize)
  const finalizer = call.finalizer
  if (finalizer === undefined) return result
  let returned: unknown
  try {
    returned = finalizer(call.exec, result)
  } catch (error) {
    if (isBreach(error)) throw error
    return thrown(error, 'TOOL_FAILED', 'finalizeContent failed: ', result.additionalContexts)
  }
  if (returned === undefined) return result
  if (returned instanceof Promise) returned.then(noop, noop)
  const checked = Array.isArray(returned) ? checkContent(returned, 'content') : undefined
  if (checked === undefined || !checked.ok) return finalizerReturnedInvalid(result.additionalContexts)
  return Object.freeze({ ...result, content: checked.value })
}

/** Calls the observers covering the call, in registration order; their errors are contained (P12). */
function observe(call: Call, result: ToolResult): void {
  call.enter(Stage.observe)
  const { core, exec, record } = call
  const observers = core.observers.entries
  for (let i = nextCovering(observers, 0, record); i >= 0; i = nextCovering(observers, i + 1, record)) {
    try {
      const returned = observers[i]!.fn(exec, result)
      if (
        returned !== null &&
        typeof returned === 'object' &&
        typeof (returned as Promise<unknown>).then === 'function'
      ) {
        ;(returned as Promise<unknown>).then(noop, (error) => core.report(error))
      }
    } catch (error) {
      core.report(error)
    }
  }
}

/** Finishes a call: the shared tail of both routes (P13.3), then the V1.3 check and the observers. */
export function finish(call: Call, candidate: ToolResult): ToolResult {
  let result = cancellation(call, candidate)
  result = materialize(result)
  result = finalize(call, result)
  result = capContent(result, call.core.options.maxContentBytes)
  assertPublishable(call.exec, result)
  observe(call, result)
  call.assertPublishing()
  return result
}
