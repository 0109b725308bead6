/**
 * The messages between the host and a sandbox worker. Only strings, numbers and booleans
 * cross: the program as TypeScript text, binding arguments, results and the completion as
 * JSON text that the host parses and re-validates.
 */
/** Limits a worker enforces itself; the host enforces the wall clock and backs up the rest. */
export interface WorkerLimits {
  computeMs: number
  memoryBytes: number
  maxOutputBytes: number
  maxPendingBytes: number
}

/** `workerData` of a sandbox worker. */
export interface WorkerStart {
  /** The compiled QuickJS WebAssembly module, compiled once per process. */
  wasmModule: object
  limits: WorkerLimits
  /**
   * A shared `Float64Array(3)` the worker writes and the host reads, reset for each run:
   * `[0]` compute milliseconds used by finished slices, `[1]` the number of the running slice
   * (1, 2, … within a run; 0 when idle), `[2]` UTF-8 bytes of the binding calls (arguments
   * plus settlement text) whose settlement the program has received. No clock reading crosses
   * threads: each side times with its own monotonic `performance.now()` (X8.20).
   */
  meters: SharedArrayBuffer
}

/** Host → worker. `program` is the TypeScript text; the worker transpiles it (X8.13). */
export type HostMessage =
  | { type: 'run'; program: string; names: string[] }
  | { type: 'settle'; id: number; ok: boolean; text: string }

/** How a run ended, as the worker saw it. */
export type WorkerOutcome =
  | { status: 'value'; text: string }
  | { status: 'empty' }
  | { status: 'exception'; message: string }
  | { status: 'invalid-output' }
  | { status: 'limit'; kind: 'compute-limit' | 'memory-limit' | 'output-limit' | 'pending-limit' }
  | { status: 'crash'; message: string }

/** Worker → host. `retire` asks the host not to reuse the worker (memory grew, module broken). */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  | { type: 'call'; id: number; name: string; args: string }
  | { type: 'done'; outcome: WorkerOutcome; retire: boolean }
