/** Guards (P5): synchronous deny-only checks after an allow; nothing can override a denial. */

import type { Guard } from '../../contract/hooks.js'
import type { ScopeRecord } from '../../registry/registry.js'
import type { Call, Outcome } from '../call.js'
import { final, post } from '../call.js'
import { deniedByGuard, hookInvalid, hookThrew } from '../failures.js'
import { isBreach, Stage } from '../invariants.js'

const noop = () => {}

/** What a guard returned, for the `invalid value` detail (P5.2). */
function describeAnswer(answer: unknown): string {
  if (answer === '') return 'an empty string'
  if (answer === null) return 'null'
  if (Array.isArray(answer)) return 'an array'
  if (typeof answer === 'object' || typeof answer === 'function') {
    try {
      if (typeof (answer as { then?: unknown }).then === 'function') {
        // Never leave a rejecting promise unhandled; its answer is refused anyway.
        ;(answer as Promise<unknown>).then(noop, noop)
        return 'a promise (guards are synchronous)'
      }
    } catch {
      // A hostile object is still just an object here.
    }
  }
  return `a value of type ${typeof answer}`
}

/**
 * The guard lists that apply to a call, captured now (P5.7): unscoped guards, then each
 * scope layer from the farthest ancestor to the call's own scope (P5.3).
 */
function captureGuards(call: Call): (readonly Guard[])[] {
  const lists: (readonly Guard[])[] = [call.core.guards]
  const layers: ScopeRecord[] = []
  for (let r = call.record; r !== undefined; r = r.parent) layers.push(r)
  for (let i = layers.length - 1; i >= 0; i--) lists.push(layers[i]!.guards)
  return lists
}

/**
 * Runs the guards in order until the first denial (P5.1–P5.6). Returns `undefined` when
 * all abstain, the post-result `DENIED` for a denial, or the final-result `HOOK_FAILED` for
 * a guard that threw or returned anything but a non-empty string or `undefined`.
 */
export function runGuards(call: Call): Outcome | undefined {
  call.enter(Stage.guards)
  if (call.record === undefined && call.core.guards.length === 0) return undefined
  for (const list of captureGuards(call)) {
    for (const guard of list) {
      let answer: unknown
      try {
        answer = guard(call.exec)
      } catch (error) {
        if (isBreach(error)) throw error
        return final(hookThrew('guard', error))
      }
      if (answer === undefined) continue
      if (typeof answer === 'string' && answer !== '') return post(deniedByGuard(call.name, answer))
      return final(
        hookInvalid('guard', `expected a non-empty string or undefined, got ${describeAnswer(answer)}`),
      )
    }
  }
  return undefined
}
