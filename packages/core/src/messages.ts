import type { ContentBlock, TextBlock, UserMessage } from './content.js'
import type { JsonValue } from './lossless-json.js'

/** A tool call the model asked for, kept with its raw argument string (L3.4). */
export interface ToolCallBlock {
  type: 'tool-call'
  id: string
  name: string
  /** The raw argument string exactly as the model produced it. */
  arguments: string
}

/** One block of an assistant message. */
export type AssistantBlock = TextBlock | ToolCallBlock

/** An assistant message as derived from `assistant/message` (L2.1). */
export interface AssistantMessage {
  role: 'assistant'
  content: AssistantBlock[]
}

/** A tool message as derived from `tool/result` (L2.1): content and `isError` only (O2.4). */
export interface ToolMessage {
  role: 'tool'
  callId: string
  content: ContentBlock[]
  isError: boolean
}

/** A message of the conversation a model request is built from (L2). */
export type ModelMessage = UserMessage | AssistantMessage | ToolMessage

/** A model-facing tool schema: exactly `{ name, description, parameters }` (S5.6, D1.4). */
export interface ModelToolSchema {
  name: string
  description: string
  parameters: { [key: string]: JsonValue }
}
