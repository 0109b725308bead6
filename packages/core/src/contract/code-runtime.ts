import type { JsonValue } from '../foundation/lossless-json.js'
import type { ContentBlock } from './content.js'
import type { ErrorInfo } from './result.js'

/** Why a program run failed, one kind per cause (X8.2). */
export type CodeRunErrorKind =
  | 'exception'
  | 'compute-limit'
  | 'wall-limit'
  | 'memory-limit'
  | 'output-limit'
  | 'pending-limit'
  | 'invalid-output'
  | 'abort'
  | 'crash'

/** What a rejected binding call tells the program to do instead (X3.2, X4.6). */
const CALL_ADVICE =
  "call the tool with one arguments object of plain JSON values, as in tools.<name>({ key: 'value' })"

/**
 * The rejection of a binding call whose arguments are not lossless JSON (X3.2): it says what
 * was wrong and what the program should do instead.
 */
export const TOOL_ARGS_NOT_LOSSLESS = `tool arguments must be lossless JSON; ${CALL_ADVICE}`

/**
 * The rejection of a binding call whose arguments could not be read: a getter or Proxy trap
 * threw `message` (X4.6). It carries that message, as the direct entry's failure does (P2.5).
 */
export function toolArgsUnreadable(message: string): string {
  return `reading the tool arguments failed: ${message}; ${CALL_ADVICE}`
}

/** A host function the program can call as `tools.<name>(args)`; only lossless JSON crosses. */
export type CodeBinding = (args: JsonValue) => Promise<JsonValue>

/** What `run` receives (X8.1). `bindings` is a null-prototype object. */
export interface CodeRunRequest {
  program: string
  bindings: Readonly<Record<string, CodeBinding>>
  signal: AbortSignal
}

/** The outcome of every program (X8.1): a value or an error, plus the captured logs. */
export interface CodeRunResult {
  value?: JsonValue
  logs: string[]
  error?: { kind: CodeRunErrorKind; message: string }
}

/**
 * The seam between the runtime and a sandbox (X8.1). `run` resolves for every program
 * outcome and rejects only when the seam itself is misused.
 */
export interface CodeRuntime {
  readonly language: 'typescript'
  /** A short description of the isolation the runtime provides (e.g. `'quickjs-wasm-worker'`). */
  readonly isolation: string
  run(request: CodeRunRequest): Promise<CodeRunResult>
}

/** A sub-call started by the Code Mode scheduler (X5.1). */
export interface CodeDispatchStart {
  type: 'start'
  rootCallId: string
  parentCallId: string
  subCallId: string
  name: string
  arguments: JsonValue
}

/** A started sub-call settled (X5.2): durable content, never the value. */
export interface CodeDispatchSettle {
  type: 'settle'
  rootCallId: string
  parentCallId: string
  subCallId: string
  name: string
  isError: boolean
  content: readonly ContentBlock[]
  error?: ErrorInfo
}

/** The sink for Code Mode dispatch events (X5); may be async, errors are contained. */
export type CodeDispatchSink = (event: CodeDispatchStart | CodeDispatchSettle) => void | Promise<void>
