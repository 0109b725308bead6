/**
 * A tooltx model request as AI SDK language-model call options (Z2.2): the prompt in the AI
 * SDK's v4 message shape and the tools as function tools.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'
import { type ModelRequest, type ReplyBlock, systemPrompt } from '@tooltx/agent'
import {
  type ContentBlock,
  type ImageBlock,
  type JsonValue,
  type ModelMessage,
  parseToolArguments,
  type TextBlock,
} from '@tooltx/core'

/** The call options for `request`; `prompt` and `tools` are derived, `signal` becomes `abortSignal`. */
export function callOptions(request: ModelRequest, signal: AbortSignal): LanguageModelV4CallOptions {
  const options: LanguageModelV4CallOptions = { prompt: prompt(request), abortSignal: signal }
  if (request.tools.length > 0) options.tools = request.tools.map(functionTool)
  // A request's own bound (a server's sampling, Y2.33) wins over the adapter's settings.
  if (request.maxTokens !== undefined) options.maxOutputTokens = request.maxTokens
  const choice = request.toolChoice
  if (choice !== undefined)
    options.toolChoice =
      typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.tool }
  return options
}

function functionTool(tool: ModelRequest['tools'][number]): LanguageModelV4FunctionTool {
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV4FunctionTool['inputSchema'],
  }
}

function prompt(request: ModelRequest): LanguageModelV4Prompt {
  const messages: LanguageModelV4Message[] = []
  const system = systemPrompt(request)
  if (system !== '') messages.push({ role: 'system', content: system })
  // A tool message carries only its call id (O2.4); the AI SDK also wants the tool's name.
  const toolNames = new Map<string, string>()
  for (const message of request.messages) messages.push(promptMessage(message, toolNames))
  return messages
}

function promptMessage(message: ModelMessage, toolNames: Map<string, string>): LanguageModelV4Message {
  if (message.role === 'user') return { role: 'user', content: message.content.map(userPart) }
  if (message.role === 'assistant') {
    return {
      role: 'assistant',
      content: message.content.flatMap((block): AssistantPart[] => {
        if (block.type === 'text') return [{ type: 'text', text: block.text }]
        if (block.type === 'reasoning') return reasoningPart(block)
        toolNames.set(block.id, block.name)
        // The part wants a value; the provider serializes it again. Parsed as the loop parses it (L4.1).
        return [
          {
            type: 'tool-call',
            toolCallId: block.id,
            toolName: block.name,
            input: parseToolArguments(block.arguments),
          },
        ]
      }),
    }
  }
  return {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: message.callId,
        toolName: toolNames.get(message.callId) ?? '',
        output: toolOutput(message.content, message.isError),
      },
    ],
  }
}

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number]

/**
 * A reasoning block of this bridge as a reasoning part with its provider metadata as provider
 * options, so the provider gets its signature back (T1.4); other wires' reasoning is left out.
 */
function reasoningPart(block: Extract<ReplyBlock, { type: 'reasoning' }>): AssistantPart[] {
  if (block.wire !== 'ai-sdk') return []
  const metadata = (block.data as { providerMetadata?: SharedV4ProviderOptions } | undefined)
    ?.providerMetadata
  return [
    { type: 'reasoning', text: block.text, ...(metadata === undefined ? {} : { providerOptions: metadata }) },
  ]
}

function userPart(block: ContentBlock) {
  if (isImage(block)) {
    return {
      type: 'file' as const,
      mediaType: block.mediaType,
      data: { type: 'data' as const, data: block.data },
    }
  }
  return { type: 'text' as const, text: isText(block) ? block.text : omitted(block) }
}

/**
 * A tool result's content as tool output: one text block (or none) as `text`, or `error-text`
 * for a failure; several blocks or an image as `content` parts. The error flag survives only as
 * the `error-text` kind, so a failure with images is sent as its text with the images noted.
 */
function toolOutput(content: readonly ContentBlock[], isError: boolean): LanguageModelV4ToolResultOutput {
  const onlyText = content.every(isText)
  if (isError || onlyText) {
    const value = content.map((block) => (isText(block) ? block.text : omitted(block))).join('\n\n')
    return { type: isError ? 'error-text' : 'text', value }
  }
  return {
    type: 'content',
    value: content.map((block) =>
      isImage(block)
        ? { type: 'file', mediaType: block.mediaType, data: { type: 'data', data: block.data } }
        : { type: 'text', text: isText(block) ? block.text : omitted(block) },
    ),
  }
}

function isText(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: JsonValue }).text === 'string'
}

function isImage(block: ContentBlock): block is ImageBlock {
  const { mediaType, data } = block as { mediaType?: JsonValue; data?: JsonValue }
  return block.type === 'image' && typeof mediaType === 'string' && typeof data === 'string'
}

function omitted(block: ContentBlock): string {
  return `[${block.type} block omitted: the AI SDK prompt cannot take this block type]`
}
