/** Binding tables for the sandbox tests (not a test file itself). */
import type { CodeBinding } from '@tooltx/core'

/** A binding table as the runtime gets it: `map`'s entries on a null-prototype object. */
export function bindings(map: Record<string, CodeBinding>): Record<string, CodeBinding> {
  return Object.assign(Object.create(null), map)
}

/** A `probe` binding answering null; `called()` says whether any program reached it. */
export function probeBinding(): { bindings: Record<string, CodeBinding>; called(): boolean } {
  let called = false
  return {
    bindings: bindings({
      probe: async () => {
        called = true
        return null
      },
    }),
    called: () => called,
  }
}
