/**
 * The hook chain of the pre-execute and post-execute stages (P1.3–P1.6): each covering
 * handler gets a `next` that runs the rest of the chain at most once.
 */

import { type HookEntry, nextCovering } from '../registry/hook-list.js'
import type { ScopeRecord } from '../registry/registry.js'

const noop = () => {}

/**
 * Calls the handler of `entries[index]` through `invoke(fn, next)`. `next` runs the next
 * handler covering `callScope`, or resolves `end` after the last one; calling it again returns
 * the same promise (P1.6). A handler that throws gives a rejected promise, never a throw.
 */
export function runChain<H, D>(
  entries: readonly HookEntry<H>[],
  index: number,
  callScope: ScopeRecord | undefined,
  invoke: (fn: H, next: () => Promise<D>) => unknown,
  end: D,
): Promise<unknown> {
  let inner: Promise<D> | undefined
  const next = (): Promise<D> => {
    if (inner === undefined) {
      const j = nextCovering(entries, index + 1, callScope)
      inner = (j < 0 ? Promise.resolve(end) : runChain(entries, j, callScope, invoke, end)) as Promise<D>
      // A handler that drops a rejecting next() must not leave an unhandled rejection.
      inner.catch(noop)
    }
    return inner
  }
  try {
    return Promise.resolve(invoke(entries[index]!.fn, next))
  } catch (error) {
    return Promise.reject(error)
  }
}
