import { definitionError } from '@tooltx/core'

/** Options of `quickjsRuntime` (X8.3). Every limit is per run. */
export interface QuickJSRuntimeOptions {
  /** Milliseconds the program may spend running its own code; waiting on bindings is free (X8.4). */
  computeMs?: number
  /** Milliseconds from `run` to the outcome, everything included. */
  wallMs?: number
  /** Bytes of sandbox heap; the WebAssembly memory is capped a fixed 16 MiB above this. */
  memoryBytes?: number
  /** UTF-8 bytes of all log lines plus the completion's JSON (X8.9). */
  maxOutputBytes?: number
  /** Idle workers kept ready so a run does not pay a worker start (default 2; 0 keeps none). */
  poolSize?: number
}

/** The resolved limits of one runtime. */
export interface SandboxLimits {
  computeMs: number
  wallMs: number
  memoryBytes: number
  maxOutputBytes: number
  poolSize: number
}

/** The defaults of X8.3. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  computeMs: 60_000,
  wallMs: 600_000,
  memoryBytes: 536_870_912,
  maxOutputBytes: 67_108_864,
  poolSize: 2,
})

/** The largest `memoryBytes`: WebAssembly memory stops at 2 GiB, minus the module's own 16 MiB. */
export const MAX_MEMORY_BYTES = 2 ** 31 - 16 * 2 ** 20

/** Reads and checks the options; throws `INVALID_DEFINITION` naming the bad option. */
export function resolveLimits(options: QuickJSRuntimeOptions | undefined): SandboxLimits {
  if (options === undefined) return { ...DEFAULT_LIMITS }
  if (options === null || typeof options !== 'object')
    throw definitionError('quickjsRuntime options must be an object or undefined')
  const read = (key: keyof SandboxLimits, min: number, max: number): number => {
    const value: unknown = options[key]
    if (value === undefined) return DEFAULT_LIMITS[key]
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      throw definitionError(`quickjsRuntime option "${key}" must be an integer from ${min} to ${max}`)
    return value
  }
  return {
    computeMs: read('computeMs', 1, 2 ** 31 - 1),
    wallMs: read('wallMs', 1, 2 ** 31 - 1),
    memoryBytes: read('memoryBytes', 2 ** 20, MAX_MEMORY_BYTES),
    maxOutputBytes: read('maxOutputBytes', 0, Number.MAX_SAFE_INTEGER),
    poolSize: read('poolSize', 0, 64),
  }
}

/** The exact message of each limit kind (X8.3). */
export function limitMessage(
  kind: 'compute-limit' | 'wall-limit' | 'memory-limit' | 'output-limit',
  limits: SandboxLimits,
): string {
  switch (kind) {
    case 'compute-limit':
      return `compute budget exhausted (${limits.computeMs}ms busy)`
    case 'wall-limit':
      return `wall-clock ceiling reached (${limits.wallMs}ms)`
    case 'memory-limit':
      return `memory limit exceeded (${limits.memoryBytes} bytes)`
    case 'output-limit':
      return `output limit exceeded (${limits.maxOutputBytes} bytes)`
  }
}
