import {
  type ContentBlock,
  type JsonValue,
  type ModelMessage,
  parseToolArguments,
  type ReasoningBlock,
} from '@tooltx/core'
import type { StopReason, ToolChoice } from '@tooltx/session'
import {
  type ContentBlockParam,
  type ImageBlockParam,
  type MessageParam,
  type MessagesRequest,
  messageEvent,
  type TextBlockParam,
  type Tool,
} from './anthropic-wire.js'
import { isImage, isText } from './block-guards.js'
import { finalReply } from './final-reply.js'
import { type ModelAdapter, type ModelRequest, type ModelStreamEvent, systemPrompt } from './model.js'
import { unfinishedStream } from './model-error.js'
import { omittedBlockNote, UNSUPPORTED_BLOCK } from './omitted-block-note.js'
import { isReasoning, type ReplyBlock } from './reasoning.js'
import { type ProviderApi, wireEndpoint } from './wire-endpoint.js'
import { wireEvents } from './wire-events.js'
import type { ModelRetry } from './wire-retry.js'

/** Options of `anthropic`. */
export interface AnthropicOptions {
  /** The API key, sent as `x-api-key` with every request. */
  apiKey: string
  /** The model id, such as `claude-sonnet-4-5`. */
  model: string
  /** The API's base URL; default `https://api.anthropic.com`. */
  baseURL?: string
  /** The reply's token limit (`max_tokens`, required by the API); default 4096. */
  maxTokens?: number
  /** Automatic retries of failed requests (connection errors, 408, 409, 429, 5xx); default 2. */
  maxRetries?: number
  /** Per-request timeout in milliseconds; default 600 000. */
  timeoutMs?: number
  /**
   * Told of each automatic retry of an HTTP answer before its wait: the status, the wait, and
   * which attempt comes next of how many (L12.7); must not throw.
   */
  onRetry?: (retry: ModelRetry) => void
  /** Extra HTTP headers sent with every request (for example `anthropic-beta`). */
  headers?: Record<string, string>
  /**
   * Extended thinking: sent as `thinking: { type: 'enabled', budget_tokens }` (T1.2). The
   * replies' thinking blocks are recorded and sent back unchanged; absent, no thinking is asked for.
   */
  thinking?: { budgetTokens: number }
}

const DEFAULT_MAX_TOKENS = 4096
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])
const UNSUPPORTED_IMAGE = 'the provider takes only image/jpeg, image/png, image/gif and image/webp'
/** The stop reasons that mean the provider cut the reply, with what to do about it (L12.2). */
const CUT_HINTS: Readonly<Record<string, string>> = {
  max_tokens: 'Raise maxTokens, or ask for smaller tool inputs.',
  model_context_window_exceeded: "The conversation fills the model's context window; shorten it.",
  refusal: 'The model stopped the reply as a refusal; rephrase the request.',
}
/** `stop_reason` in tooltx's words (T2.1). */
const STOPS: Readonly<Record<string, StopReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'context_window',
  refusal: 'refusal',
}
const WIRE = 'anthropic'

/** The Messages API version the adapter speaks (`anthropic-version`). */
const API_VERSION = '2026-10-21'

/** The Messages API, spoken over HTTP by the adapter itself (L12.4). */
const API: ProviderApi = {
  factory: 'anthropic',
  defaultBaseURL: 'https://api.anthropic.com',
  path: '/v1/messages',
  headers: (apiKey) => ({ 'x-api-key': apiKey, 'anthropic-version': API_VERSION }),
}

/**
 * A model behind the Anthropic Messages API (streaming).
 *
 * Mapping (see the README for the why):
 * - system + instructions → `system` (joined by a blank line);
 * - user blocks → text and base64 image blocks (other image types and block types → a text note);
 * - assistant → its own thinking and redacted_thinking blocks exactly as received (T1.2; other
 *   wires' reasoning left out), text blocks (empty ones left out) and `tool_use` blocks; the API needs an
 *   object `input`, so a raw argument string that is empty becomes `{}`, one that parses to a
 *   JSON object is sent as that object, and anything else is sent as `{ "_raw": "<string>" }`;
 * - tool messages → `tool_result` blocks with `is_error`, images included; consecutive
 *   user-side messages (tool results, then contexts or user text) merge into one user message.
 *
 * The reply is complete only at `message_stop` (L12.1); one whose `stop_reason` says it was cut
 * fails when it holds tool calls (L12.2). The adapter speaks HTTP itself: no SDK to install (L12.4).
 */
