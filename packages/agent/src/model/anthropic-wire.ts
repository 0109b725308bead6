import { ModelError } from './model-error.js'
import { type EventSourceMessage, eventData, reportedMidStream } from './wire-events.js'
import { bodyMessage } from './wire-request.js'

/** A text block of a Messages API request. */
export interface TextBlockParam {
  type: 'text'
  text: string
}

/** A base64 image block of a Messages API request. */
export interface ImageBlockParam {
  type: 'image'
  source: {
    type: 'base64'
    media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'
    data: string
  }
}

/** A content block of a Messages API request message. */
export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_result'
      tool_use_id: string
      is_error: boolean
      content?: (TextBlockParam | ImageBlockParam)[]
    }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }

/** A message of a Messages API request. */
export interface MessageParam {
  role: 'user' | 'assistant'
  content: ContentBlockParam[]
}

/** A tool as the request offers it. */
export interface Tool {
  name: string
  description: string
  input_schema: unknown
}

/** The body of a streaming Messages API request. */
export interface MessagesRequest {
  model: string
  max_tokens: number
  messages: MessageParam[]
  stream: true
  system?: string
  tools?: Tool[]
  tool_choice?: { type: 'auto' | 'none' | 'any' } | { type: 'tool'; name: string }
  thinking?: { type: 'enabled'; budget_tokens: number }
}

/** The stream events the adapter reads; fields it reads are checked where the wire may lie. */
export type MessageStreamEvent =
  | {
      type: 'message_start'
      message: { usage: Partial<Record<UsageField, number | null>> }
    }
  | { type: 'content_block_start'; index: number; content_block: StartedBlock }
  | { type: 'content_block_delta'; index: number; delta: BlockDelta }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: { stop_reason?: string | null }
      usage: { output_tokens?: number | null }
    }
  | { type: 'message_stop' }

type UsageField = 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'

/** A content block as `content_block_start` opens it. */
export type StartedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input?: unknown }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'server_tool_use' | 'web_search_tool_result' }

/** A `content_block_delta`'s delta. */
export type BlockDelta =
  | { type: 'text_delta'; text: string }
  | { type: 'input_json_delta'; partial_json: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'signature_delta'; signature: string }
  | { type: 'citations_delta' }

/** The event types the adapter reads; any other (`ping`, new ones) is skipped. */
const READ: ReadonlySet<string> = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
])

/**
 * The stream event one server-sent event carries: undefined for an event the adapter does not
 * read (`ping`); a `stream` `ModelError` for an `error` event (in the server's words,
 * `{ type: 'error', error: { message } }`) or data that is not a JSON object.
 */
export function messageEvent(adapter: string, message: EventSourceMessage): MessageStreamEvent | undefined {
  if (message.event === 'error') {
    const data = safeJson(message.data)
    const nested = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
    throw reportedMidStream(adapter, bodyMessage(nested) ?? bodyMessage(data) ?? message.data)
  }
  if (message.event === undefined || !READ.has(message.event)) return undefined
  const data = eventData(adapter, message)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const sent = message.data.slice(0, 200)
    throw new ModelError(
      adapter,
      'stream',
      `the server sent a "${message.event}" event that is not a JSON object: ${sent}`,
    )
  }
  return data as MessageStreamEvent
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
