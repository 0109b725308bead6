/**
 * What Code Mode needs from the runtime that owns a `run_code` definition (X1, X4): the host
 * interface the composition root implements, and the request and value of one program run.
 * Code Mode is written against this and imports nothing from the pipeline.
 */
import type { CodeDispatchSink, CodeRuntime } from '../contract/code-runtime.js'
import type { Elicitor } from '../contract/elicitation.js'
import type { Approver, ExecuteInput, RunContext, ToolScope } from '../contract/execution.js'
import type { ToolResult } from '../contract/result.js'
import type { ToolView } from '../contract/tool-view.js'
import type { JsonObject } from '../foundation/lossless-json.js'

/** The value of a successful run (X1.3): the captured log lines and the program's result, if any. */
export interface RunCodeValue extends JsonObject {
  logs: string[]
}

/** What the runtime that owns a `run_code` definition provides to it. */
export interface RunCodeHost {
  /** The Code Mode inputs the execution with this token read at entry (I1.1), while it is in progress. */
  callInputs(token: symbol): RunCodeCallInputs | undefined
  /** `createToolRuntime({ codeRuntime })`. */
  readonly defaultCodeRuntime: CodeRuntime | undefined
  /** `createToolRuntime({ maxParallelSubCalls })` (X6.2). */
  readonly maxParallelSubCalls: number
  /** Where contained sink errors go (X5.5). */
  readonly reportError: (error: unknown) => void
  /** The runtime's `execute`, for nested dispatch (X4.1). */
  execute(input: ExecuteInput): Promise<ToolResult>
  /** The live view of a scope (R4.1), for bindings and the SDK. */
  view(scope: ToolScope | undefined): ToolView
}

/** The per-call inputs of a `run_code` call. */
export interface RunCodeCallInputs {
  readonly codeRuntime: CodeRuntime | undefined
  readonly onCodeDispatch: CodeDispatchSink | undefined
  readonly approver: Approver | undefined
  readonly elicitor: Elicitor | undefined
  readonly scope: ToolScope | undefined
}

/** Everything one program run needs (the input of `runCodeBody`). */
export interface RunCodeRequest {
  /** The TypeScript program. */
  readonly code: string
  /** The model's one-line description of the program. */
  readonly description: string
  /** The run context of the `run_code` call (outer callId, token, fused signal). */
  readonly run: RunContext
  /** The code runtime chosen per X1.6. */
  readonly codeRuntime: CodeRuntime
  /** The dispatch-event sink of the call, if any (X5). */
  readonly onCodeDispatch: CodeDispatchSink | undefined
  /** The approver the call brought, forwarded to nested calls (X4.1). */
  readonly approver: Approver | undefined
  /** The elicitation handler the call brought, forwarded to nested calls (P8.18). */
  readonly elicitor: Elicitor | undefined
  /** The runtime that owns the call. */
  readonly host: RunCodeHost
}
