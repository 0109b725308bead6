import { randomUUID } from 'node:crypto'
import {
  type AssistantMessage,
  type ModelMessage,
  type ModelToolSchema,
  parseToolArguments,
  type ReasoningBlock,
  type ToolMessage,
  type UserMessage,
} from '@tooltx/core'
import type { StopReason, ToolChoice } from '@tooltx/session'
import { isImage, isText } from './block-guards.js'
import { finalReply } from './final-reply.js'
import { type ModelAdapter, type ModelRequest, type ModelStreamEvent, systemPrompt } from './model.js'
import { ModelError, unfinishedStream } from './model-error.js'
import { omittedBlockNote, UNSUPPORTED_BLOCK } from './omitted-block-note.js'
import {
  type ChatChunk,
  type ChatContentPart,
  type ChatMessage,
  type ChatRequest,
  type ChatTool,
  type ChatToolCallDelta,
  type ChatToolChoice,
  chatChunk,
} from './openai-wire.js'
import { type ReplyBlock, reasoningOf } from './reasoning.js'
import { restoreOptional, strictParameters } from './strict-schema.js'
import { type ProviderApi, wireEndpoint } from './wire-endpoint.js'
import { wireEvents } from './wire-events.js'
import type { ModelRetry } from './wire-retry.js'

/** Options of `openaiCompatible`. */
export interface OpenAICompatibleOptions {
  /** The server's base URL, such as `http://localhost:11434/v1`; default `https://api.openai.com/v1`. */
  baseURL?: string
  /** Sent as `Authorization: Bearer <apiKey>`; local servers accept any placeholder. */
  apiKey: string
  /** The model id the server knows, such as `gpt-4.1` or `deepseek-chat`. */
  model: string
  /** Sent as `max_tokens` when set; the server's default otherwise. */
  maxTokens?: number
  /** Sent as `temperature` when set. */
  temperature?: number
  /** Automatic retries of failed requests (connection errors, 408, 409, 429, 5xx); default 2. */
  maxRetries?: number
  /** Per-request timeout in milliseconds; default 600 000. */
  timeoutMs?: number
  /**
   * Told of each automatic retry of an HTTP answer before its wait: the status, the wait, and
   * which attempt comes next of how many (L12.7); must not throw.
   */
  onRetry?: (retry: ModelRetry) => void
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>
  /**
   * Sends each tool in OpenAI strict mode (`strict: true`, its parameters in strict form) when
   * strict mode can express them, and maps the nulls it makes the model send for absent optional
   * properties back to absent keys before validation (Z1); default `false`.
   */
  strictTools?: boolean
}

const IMAGE_IN_TOOL_RESULT = 'the provider cannot take images in tool results'
/** The finish reasons that mean the provider cut the reply, with what to do about it (L12.2). */
const CUT_HINTS: Readonly<Record<string, string>> = {
  length: 'Raise maxTokens, or ask for smaller tool inputs.',
  content_filter: "The provider's content filter stopped the reply; rephrase the request.",
}
/** `finish_reason` in tooltx's words (T2.1). */
const STOPS: Readonly<Record<string, StopReason>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'max_tokens',
  content_filter: 'content_filter',
}
const WIRE = 'openai-compatible'
/** The delta fields compatible servers stream reasoning in (DeepSeek, vLLM, SGLang; OpenRouter, Ollama). */
const REASONING_FIELDS = ['reasoning_content', 'reasoning'] as const

/** The Chat Completions API, spoken over HTTP by the adapter itself (L12.4). */
const API: ProviderApi = {
  factory: 'openaiCompatible',
  defaultBaseURL: 'https://api.openai.com/v1',
  path: '/chat/completions',
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
}

