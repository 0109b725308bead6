import type { ExecuteInput, RuntimeScope, ToolRuntime } from '@tooltx/core'

/** The pipeline input the loop builds for one call (L4.3): in the agent's scope, or the step's narrowed child (T4.2). */
export type ToolCallInput = ExecuteInput & { scope: RuntimeScope }

/** The part of a `ToolRuntime` the loop uses (`scope` for a step `prepareStep` narrows, T4.2); it never writes to a session (L10.1). */
export type AgentRuntime = Pick<ToolRuntime, 'execute' | 'view' | 'scope'>
