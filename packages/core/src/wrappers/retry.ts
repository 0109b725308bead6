/** The built-in retry wrapper factory (P7.6–P7.8). */
import { effectOf, isRepeatable } from '../contract/effect.js'
import type { AroundHandler } from '../contract/hooks.js'
import type { ToolFailure } from '../contract/result.js'
import { definitionError } from '../foundation/errors.js'
import { bodyStarted, callerSignal, visibleDefinition } from '../pipeline/around-execution.js'

/** Options of `retry`. */
export interface RetryOptions {
  /** Calls of `next()` at most; an integer ≥ 1. */
  attempts: number
  /** Retries only when this returns exactly `true`; by default only `TOOL_FAILED` is retried. */
  when?: (result: ToolFailure, attempt: number) => boolean
  /**
   * Also retry a `'write'` tool whose body already ran (F1.5); default `false`, since running
   * it again may repeat its effect.
   */
  retryWrites?: boolean
}

const retryToolFailures = (result: ToolFailure) => result.error.info.code === 'TOOL_FAILED'

/**
 * A wrapper that calls `next()` until the result is not retryable or `attempts` calls were
 * made, and returns the last result (P7.6). A result is retryable iff it is a failure,
 * `when(result, attempt)` returns exactly `true`, neither the around view's signal nor
 * the caller's signal is aborted (P7.7), and the tool is `'read'` or `'idempotent'`, or no body
 * ran yet, or `retryWrites` is set (F1.5). A throwing `when` makes the wrapper throw (P7.8).
 * Throws `INVALID_DEFINITION` for malformed options.
 */
export function retry(options: RetryOptions): AroundHandler {
  if (options === null || typeof options !== 'object')
    throw definitionError('retry() needs { attempts, when? }')
  const { attempts, when = retryToolFailures, retryWrites = false } = options
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw definitionError('retry() attempts must be an integer ≥ 1')
  }
  if (typeof when !== 'function') throw definitionError('retry() when must be a function when present')
  if (typeof retryWrites !== 'boolean')
    throw definitionError('retry() retryWrites must be a boolean when present')
  return async (exec, next) => {
    for (let attempt = 1; ; attempt++) {
      const result = await next()
      if (!result.isError || attempt >= attempts) return result
      if (exec.signal.aborted || callerSignal(exec)?.aborted === true) return result
      // A write whose body ran may have taken effect: running it again could repeat it (F1.5).
      if (!retryWrites && bodyStarted(exec) && !isRepeatable(effectOf(visibleDefinition(exec)))) return result
      if (when(result, attempt) !== true) return result
    }
  }
}