/**
 * A model behind the OpenAI Chat Completions API (`stream: true`), so it works with
 * OpenAI, DeepSeek, vLLM, Ollama and any server that speaks the same wire.
 *
 * Mapping (see the README for the why):
 * - system + instructions → one `system` message (joined by a blank line);
 * - user blocks → a plain string for a single text block, otherwise parts: text → text
 *   part, image → `image_url` data-URL part, other block types → a text note;
 * - assistant → text blocks joined by a blank line, tool calls → `tool_calls` with the raw
 *   argument string, and on a message with tool calls its own reasoning in the field it came in
 *   (`reasoning_content`), as DeepSeek requires during tool use (T1.3);
 * - tool messages → `role: 'tool'` with `tool_call_id` and one string; the wire has no error
 *   flag, so an `isError` result whose text does not already start with `Error:` is sent with
 *   an `Error: ` prefix; image and other blocks become a text note, never dropped silently.
 *
 * The reply is complete only once choice 0 has a `finish_reason` (L12.1); one cut by `length` or
 * `content_filter` fails when it holds tool calls (L12.2); an `arguments` sent as a JSON value
 * is kept as its JSON text (L12.3). The adapter speaks HTTP itself: no SDK to install (L12.4).
 * With `strictTools`, tools go out in strict mode and the loop parses their arguments through
 * `parseArguments`, which removes the nulls that stand for absent optional properties (Z1).
 */
export function openaiCompatible(options: OpenAICompatibleOptions): ModelAdapter {
  const name = `openai-compatible:${options.model}`
  const endpoint = wireEndpoint(name, options, API)
  const adapter: ModelAdapter = {
    name,
    async *stream(request, signal): AsyncGenerator<ModelStreamEvent, void, undefined> {
      const calls = new ToolCallCollector(name)
      let finish: string | undefined
      let text = ''
      let reasoning: { field: string; text: string } | undefined
      let inputTokens = 0
      let outputTokens = 0
      const body = chatRequest(request, options)
      yield* wireEvents(endpoint, body, signal, function* (message): Iterable<ModelStreamEvent> {
        const chunk = chatChunk(name, message)
        if (chunk === undefined) return
        const usage = chunk.usage
        if (typeof usage === 'object' && usage !== null) {
          inputTokens = count(usage.prompt_tokens)
          outputTokens = count(usage.completion_tokens)
        }
        // Only the first choice is read: tooltx never asks for `n > 1`.
        const choice = firstChoice(chunk)
        // A compatible server may send any string (or "").
        const reason = choice?.finish_reason
        if (typeof reason === 'string' && reason !== '') finish = reason
        const delta = choice?.delta
        if (typeof delta !== 'object' || delta === null) return
        const piece = reasoningPiece(delta)
        if (piece !== undefined) {
          reasoning ??= { field: piece.field, text: '' }
          reasoning.text += piece.text
          yield { type: 'reasoning-delta', text: piece.text }
        }
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content
          yield { type: 'text-delta', text: delta.content }
        }
        const toolCalls = Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []
        for (const call of toolCalls) if (typeof call === 'object' && call !== null) yield calls.add(call)
      })
      // `finish_reason` is the wire's end marker; `[DONE]` may or may not follow (L12.1).
      if (finish === undefined) throw unfinishedStream(name, 'a finish_reason')
      const toolCalls = calls.blocks()
      const content: ReplyBlock[] = []
      if (reasoning !== undefined) {
        content.push({ type: 'reasoning', wire: WIRE, text: reasoning.text, data: reasoning.field })
      }
      if (text !== '') content.push({ type: 'text', text })
      content.push(...toolCalls)
      yield finalReply({
        adapter: name,
        field: 'finish_reason',
        raw: finish,
        stops: STOPS,
        cutHints: CUT_HINTS,
        content,
        usage: { inputTokens, outputTokens },
        hasToolCalls: toolCalls.length > 0,
      })
    },
  }
  return options.strictTools === true ? { ...adapter, parseArguments: strictArguments } : adapter
}

/**
 * The arguments of a strict-mode call (Z1.3): parsed as L4.1 says, then, when the request sent
 * the tool in strict mode, with the nulls that stand for absent optional properties removed.
 */
function strictArguments(call: { name: string; arguments: string }, tools: readonly ModelToolSchema[]) {
  const args = parseToolArguments(call.arguments)
  const tool = tools.find((candidate) => candidate.name === call.name)
  if (tool === undefined || strictParameters(tool.parameters) === undefined) return args
  return restoreOptional(tool.parameters, args)
}

/** One streamed tool call so far; `whole` once its arguments arrived as one JSON value. */
interface CollectedCall {
  id: string
  name: string
  arguments: string
  whole: boolean
}

