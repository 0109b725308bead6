/** The built-in timeout wrapper (P7.1–P7.5). */
import type { AdditionalContext } from '../contract/content.js'
import type { AroundExecution, AroundHandler } from '../contract/hooks.js'
import type { ToolFailure, ToolResult } from '../contract/result.js'
import { codedError } from '../foundation/errors.js'
import { declareAppliesTo } from '../pipeline/applies-to.js'
import { visibleDefinition } from '../pipeline/around-execution.js'
import { timeoutMessage } from '../pipeline/failures.js'
import { fuseSignals } from '../pipeline/signals.js'

/** The failure the wrapper returns when its own timer fired (P7.3), keeping the result's contexts. */
function timedOut(ms: number, contexts: readonly AdditionalContext[] | undefined): ToolFailure {
  const message = timeoutMessage(ms)
  const failure: ToolFailure = {
    isError: true,
    error: { message, info: { name: 'ToolTimeoutError', code: 'TOOL_TIMEOUT' } },
    content: [{ type: 'text', text: `Error: ${message}` }],
  }
  return contexts === undefined ? failure : { ...failure, additionalContexts: contexts }
}

async function enforce(exec: AroundExecution, next: () => Promise<ToolResult>): Promise<ToolResult> {
  const ms = visibleDefinition(exec)?.timeoutMs
  if (ms === undefined) return next()
  const previous = exec.signal
  const deadline = new AbortController()
  let fired = false
  const timer = setTimeout(() => {
    fired = true
    deadline.abort(codedError('TOOL_TIMEOUT', timeoutMessage(ms)))
  }, ms)
  const fused = fuseSignals(previous, deadline.signal)
  exec.signal = fused.signal
  let result: ToolResult
  try {
    // Never abandoned: a body that ignores its signal keeps this pending (P7.5).
    result = await next()
  } finally {
    exec.signal = previous
    clearTimeout(timer)
    fused.dispose()
  }
  // Keyed on this wrapper's own timer only (P7.4).
  return fired ? timedOut(ms, result.additionalContexts) : result
}

/**
 * The one timeout wrapper; `createToolRuntime` installs it outermost unless `{ timeout: false }`.
 * It acts only on definitions that declare `timeoutMs` (P7.10).
 */
export const TIMEOUT_WRAPPER: AroundHandler = declareAppliesTo(enforce, (def) => def?.timeoutMs !== undefined)

/**
 * The built-in timeout wrapper for manual placement with `runtime.wrapExecute` (P7.1). For a
 * definition visible when it starts and declaring `timeoutMs` it sets `exec.signal` to one
 * that also aborts after `timeoutMs`, calls `next()`, restores the signal, and returns
 * `TOOL_TIMEOUT` (`tool call timed out after <ms>ms`) if its own timer fired first, whatever
 * `next()` returned (P7.2–P7.4). It never abandons the downstream (P7.5). A tool without
 * `timeoutMs` just gets `next()`.
 */
export function timeout(): AroundHandler {
  return TIMEOUT_WRAPPER
}
