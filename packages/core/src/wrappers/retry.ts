/** The built-in retry wrapper factory (P7.6–P7.8). */
import { definitionError } from '../errors.js'
import type { AroundHandler } from '../hooks.js'
import { callerSignal } from '../pipeline/around-view.js'
import type { ToolFailure } from '../result.js'

/** Options of `retry`. */
export interface RetryOptions {
  /** Calls of `next()` at most; an integer ≥ 1. */
  attempts: number
  /** Retries only when this returns exactly `true`; by default only `TOOL_FAILED` is retried. */
  when?: (result: ToolFailure, attempt: number) => boolean
}

const retryToolFailures = (result: ToolFailure) => result.error.info.code === 'TOOL_FAILED'

/**
 * A wrapper that calls `next()` until the result is not retryable or `attempts` calls were
 * made, and returns the last result (P7.6). A result is retryable iff it is a failure,
 * `when(result, attempt)` returns exactly `true`, and neither the around view's signal nor
 * the caller's signal is aborted (P7.7). A throwing `when` makes the wrapper throw (P7.8).
 * Throws `INVALID_DEFINITION` for malformed options.
 */
export function retry(options: RetryOptions): AroundHandler {
  if (options === null || typeof options !== 'object')
    throw definitionError('retry() needs { attempts, when? }')
  const { attempts, when = retryToolFailures } = options
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw definitionError('retry() attempts must be an integer ≥ 1')
  }
  if (typeof when !== 'function') throw definitionError('retry() when must be a function when present')
  return async (exec, next) => {
    for (let attempt = 1; ; attempt++) {
      const result = await next()
      if (!result.isError || attempt >= attempts) return result
      if (exec.signal.aborted || callerSignal(exec)?.aborted === true) return result
      if (when(result, attempt) !== true) return result
    }
  }
}