/** Accumulates streamed tool calls by their wire index, in order of first appearance. */
class ToolCallCollector {
  readonly #adapter: string
  #byKey = new Map<number, CollectedCall>()
  #ordinal = new Map<number, number>()
  #lastKey = -1

  constructor(adapter: string) {
    this.#adapter = adapter
  }

  /** Adds one wire delta of a call; throws a `stream` `ModelError` for arguments it cannot join (L12.3). */
  add(call: ChatToolCallDelta): ModelStreamEvent {
    const key = this.#keyOf(call)
    let entry = this.#byKey.get(key)
    if (entry === undefined) {
      entry = { id: '', name: '', arguments: '', whole: false }
      this.#byKey.set(key, entry)
      this.#ordinal.set(key, this.#ordinal.size)
    }
    this.#lastKey = key
    const index = this.#ordinal.get(key)!
    const event: ModelStreamEvent = {
      type: 'tool-call-delta',
      index,
      argumentsDelta: '',
    }
    if (typeof call.id === 'string' && call.id !== '' && entry.id === '') {
      entry.id = call.id
      event.id = call.id
    }
    const name = call.function?.name
    if (typeof name === 'string' && name !== '' && entry.name === '') {
      entry.name = name
      event.name = name
    }
    event.argumentsDelta = this.#piece(entry, index, call.function?.arguments)
    entry.arguments += event.argumentsDelta
    return event
  }

  /**
   * The next raw argument piece: a string as sent, nothing for null. Some servers send the
   * arguments as one JSON value instead of a string; it becomes its JSON text, which L4.1 parses
   * back to the value sent (L12.3). Such a value next to non-empty string pieces, or a
   * second one, leaves no way to tell what the model meant, so the reply fails.
   */
  #piece(entry: CollectedCall, index: number, args: unknown): string {
    if (args === undefined || args === null) return ''
    if (typeof args === 'string') {
      if (args !== '' && entry.whole) throw this.#mixed(entry, index)
      return args
    }
    if (entry.whole || entry.arguments !== '') throw this.#mixed(entry, index)
    entry.whole = true
    return JSON.stringify(args)
  }

  #mixed(entry: CollectedCall, index: number): ModelError {
    const call = entry.name === '' ? `tool call ${index}` : `tool call ${index} ("${entry.name}")`
    return new ModelError(
      this.#adapter,
      'stream',
      `${call} sent its arguments both as a JSON value and as more pieces, so they cannot be joined ` +
        "into what the model meant; none of the reply's tool calls ran. The server breaks the Chat Completions wire.",
    )
  }

  /** The collected calls as blocks; a call the server sent without an id gets a fresh one. */
  blocks(): ReplyBlock[] {
    return [...this.#byKey.values()].map((call) => ({
      type: 'tool-call',
      id: call.id === '' ? `call_${randomUUID()}` : call.id,
      name: call.name,
      arguments: call.arguments,
    }))
  }

  // Some servers omit `index`; then a new id starts a new call and anything else continues the last one.
  #keyOf(call: { index?: number; id?: string | null }): number {
    if (typeof call.index === 'number' && Number.isInteger(call.index)) return call.index
    const known = [...this.#byKey.entries()].find(([, entry]) => entry.id !== '' && entry.id === call.id)
    if (known !== undefined) return known[0]
    if ((typeof call.id === 'string' && call.id !== '') || this.#lastKey < 0) {
      return Math.max(-1, ...this.#byKey.keys()) + 1
    }
    return this.#lastKey
  }
}

/** Joins the texts of several blocks that the wire takes as one string. */
function joinTexts(texts: readonly string[]): string {
  return texts.join('\n\n')
}

/** The streaming Chat Completions request for `request` under the adapter's `options`. */
function chatRequest(request: ModelRequest, options: OpenAICompatibleOptions): ChatRequest {
  const body: ChatRequest = {
    model: options.model,
    messages: chatMessages(request),
    stream: true,
    stream_options: { include_usage: true },
  }
  // Some compatible servers reject an empty `tools` array, so it is left out.
  const strict = options.strictTools === true
  if (request.tools.length > 0) body.tools = request.tools.map((tool) => chatTool(tool, { strict }))
  const maxTokens = request.maxTokens ?? options.maxTokens
  if (maxTokens !== undefined) body.max_tokens = maxTokens
  if (options.temperature !== undefined) body.temperature = options.temperature
  if (request.toolChoice !== undefined) body.tool_choice = chatToolChoice(request.toolChoice)
  return body
}

