import { ModelError } from './model-error.js'
import { type EventSourceMessage, eventData, reportedMidStream } from './wire-events.js'
import { bodyMessage } from './wire-request.js'

/** A part of a user message on the Chat Completions wire. */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }

/** A tool call of an assistant message on the wire: the raw argument string. */
export interface ChatToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A message of a Chat Completions request. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; [reasoning: string]: unknown }
  | { role: 'tool'; tool_call_id: string; content: string }

/** A tool as the request offers it. */
export interface ChatTool {
  type: 'function'
  function: { name: string; description: string; parameters: unknown; strict?: boolean }
}

/** `tool_choice` on the wire. */
export type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } }

/** The body of a streaming Chat Completions request. */
export interface ChatRequest {
  model: string
  messages: ChatMessage[]
  stream: true
  stream_options: { include_usage: true }
  tools?: ChatTool[]
  tool_choice?: ChatToolChoice
  max_tokens?: number
  temperature?: number
}

/** One streamed delta of a tool call, as compatible servers send it (any field may be missing). */
export interface ChatToolCallDelta {
  index?: number
  id?: string | null
  function?: { name?: string | null; arguments?: unknown } | null
}

/** A streamed chunk as the adapter reads it; every field is checked before use. */
export interface ChatChunk {
  choices?: unknown
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null
  error?: unknown
}

/**
 * The chunk one server-sent event carries: undefined for the `[DONE]` marker; a `stream`
 * `ModelError` for a chunk that reports an error (`{ error: { message } }`) or is not a JSON object.
 */
export function chatChunk(adapter: string, message: EventSourceMessage): ChatChunk | undefined {
  if (message.data.startsWith('[DONE]')) return undefined
  const data = eventData(adapter, message)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const sent = message.data.slice(0, 200)
    throw new ModelError(adapter, 'stream', `the server sent a chunk that is not a JSON object: ${sent}`)
  }
  const { error } = data as ChatChunk
  if (error !== undefined && error !== null && error !== false) {
    throw reportedMidStream(
      adapter,
      bodyMessage(error) ?? (typeof error === 'string' ? error : JSON.stringify(error)),
    )
  }
  return data as ChatChunk
}
