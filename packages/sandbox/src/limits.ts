import { definitionError, errorMessage } from '@tooltx/core/internal'

/** Options of `quickjsRuntime` (X8.3). Every limit is per run. */
export interface QuickJSRuntimeOptions {
  /** Milliseconds the program may spend running its own code; waiting on bindings is free (X8.4). */
  computeMs?: number
  /** Milliseconds from `run` to the outcome, everything included. */
  wallMs?: number
  /** Bytes the program's heap may grow to: the WebAssembly memory stops 6 MiB above this, at least at 16 MiB (X8.14). */
  memoryBytes?: number
  /** Output bytes: each log line's UTF-8 bytes plus one, plus the completion's JSON or the exception message (X8.9). */
  maxOutputBytes?: number
  /** UTF-8 bytes of binding arguments and settlements in flight at once (X8.12). */
  maxPendingBytes?: number
  /** UTF-8 bytes of the TypeScript program text (X8.13). */
  maxProgramBytes?: number
  /** Idle workers kept ready so a run does not pay a worker start (default 2; 0 keeps none). */
  poolSize?: number
}

/** The resolved limits of one runtime. */
export interface SandboxLimits {
  computeMs: number
  wallMs: number
  memoryBytes: number
  maxOutputBytes: number
  maxPendingBytes: number
  maxProgramBytes: number
  poolSize: number
}

/** The defaults of X8.3, X8.12 and X8.13. */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  computeMs: 60_000,
  wallMs: 600_000,
  memoryBytes: 536_870_912,
  maxOutputBytes: 67_108_864,
  maxPendingBytes: 67_108_864,
  maxProgramBytes: 262_144,
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
    maxPendingBytes: read('maxPendingBytes', 0, Number.MAX_SAFE_INTEGER),
    maxProgramBytes: read('maxProgramBytes', 0, 2 ** 30),
    poolSize: read('poolSize', 0, 64),
  }
}

/** The limit kinds a run can end with, each with its own message (X8.3, X8.12). */
export type LimitKind = 'compute-limit' | 'wall-limit' | 'memory-limit' | 'output-limit' | 'pending-limit'

/** The exact message of each limit kind (X8.3, X8.12). */
export function limitMessage(kind: LimitKind, limits: SandboxLimits): string {
  switch (kind) {
    case 'compute-limit':
      return `compute budget exhausted (${limits.computeMs}ms busy)`
    case 'wall-limit':
      return `wall-clock ceiling reached (${limits.wallMs}ms)`
    case 'memory-limit':
      return `memory limit exceeded (${limits.memoryBytes} bytes)`
    case 'output-limit':
      return `output limit exceeded (${limits.maxOutputBytes} bytes)`
    case 'pending-limit':
      return `pending binding data limit exceeded (${limits.maxPendingBytes} bytes of arguments and results in flight)`
  }
}

/** The `exception` message of a program over `maxProgramBytes` (X8.13). */
export function programTooLarge(bytes: number, limits: SandboxLimits): string {
  return `program too large: ${bytes} bytes, over the ${limits.maxProgramBytes}-byte limit; send a shorter program and pass data through tool calls`
}

/** What `AbortController.abort()` without an argument leaves in `signal.reason`: its message. */
const DEFAULT_ABORT_MESSAGE = (() => {
  const controller = new AbortController()
  controller.abort()
  return errorMessage(controller.signal.reason)
})()

/**
 * The message of an `abort` (X8.19): `head`, plus `: <reason's message>` when the signal
 * carries a reason other than the default `AbortError` of a bare `abort()`.
 */
export function abortMessage(head: string, reason: unknown): string {
  const isDefault =
    reason === undefined ||
    (reason instanceof DOMException &&
      reason.name === 'AbortError' &&
      reason.message === DEFAULT_ABORT_MESSAGE)
  return isDefault ? head : `${head}: ${errorMessage(reason)}`
}
