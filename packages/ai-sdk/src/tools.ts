/**
 * `aiSdkTools`: a tooltx scope view as AI SDK tools (Z2.6, Z2.7), so code that keeps its own
 * `generateText` / `streamText` loop still sends every call through tooltx's transaction boundary.
 */
import type {
  Approver,
  CodeRuntime,
  ContentBlock,
  JsonValue,
  RuntimeScope,
  ToolResult,
  ToolRuntime,
} from '@tooltx/core'
import { jsonSchema, type Tool, tool } from 'ai'

/** Options of `aiSdkTools`. */
export interface AiSdkToolsOptions {
  /** The scope whose view becomes the tools and in which every call runs; default the global layer. */
  scope?: RuntimeScope
  /** Decides `ask` decisions of these calls (P4); default the runtime's approver. */
  approver?: Approver
  /** The sandbox for `run_code` calls when the view offers it (Code Mode). */
  codeRuntime?: CodeRuntime
}

/** An AI SDK tool whose result is the frozen tooltx result of the call. */
export type TooltxAiSdkTool = Tool<JsonValue, ToolResult>

/**
 * The tools `runtime.view(scope).surface()` offers right now (so `run_code` too in Code Mode), as
 * an AI SDK tool set keyed by name; call it again for each request to see registry changes.
 * Each tool's `execute` is exactly one `runtime.execute({ callId: <the AI SDK's toolCallId>,
 * name, arguments: <the parsed input>, signal: <the call's abortSignal>, scope, approver,
 * codeRuntime })` and resolves the frozen result, never throwing: a denial, a validation error or
 * a tool failure is a result with `isError`. `toModelOutput` shows the model the result's
 * `content` (`error-text` for a failure), never `value` or `meta`. The instructions of Code Mode
 * are not part of tools: send `surface().instructions` in your system prompt.
 */
export function aiSdkTools(
  runtime: Pick<ToolRuntime, 'execute' | 'view'>,
  options: AiSdkToolsOptions = {},
): Record<string, TooltxAiSdkTool> {
  const { scope, approver, codeRuntime } = options
  const tools: Record<string, TooltxAiSdkTool> = {}
  for (const schema of runtime.view(scope).surface().tools) {
    const name = schema.name
    tools[name] = tool({
      description: schema.description,
      inputSchema: jsonSchema<JsonValue>(schema.parameters as Parameters<typeof jsonSchema>[0]),
      execute: (input, { toolCallId, abortSignal }) =>
        runtime.execute({
          callId: toolCallId,
          name,
          arguments: input,
          signal: abortSignal ?? NEVER_ABORTED,
          ...(scope !== undefined ? { scope } : {}),
          ...(approver !== undefined ? { approver } : {}),
          ...(codeRuntime !== undefined ? { codeRuntime } : {}),
        }),
      toModelOutput: ({ output }) => modelOutput(output),
    })
  }
  return tools
}

const NEVER_ABORTED = new AbortController().signal

/** What the model reads of a result: its content, as text when it is only text. */
function modelOutput(result: ToolResult) {
  const texts = result.content.filter(isText).map((block) => block.text)
  if (result.isError) return { type: 'error-text' as const, value: texts.join('\n\n') }
  if (texts.length === result.content.length) return { type: 'text' as const, value: texts.join('\n\n') }
  return {
    type: 'content' as const,
    value: result.content.map((block) =>
      block.type === 'image' && typeof block.data === 'string' && typeof block.mediaType === 'string'
        ? {
            type: 'file' as const,
            mediaType: block.mediaType,
            data: { type: 'data' as const, data: block.data },
          }
        : { type: 'text' as const, text: isText(block) ? block.text : `[${block.type} block omitted]` },
    ),
  }
}

function isText(block: ContentBlock): block is { type: 'text'; text: string } {
  return block.type === 'text' && typeof block.text === 'string'
}
