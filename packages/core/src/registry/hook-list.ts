/**
 * The registration list of one hook kind and the scope test of its entries (R5.1, R5.2). Lists
 * are copy-on-write, so a chain captures its handlers by reading the array once (P1.3, P5.7),
 * and a call that no handler covers allocates nothing for that kind.
 */
import type { ScopeRecord } from './registry.js'

/** One registered handler and the scope it is limited to. */
export interface HookEntry<H> {
  readonly fn: H
  readonly scope: ScopeRecord | undefined
}

/** True iff a handler limited to `scope` sees a call made in `callScope` (R5.1, R5.2). */
export function covers(scope: ScopeRecord | undefined, callScope: ScopeRecord | undefined): boolean {
  if (scope === undefined) return true
  for (let r = callScope; r !== undefined; r = r.parent) if (r === scope) return true
  return false
}

/** The index of the first entry at or after `from` that covers `callScope`, or -1. */
export function nextCovering<H>(
  entries: readonly HookEntry<H>[],
  from: number,
  callScope: ScopeRecord | undefined,
): number {
  for (let i = from; i < entries.length; i++) if (covers(entries[i]!.scope, callScope)) return i
  return -1
}

/** A registration list of one hook kind, copy-on-write. */
export class HookList<H> {
  /** The current handlers in registration order; never mutated in place. */
  entries: readonly HookEntry<H>[] = []

  /** Appends a handler; the idempotent disposer removes exactly this registration. */
  add(fn: H, scope: ScopeRecord | undefined): () => void {
    const entry: HookEntry<H> = Object.freeze({ fn, scope })
    this.entries = [...this.entries, entry]
    return scopedDisposer(scope, () => {
      this.entries = this.entries.filter((e) => e !== entry)
    })
  }
}

/**
 * An idempotent disposer that runs `remove` once; with a scope, it is also listed among the
 * scope's hook disposers, so disposing the scope runs it (R1.4), and unlisted when it ran.
 */
export function scopedDisposer(scope: ScopeRecord | undefined, remove: () => void): () => void {
  let done = false
  const off = () => {
    if (done) return
    done = true
    remove()
    scope?.hookDisposers.delete(off)
  }
  scope?.hookDisposers.add(off)
  return off
}
