/**
 * One request of an imported tool's call over its server's connection (Y2.8, Y2.14): what an
 * import plan holds, and how a request is sent, reconnected once when it provably never left,
 * and its failures coded.
 */
import {
  type CallToolResult,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type Tool,
} from '@modelcontextprotocol/client'
import type { JsonObject, JsonValue, ToolEffect, ToolError } from '@tooltx/core'
import { codedError, errorMessage } from '@tooltx/core/internal'
import { type ClientLink, connectionClosed, connectionFailure, LinkDown } from './client-link.js'
import type { InputAnswerer } from './input-answers.js'
import { remoteError } from './remote-failure.js'

/** How one remote tool is imported. */
export interface ImportPlan {
  link: ClientLink
  server: string
  tool: Tool
  name: string
  timeoutMs: number
  /** The server is trusted (`mcpTools`' `trusted`): its failures may carry tooltx's own codes (Y2.20). */
  trusted: boolean
  /** True iff the server is trusted and the tool announces `readOnlyHint: true` (Y2.7). */
  concurrencySafe: boolean
  /** From the annotations of a trusted server only (F1.7); absent means `'write'`. */
  effect?: ToolEffect
  /** Call it as an MCP task (Y6.13): the tool supports tasks and `mcpTools` opted in. */
  asTask?: boolean
  /**
   * The ids of the server's imported calls in flight, oldest first, shared by every tool of the
   * server: what its requests to the host arrived during (Y2.29).
   */
  running: string[]
  /**
   * For the Tasks extension (Y6.27): the `_meta` each of a task call's requests carries (the
   * client's capabilities with the extension declared), and how an input request is answered.
   */
  taskMeta?: Record<string, unknown>
  answerInput?: InputAnswerer
}

export const toolWhere = (plan: ImportPlan) => `MCP server "${plan.server}" tool "${plan.tool.name}"`

/** Turns whatever `client.request` rejected with into a coded error (Y2.8, Y2.14). */
function callFailure(
  error: unknown,
  plan: ImportPlan,
  signal: AbortSignal,
  broken: 'undelivered' | 'dropped' | undefined,
  closedBecause: string | undefined,
): ToolError {
  // The SDK has sent notifications/cancelled; a tool failure would outlive cancellation (C1.5, C1.8).
  if (signal.aborted) return codedError('ABORTED', 'tool call aborted')
  const where = toolWhere(plan)
  if (SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout)
    return codedError('TOOL_TIMEOUT', `${where} did not answer within ${plan.timeoutMs} ms`)
  if (broken === 'dropped') {
    const why = closedBecause === undefined ? '' : ` (${closedBecause})`
    return connectionClosed(
      `${where}: the connection closed before it answered${why}; the call's outcome is unknown`,
    )
  }
  if (broken === 'undelivered')
    return connectionClosed(
      `${where}: the server did not take the call (${errorMessage(error)}); the call was not sent`,
    )
  if (ProtocolError.isInstance(error))
    return remoteError(`${where} answered with error ${error.code}: ${error.message}`)
  return codedError('TOOL_FAILED', `${where} failed: ${errorMessage(error)}`)
}

/** The progress a remote notification means, as JSON for `run.progress` (Y2.9). */
function progressUpdate(p: { progress: number; total?: number; message?: string }): JsonValue {
  const update: JsonObject = { progress: p.progress }
  if (p.total !== undefined) update.total = p.total
  if (p.message !== undefined) update.message = p.message
  return update
}

/** A request of a call: `tools/call`, or one of the `tasks/*` a task call makes (Y6.13, Y6.27). */
export type CallRequest =
  | {
      method: 'tools/call'
      params: {
        name: string
        arguments: JsonObject
        task?: { ttl?: number }
        _meta?: Record<string, unknown>
      }
    }
  | {
      method: 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/update'
      params: { taskId: string; inputResponses?: JsonObject; _meta?: Record<string, unknown> }
    }

/** Accepts any object: the `tasks/*` answers are checked by the task call itself (Y6.13). */
const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'tooltx',
    validate: (value) =>
      value !== null && typeof value === 'object'
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'the answer is not an object' }] },
  },
}

/**
 * Sends one request of a call over the plan's connection (Y2.8, Y2.14): waits for a
 * reconnection when the connection is down, and sends a request the server provably never read
 * once more on the new connection; any other failure is coded.
 */
export async function send(
  plan: ImportPlan,
  request: CallRequest,
  run: { signal: AbortSignal; progress(update: JsonValue): void },
): Promise<CallToolResult> {
  for (let attempt = 1; ; attempt++) {
    let lease: Awaited<ReturnType<ClientLink['ready']>>
    try {
      lease = await plan.link.ready(run.signal)
    } catch (error) {
      if (run.signal.aborted) throw codedError('ABORTED', 'tool call aborted')
      throw error instanceof LinkDown ? connectionClosed(`${toolWhere(plan)}: ${error.message}`) : error
    }
    try {
      const options = {
        signal: run.signal,
        // The runtime's timeout wrapper aborts first; this only bounds a runtime without it.
        timeout: plan.timeoutMs + 1_000,
        onprogress: (p: { progress: number; total?: number; message?: string }) =>
          run.progress(progressUpdate(p)),
      }
      // A plain request, not `callTool`: the SDK's own output checks would throw before ours.
      if (request.method === 'tools/call') return await lease.client.request(request, options)
      return (await lease.client.request(request, ANY_RESULT, options)) as CallToolResult
    } catch (error) {
      const broken = connectionFailure(error)
      if (broken !== undefined) plan.link.lost(lease.generation)
      if (broken === 'undelivered' && attempt === 1 && !run.signal.aborted) continue
      throw callFailure(error, plan, run.signal, broken, plan.link.closedBecause(lease.generation))
    }
  }
}
