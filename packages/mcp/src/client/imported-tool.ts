/**
 * One remote MCP tool as a tooltx raw definition (Y2.3–Y2.8). Its calls are ordinary tooltx
 * calls: the runtime's policy, approvals, guards and timeout apply before anything is sent, the
 * arguments are checked against the server's schema before they leave, and the answer is
 * checked against the server's output schema before the model sees it.
 */
import type { AnyToolDefinition, ContentBlock, JsonObject, JsonValue } from '@tooltx/core'
import { codedError, compileValueSchema } from '@tooltx/core/internal'
import { fromMcpContent } from '../content-blocks.js'
import { type ImportPlan, send } from './remote-call.js'
import { remoteFailure } from './remote-failure.js'
import { compileSchemaCheck, type SchemaCheck } from './schema-check.js'
import { callAsTask } from './task-call.js'

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

/** The label of every result of an untrusted server's tools (H1.5). */
const UNTRUSTED = Object.freeze({ integrity: 'untrusted' as const })

/** Runs `call` with `callId` listed in `running` until it settles (Y2.29). */
async function inFlight<T>(running: string[], callId: string, call: () => Promise<T>): Promise<T> {
  running.push(callId)
  try {
    return await call()
  } finally {
    running.splice(running.indexOf(callId), 1)
  }
}

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
      const result = await inFlight(plan.running, run.callId, () =>
        plan.asTask === true
          ? callAsTask(plan, args, run)
          : send(plan, { method: 'tools/call', params: { name: plan.tool.name, arguments: args } }, run),
      )
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