export function anthropic(options: AnthropicOptions): ModelAdapter {
  const name = `anthropic:${options.model}`
  const endpoint = wireEndpoint(name, options, API)
  return {
    name,
    async *stream(request, signal): AsyncGenerator<ModelStreamEvent, void, undefined> {
      const body = messagesRequest(request, options)

      // Blocks in content-block order; `toolIndex` maps a content-block index to the call's ordinal.
      const blocks: ReplyBlock[] = []
      const blockAt = new Map<number, ReplyBlock>()
      // The provider's own thinking blocks, filled in as their deltas arrive (T1.2).
      const thinkingAt = new Map<number, { type: 'thinking'; thinking: string; signature: string }>()
      const toolIndex = new Map<number, number>()
      const startInputs = new Map<number, unknown>()
      let inputTokens = 0
      let outputTokens = 0
      let stopped = false
      let stopReason: string | undefined
      yield* wireEvents(endpoint, body, signal, function* (message): Iterable<ModelStreamEvent> {
        const event = messageEvent(name, message)
        if (event === undefined) return
        if (event.type === 'message_start') {
          const usage = event.message.usage
          inputTokens =
            (usage.input_tokens ?? 0) +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0)
          outputTokens = usage.output_tokens ?? 0
        } else if (event.type === 'content_block_start') {
          const block = event.content_block
          if (block.type === 'text') {
            const text: ReplyBlock = { type: 'text', text: block.text }
            blocks.push(text)
            blockAt.set(event.index, text)
            if (block.text !== '') yield { type: 'text-delta', text: block.text }
          } else if (block.type === 'tool_use') {
            const call: ReplyBlock = {
              type: 'tool-call',
              id: block.id,
              name: block.name,
              arguments: '',
            }
            blocks.push(call)
            blockAt.set(event.index, call)
            toolIndex.set(event.index, toolIndex.size)
            if (isNonEmptyObject(block.input)) startInputs.set(event.index, block.input)
            const index = toolIndex.get(event.index)!
            yield { type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta: '' }
          } else if (block.type === 'thinking') {
            const own = { type: 'thinking' as const, thinking: block.thinking, signature: block.signature }
            const reasoning: ReasoningBlock = {
              type: 'reasoning',
              wire: WIRE,
              text: block.thinking,
              data: own,
            }
            blocks.push(reasoning)
            blockAt.set(event.index, reasoning)
            thinkingAt.set(event.index, own)
            if (block.thinking !== '') yield { type: 'reasoning-delta', text: block.thinking }
          } else if (block.type === 'redacted_thinking') {
            const data = { type: 'redacted_thinking', data: block.data }
            blocks.push({ type: 'reasoning', wire: WIRE, text: '', redacted: true, data })
          }
          // Server-tool blocks are not part of tooltx's message model; they are skipped.
        } else if (event.type === 'content_block_delta') {
          const target = blockAt.get(event.index)
          const delta = event.delta
          const thinking = thinkingAt.get(event.index)
          if (delta.type === 'thinking_delta' && thinking !== undefined && target?.type === 'reasoning') {
            thinking.thinking += delta.thinking
            target.text += delta.thinking
            yield { type: 'reasoning-delta', text: delta.thinking }
          } else if (delta.type === 'signature_delta' && thinking !== undefined) {
            thinking.signature += delta.signature
          } else if (delta.type === 'text_delta' && target?.type === 'text') {
            target.text += delta.text
            yield { type: 'text-delta', text: delta.text }
          } else if (delta.type === 'input_json_delta' && target?.type === 'tool-call') {
            target.arguments += delta.partial_json
            const index = toolIndex.get(event.index)!
            yield { type: 'tool-call-delta', index, argumentsDelta: delta.partial_json }
          }
        } else if (event.type === 'content_block_stop') {
          // Some proxies send the whole input at the start and no input_json_delta; keep it as the raw string.
          const target = blockAt.get(event.index)
          const input = startInputs.get(event.index)
          if (target?.type === 'tool-call' && target.arguments === '' && input !== undefined) {
            target.arguments = JSON.stringify(input)
            const index = toolIndex.get(event.index)!
            yield { type: 'tool-call-delta', index, argumentsDelta: target.arguments }
          }
        } else if (event.type === 'message_delta') {
          if (typeof event.usage.output_tokens === 'number') outputTokens = event.usage.output_tokens
          if (typeof event.delta.stop_reason === 'string') stopReason = event.delta.stop_reason
        } else if (event.type === 'message_stop') {
          stopped = true
        }
      })
      if (!stopped) throw unfinishedStream(name, 'message_stop')
      yield finalReply({
        adapter: name,
        field: 'stop_reason',
        raw: stopReason,
        stops: STOPS,
        cutHints: CUT_HINTS,
        content: blocks.filter((block) => block.type !== 'text' || block.text !== ''),
        usage: { inputTokens, outputTokens },
        hasToolCalls: toolIndex.size > 0,
      })
    },
  }
}

