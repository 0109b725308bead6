/** A wait that an abort cuts short (shared by the scripted model and MCP tasks). */

/** Waits `ms`, or less when `signal` aborts first; never rejects and leaves no listener behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}