/** The Chat Completions messages of a request, system prompt first. */
function chatMessages(request: ModelRequest): ChatMessage[] {
  const messages: ChatMessage[] = []
  const system = systemPrompt(request)
  if (system !== '') messages.push({ role: 'system', content: system })
  for (const message of request.messages) messages.push(chatMessage(message))
  return messages
}

function chatMessage(message: ModelMessage): ChatMessage {
  if (message.role === 'user') return userMessage(message)
  if (message.role === 'tool') return toolMessage(message)
  return assistantMessage(message)
}

function assistantMessage(message: AssistantMessage): ChatMessage {
  const texts: string[] = []
  const toolCalls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = []
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text)
    else if (block.type === 'tool-call')
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: block.arguments },
      })
  }
  const text = joinTexts(texts)
  if (toolCalls.length === 0) return { role: 'assistant', content: text }
  const wire: ChatMessage = {
    role: 'assistant',
    content: text === '' ? null : text,
    tool_calls: toolCalls,
  }
  return withReasoning(wire, reasoningOf(message.content, WIRE))
}

/**
 * The message with this wire's reasoning put back in the delta field it arrived in (T1.3), so
 * a server that checks it during tool use (DeepSeek) gets exactly what it sent.
 */
function withReasoning(wire: ChatMessage, reasoning: readonly ReasoningBlock[]) {
  const [first] = reasoning
  if (first === undefined) return wire
  const field = typeof first.data === 'string' ? first.data : REASONING_FIELDS[0]
  return { ...wire, [field]: joinTexts(reasoning.map((block) => block.text)) } as ChatMessage
}

/** The first choice of a chunk (index 0), if it has one that is an object. */
function firstChoice(
  chunk: ChatChunk,
): { finish_reason?: unknown; delta?: Record<string, unknown> | null } | undefined {
  if (!Array.isArray(chunk.choices)) return undefined
  return chunk.choices.find(
    (choice: unknown) =>
      typeof choice === 'object' && choice !== null && (choice as { index?: unknown }).index === 0,
  )
}

/** A token count from the wire: the number when it is one, else 0. */
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0
}

/** The reasoning piece of one delta, if it has a non-empty one in a known field. */
function reasoningPiece(delta: Record<string, unknown>): { field: string; text: string } | undefined {
  for (const field of REASONING_FIELDS) {
    const text = delta[field]
    if (typeof text === 'string' && text !== '') return { field, text }
  }
  return undefined
}

function chatToolChoice(choice: ToolChoice): ChatToolChoice {
  if (typeof choice === 'string') return choice
  return { type: 'function', function: { name: choice.tool } }
}

function userMessage(message: UserMessage): ChatMessage {
  const [only] = message.content
  if (message.content.length === 1 && only !== undefined && isText(only))
    return { role: 'user', content: only.text }
  const parts: ChatContentPart[] = message.content.map((block) => {
    if (isText(block)) return { type: 'text', text: block.text }
    if (isImage(block)) {
      return { type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } }
    }
    return { type: 'text', text: omittedBlockNote(block, UNSUPPORTED_BLOCK) }
  })
  return { role: 'user', content: parts }
}

function toolMessage(message: ToolMessage): ChatMessage {
  const texts = message.content.map((block) => {
    if (isText(block)) return block.text
    return omittedBlockNote(block, isImage(block) ? IMAGE_IN_TOOL_RESULT : UNSUPPORTED_BLOCK)
  })
  let content = joinTexts(texts)
  // The wire has no error flag: a failure says so in its own text (O2.4).
  if (message.isError && !content.startsWith('Error:')) {
    content = content === '' ? 'Error: the tool failed without a message' : `Error: ${content}`
  }
  return { role: 'tool', tool_call_id: message.callId, content }
}

/** A tool on the wire; in strict mode, strict whenever its parameters have a strict form (Z1.1, Z1.2). */
function chatTool(tool: ModelToolSchema, { strict }: { strict: boolean }): ChatTool {
  const parameters = strict ? strictParameters(tool.parameters) : undefined
  if (parameters === undefined) {
    return {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }
  }
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters, strict },
  }
}
