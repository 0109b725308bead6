import { type JsonValue, parseFrozenJson } from '../foundation/lossless-json.js'
import type { ContentBlock, TextBlock, UserMessage } from './content.js'

/** A tool call the model asked for, kept with its raw argument string (L3.4). */
export interface ToolCallBlock {
  type: 'tool-call'
  id: string
  name: string
  /** The raw argument string exactly as the model produced it. */
  arguments: string
}

/**
 * Reasoning a model produced before or between its answer's blocks (T1.1). Opaque and
 * lossless: `data` is what the wire needs to get it back exactly (Anthropic's own
 * `{ type: 'thinking', thinking, signature }` block, a field name, provider metadata), and only
 * an adapter of the same `wire` sends it back, unchanged; every other adapter leaves it out.
 * `text` is what people may read (`''` when `redacted`). Tools never see it.
 */
export interface ReasoningBlock {
  type: 'reasoning'
  /** The wire that produced it: `anthropic`, `openai-compatible` or `ai-sdk`. */
  wire: string
  /** The readable reasoning; `''` when `redacted`. */
  text: string
  /** True when the provider sent the reasoning encrypted only. */
  redacted?: boolean
  data?: JsonValue
}

/** One block of an assistant message: text, a tool call or reasoning (T1.1). */
export type AssistantBlock = TextBlock | ToolCallBlock | ReasoningBlock

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

/**
 * Parses a model's raw argument string as the agent loop does (L4.1): empty or whitespace-only
 * → `{}`, valid JSON → the parsed value, anything else → the raw string itself. Never throws;
 * a value that is not a string (a JavaScript caller's mistake) parses as `{}`. With `freeze`,
 * lossless JSON text comes back as a frozen snapshot parsed in place (Q3.2), which `execute`
 * takes without copying (Q3.1); JSON that is not lossless still comes back unfrozen, so entry
 * fails it as P2.4 says.
 */
export function parseToolArguments(raw: string, options: { freeze?: boolean } = {}): JsonValue {
  if (typeof raw !== 'string' || raw.trim() === '') return {}
  if (options.freeze === true) {
    const parsed = parseFrozenJson(raw, 'arguments')
    if (parsed.ok) return parsed.value
  }
  try {
    return JSON.parse(raw) as JsonValue
  } catch {
    return raw
  }
}
