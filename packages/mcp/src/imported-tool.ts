/**
 * One remote MCP tool as a tooltx raw definition (Y2.3–Y2.8). Its calls are ordinary tooltx
 * calls: the runtime's policy, approvals, guards and timeout apply before anything is sent, the
 * arguments are checked against the server's schema before they leave, and the answer is
 * checked against the server's output schema before the model sees it.
 */
import type { Tool } from '@modelcontextprotocol/client'
import { type CallToolResult, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client'
import {
  type AnyToolDefinition,
  type ContentBlock,
  codedError,
  compileValueSchema,
  errorMessage,
  type JsonObject,
  type JsonValue,
  type ToolEffect,
  type ToolError,
} from '@tooltx/core'
import { type ClientLink, connectionClosed, connectionFailure, LinkDown } from './client-link.js'
import { fromMcpContent } from './content-blocks.js'
import { remoteError, remoteFailure } from './remote-failure.js'
import { compileSchemaCheck, type SchemaCheck } from './schema-check.js'

/** The value of an imported tool's success: the mapped content and the validated structured value. */
export interface ImportedValue {
  content: ContentBlock[]
  structuredContent?: JsonObject
}

/** The output schema of every imported tool: `{ content: [...], structuredContent?: {...} }`. */
const IMPORTED_OUTPUT = compileValueSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    content: { type: 'array', items: { type: 'json' }, required: true },
    structuredContent: { type: 'json' },
  },
})

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
}

const toolWhere = (plan: ImportPlan) => `MCP server "${plan.server}" tool "${plan.tool.name}"`

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

/**
 * Sends the call over the plan's connection (Y2.8, Y2.14): waits for a reconnection when the
 * connection is down, and sends a request the server provably never read once more on the new
 * connection; any other failure is coded.
 */
async function send(
  plan: ImportPlan,
  args: JsonObject,
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
      // A plain request, not `callTool`: the SDK's own output checks would throw before ours.
      return await lease.client.request(
        { method: 'tools/call', params: { name: plan.tool.name, arguments: args } },
        {
          signal: run.signal,
          // The runtime's timeout wrapper aborts first; this only bounds a runtime without it.
          timeout: plan.timeoutMs + 1_000,
          onprogress: (p) => run.progress(progressUpdate(p)),
        },
      )
    } catch (error) {
      const broken = connectionFailure(error)
      if (broken !== undefined) plan.link.lost(lease.generation)
      if (broken === 'undelivered' && attempt === 1 && !run.signal.aborted) continue
      throw callFailure(error, plan, run.signal, broken, plan.link.closedBecause(lease.generation))
    }
  }
}

/** The label of every result of an untrusted server's tools (H1.5). */
const UNTRUSTED = Object.freeze({ integrity: 'untrusted' as const })

/**
 * The raw definition for `plan` (Y2.3). Throws when the tool's input or output schema cannot
 * be compiled; the importer reports that tool instead.
 */
export function importedTool(plan: ImportPlan): AnyToolDefinition {
  const checkInput = compileSchemaCheck(plan.tool.inputSchema as Record<string, unknown>)
  const outputSchema = plan.tool.outputSchema as Record<string, unknown> | undefined
  const checkOutput: SchemaCheck | undefined =
    outputSchema === undefined ? undefined : compileSchemaCheck(outputSchema)
  const def: AnyToolDefinition = {
    name: plan.name,
    description: plan.tool.description ?? plan.tool.title ?? plan.tool.name,
    parameters: plan.tool.inputSchema as JsonObject,
    output: { schema: IMPORTED_OUTPUT, render: (_args: unknown, value: ImportedValue) => value.content },
    timeoutMs: plan.timeoutMs,
    ...(plan.effect === undefined ? {} : { effect: plan.effect }),
    // What an untrusted server answers may carry an outsider's instructions (H1.5).
    ...(plan.trusted ? {} : { provenance: UNTRUSTED }),
    async execute(args: JsonValue, run): Promise<ImportedValue> {
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        throw codedError('INVALID_ARGS', 'invalid arguments: MCP tool arguments must be a JSON object')
      const violations = checkInput(args, 'arguments')
      if (violations.length > 0)
        throw codedError('INVALID_ARGS', `invalid arguments: ${violations.join('; ')}`)
      const result = await send(plan, args, run)
      if (result.isError === true) throw remoteFailure(result, plan.trusted)
      const content = result.content.map(fromMcpContent)
      if (checkOutput === undefined) return { content }
      if (result.structuredContent === undefined)
        throw codedError(
          'INVALID_TOOL_OUTPUT',
          `MCP tool "${plan.tool.name}" declares an output schema but returned no structuredContent`,
        )
      const wrong = checkOutput(result.structuredContent, 'value')
      if (wrong.length > 0)
        throw codedError(
          'INVALID_TOOL_OUTPUT',
          `MCP tool "${plan.tool.name}" returned invalid structuredContent: ${wrong.join('; ')}`,
        )
      return { content, structuredContent: result.structuredContent as JsonObject }
    },
  }
  return plan.concurrencySafe ? { ...def, isConcurrencySafe: () => true } : def
}
