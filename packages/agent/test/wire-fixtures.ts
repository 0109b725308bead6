/**
 * Wire text for the loopback servers of the adapter tests: Anthropic Messages SSE events and
 * Chat Completions chunks, built the way the providers stream them.
 */

/** One Anthropic Messages SSE event: `type` names it and is repeated in its data. */
export const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** The `message_start` event of an Anthropic reply by `model` that counted `inputTokens`. */
export const messageStart = (model: string, inputTokens: number) =>
  anthropicEvent('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 },
    },
  })

/** The `message_delta` with `reason` and `outputTokens`, then `message_stop`. */
export const anthropicStop = (reason: string, outputTokens: number) => [
  anthropicEvent('message_delta', {
    delta: { stop_reason: reason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  }),
  anthropicEvent('message_stop', {}),
]

/** A whole text block at content-block `index` holding `text`. */
export const anthropicText = (index: number, text: string) => [
  anthropicEvent('content_block_start', { index, content_block: { type: 'text', text: '' } }),
  anthropicEvent('content_block_delta', { index, delta: { type: 'text_delta', text } }),
  anthropicEvent('content_block_stop', { index }),
]

/** A `tool_use` block at content-block `index`, its input streamed as one `json` delta. */
export interface ToolUse {
  index: number
  id: string
  name: string
  json: string
  /** Leaves out `content_block_stop`, as a stream cut inside the block does. */
  unclosed?: boolean
}

/** The events of one `tool_use` block. */
export const anthropicToolUse = ({ index, id, name, json, unclosed }: ToolUse) => [
  anthropicEvent('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } }),
  anthropicEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json } }),
  ...(unclosed === true ? [] : [anthropicEvent('content_block_stop', { index })]),
]

/** One Chat Completions chunk whose only choice (index 0) has `delta` and `finish` as its finish_reason. */
export const chatChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** The chunk that opens tool call 0 as `id`, calling `name`, with the first piece `args` of its arguments. */
export const chatToolCall = (id: string, name: string, args: string) =>
  chatChunk({
    role: 'assistant',
    tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }],
  })

/** A chunk that adds the piece `args` to the arguments of tool call 0. */
export const chatToolArgs = (args: string) =>
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })

/** The Chat Completions stream's last line. */
export const DONE = 'data: [DONE]\n\n'