/** The streaming Messages API request for `request` under the adapter's `options`. */
function messagesRequest(request: ModelRequest, options: AnthropicOptions): MessagesRequest {
  const body: MessagesRequest = {
    model: options.model,
    max_tokens: request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
    messages: anthropicMessages(request.messages),
    stream: true,
  }
  const system = systemPrompt(request)
  if (system !== '') body.system = system
  if (request.tools.length > 0) body.tools = request.tools.map(anthropicTool)
  if (request.toolChoice !== undefined) body.tool_choice = anthropicToolChoice(request.toolChoice)
  if (options.thinking !== undefined) {
    body.thinking = { type: 'enabled', budget_tokens: options.thinking.budgetTokens }
  }
  return body
}

/**
 * The Messages API conversation: tool messages become `tool_result` blocks, and
 * consecutive messages of the same role merge, as the API requires strict alternation
 * with tool results first in their user message.
 */
function anthropicMessages(messages: Iterable<ModelMessage>): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = []
  for (const message of messages) {
    let role: 'user' | 'assistant'
    let content: ContentBlockParam[]
    if (message.role === 'assistant') {
      role = 'assistant'
      content = message.content.flatMap((block): ContentBlockParam[] => {
        if (isReasoning(block)) return ownThinking(block)
        if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }]
        return [{ type: 'tool_use', id: block.id, name: block.name, input: toolInput(block.arguments) }]
      })
    } else if (message.role === 'tool') {
      role = 'user'
      const result = wireBlocks(message.content)
      content = [
        {
          type: 'tool_result',
          tool_use_id: message.callId,
          is_error: message.isError,
          ...(result.length === 0 ? {} : { content: result }),
        },
      ]
    } else {
      role = 'user'
      content = wireBlocks(message.content)
    }
    // A message left with no content (an empty text) would be rejected; it carries nothing.
    if (content.length === 0) continue
    const last = out.at(-1)
    if (last !== undefined && last.role === role) last.content.push(...content)
    else out.push({ role, content })
  }
  return out
}

// Text and images as the API takes them; an empty text block would be rejected and says nothing.
function wireBlocks(content: readonly ContentBlock[]): (TextBlockParam | ImageBlockParam)[] {
  const out: (TextBlockParam | ImageBlockParam)[] = []
  for (const block of content) {
    if (isText(block)) {
      if (block.text !== '') out.push({ type: 'text', text: block.text })
    } else if (isImage(block) && IMAGE_TYPES.has(block.mediaType)) {
      const mediaType = block.mediaType as 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
      out.push({ type: 'image', source: { type: 'base64', media_type: mediaType, data: block.data } })
    } else {
      const why = isImage(block) ? UNSUPPORTED_IMAGE : UNSUPPORTED_BLOCK
      out.push({ type: 'text', text: omittedBlockNote(block, why) })
    }
  }
  return out
}

/**
 * The object `input` of a `tool_use` block for a raw argument string: `{}` for an empty or
 * whitespace-only string (as L4.1 parses it), the parsed object for a JSON object, and
 * `{ "_raw": <string> }` for anything else, so the model still sees exactly what it sent.
 */
function toolInput(raw: string): Record<string, unknown> {
  const parsed = parseToolArguments(raw)
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed
  return { _raw: raw }
}

/**
 * A reasoning block as the API takes it back (T1.2): the recorded thinking or redacted_thinking
 * block itself, unchanged, when this wire produced it; nothing for another wire's reasoning.
 */
function ownThinking(block: ReasoningBlock): ContentBlockParam[] {
  const own = block.data as { [key: string]: JsonValue } | undefined
  const kind = own?.type
  if (block.wire !== WIRE || (kind !== 'thinking' && kind !== 'redacted_thinking')) return []
  return [own as unknown as ContentBlockParam]
}

function anthropicToolChoice(choice: ToolChoice): NonNullable<MessagesRequest['tool_choice']> {
  if (choice === 'auto' || choice === 'none') return { type: choice }
  if (choice === 'required') return { type: 'any' }
  return { type: 'tool', name: choice.tool }
}

function anthropicTool(tool: ModelRequest['tools'][number]): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Tool['input_schema'],
  }
}

function isNonEmptyObject(x: unknown): boolean {
  return typeof x === 'object' && x !== null && Object.keys(x).length > 0
}
