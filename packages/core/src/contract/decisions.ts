/** Small constructors of pre-execute decisions (P14.5), so a policy reads as a sentence. */
import type { PreDecision } from './hooks.js'

/** `{ kind: 'allow' }`: let the call proceed to the guards. */
export function allow(): PreDecision {
  return { kind: 'allow' }
}

/** `{ kind: 'deny', reason }`: refuse the call (P3.5). */
export function deny(reason: string): PreDecision {
  return { kind: 'deny', reason }
}

/** `{ kind: 'ask', reason? }`: ask the approver (P4); the reason is shown to whoever decides. */
export function ask(reason?: string): PreDecision {
  return reason === undefined ? { kind: 'ask' } : { kind: 'ask', reason }
}
