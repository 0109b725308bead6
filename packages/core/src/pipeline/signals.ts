/** Signal fusion for the base dispatch (P6.7) and the timeout wrapper (P7.2). */

/** A signal that follows two sources, and the function that detaches it from them. */
export interface Fused {
  readonly signal: AbortSignal
  /** Removes the listeners from both sources; the fused signal keeps its state. */
  readonly dispose: () => void
}

const noop = () => {}

/**
 * A signal that aborts with the reason of whichever of `a` and `b` aborts first (or is
 * already aborted). When `a === b` it is that signal itself and nothing is attached.
 */
export function fuseSignals(a: AbortSignal, b: AbortSignal): Fused {
  if (a === b) return { signal: a, dispose: noop }
  const controller = new AbortController()
  if (a.aborted) {
    controller.abort(a.reason)
    return { signal: controller.signal, dispose: noop }
  }
  if (b.aborted) {
    controller.abort(b.reason)
    return { signal: controller.signal, dispose: noop }
  }
  const onA = () => controller.abort(a.reason)
  const onB = () => controller.abort(b.reason)
  a.addEventListener('abort', onA, { once: true })
  b.addEventListener('abort', onB, { once: true })
  return {
    signal: controller.signal,
    dispose: () => {
      a.removeEventListener('abort', onA)
      b.removeEventListener('abort', onB)
    },
  }
}
