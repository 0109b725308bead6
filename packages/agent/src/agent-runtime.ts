import type {
  Approver,
  CodeDispatchSink,
  CodeRuntime,
  ModelToolSchema,
  ToolResult,
  ToolScope,
} from '@tooltx/core'

/** The pipeline input the loop builds for one call (L4.3). */
export interface ToolCallInput {
  callId: string
  name: string
  arguments: unknown
  signal: AbortSignal
  scope: ToolScope
  approver?: Approver
  codeRuntime?: CodeRuntime
  onCodeDispatch?: CodeDispatchSink
}

/** What the loop reads from a scope's view: the surface and the classifier. */
export interface AgentView {
  surface(): { tools: readonly ModelToolSchema[]; instructions: string }
  executionMode(input: { name: string; arguments: unknown }): 'parallel' | 'exclusive'
}

/** The part of a `ToolRuntime` the loop uses; it never writes to a session (L10.1). */
export interface AgentRuntime {
  execute(input: ToolCallInput): Promise<ToolResult>
  view(scope: ToolScope): AgentView
}
