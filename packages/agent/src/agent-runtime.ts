import type { ExecuteInput, RuntimeScope, ToolRuntime } from '@tooltx/core'

/** The pipeline input the loop builds for one call (L4.3): always in the agent's scope. */
export type ToolCallInput = ExecuteInput & { scope: RuntimeScope }

/** The part of a `ToolRuntime` the loop uses; it never writes to a session (L10.1). */
export type AgentRuntime = Pick<ToolRuntime, 'execute' | 'view'>
