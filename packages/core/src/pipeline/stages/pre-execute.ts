/** Pre-execute (P3): a middleware chain deciding allow, deny or ask; it cannot rewrite arguments. */

import type { PreDecision } from '../../contract/hooks.js'
import type { ToolResult } from '../../contract/result.js'
import { errorMessage } from '../../foundation/errors.js'
import { ownField } from '../../foundation/own-field.js'
import { nextCovering } from '../../registry/hook-list.js'
import type { Call } from '../call.js'
import { runChain } from '../chain.js'
import { hookInvalid, hookThrew } from '../failures.js'
import { isBreach, Stage } from '../invariants.js'

/** The chain's answer, normalized (P3.3, P3.4), or the final-result of a failed handler. */
export type PreVerdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'ask'; readonly reason: string | undefined }
  | { readonly kind: 'failed'; readonly result: ToolResult }

const ALLOW: PreDecision = Object.freeze({ kind: 'allow' })
const ALLOWED: PreVerdict = ALLOW as PreVerdict
/** Normalizes the outermost handler's return (P3.2–P3.4). */
function verdict(raw: unknown): PreVerdict {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return failed(
      `expected a decision object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`,
    )
  }
  let keys: string[]
  let kind: unknown
  let reason: unknown
  try {
    keys = Object.keys(raw)
    kind = ownField(raw, 'kind')
    reason = ownField(raw, 'reason')
  } catch (error) {
    return failed(`reading the decision failed: ${errorMessage(error)}`)
  }
  for (const key of keys) if (key !== 'kind' && key !== 'reason') return failed(`unknown key "${key}"`)
  const given = typeof reason === 'string' && reason !== '' ? reason : undefined
  switch (kind) {
    case 'allow':
      return ALLOWED
    case 'deny':
      return { kind: 'deny', reason: given ?? 'no reason given' }
    case 'ask':
      return { kind: 'ask', reason: given }
    default:
      return failed(
        `kind must be "allow", "deny" or "ask", got ${typeof kind === 'string' ? JSON.stringify(kind) : typeof kind}`,
      )
  }
}

function failed(detail: string): PreVerdict {
  return { kind: 'failed', result: hookInvalid('onPreExecute', detail) }
}

/** True iff some pre-execute handler covers the call. */
export function hasPreExecute(call: Call): boolean {
  return nextCovering(call.core.pre.entries, 0, call.record) >= 0
}

/**
 * Runs the chain captured now (P1.3) and returns its normalized verdict. A handler that
 * throws gives `HOOK_FAILED` (a `ToolError` keeps its code, P3.6); no handler means allow.
 */
export async function preExecute(call: Call): Promise<PreVerdict> {
  const entries = call.core.pre.entries
  const first = nextCovering(entries, 0, call.record)
  if (first < 0) return ALLOWED
  call.enter(Stage.pre)
  let raw: unknown
  try {
    raw = await runChain(entries, first, call.record, (fn, next) => fn(call.exec, next), ALLOW)
  } catch (error) {
    if (isBreach(error)) throw error
    return { kind: 'failed', result: hookThrew('onPreExecute', error) }
  }
  return verdict(raw)
}
