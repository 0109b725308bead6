import type { AssistantBlock, JsonValue } from '@tooltx/core'

/**
 * Reasoning a model produced before or between its answer's blocks (T1.1). Opaque and
 * lossless: `data` is the provider's own block exactly as it arrived (Anthropic's
 * `{ type: 'thinking', thinking, signature }` or `{ type: 'redacted_thinking', data }`), and only
 * an adapter of the same `wire` sends it back, unchanged; every other adapter leaves it out.
 * `text` is what people may read (`''` when the provider redacted it). Tools never see it.
 */
export interface ReasoningBlock {
  type: 'reasoning'
  /** The wire that produced it: `anthropic`, `openai-compatible` or `ai-sdk`. */
  wire: string
  /** The readable reasoning; `''` when `redacted`. */
  text: string
  /** True when the provider sent the reasoning encrypted only. */
  redacted?: boolean
  /** What the wire needs to get the block back exactly (its own block, a field name, metadata). */
  data?: JsonValue
}

/** One block of a model reply: text, a tool call or reasoning. */
export type ReplyBlock = AssistantBlock | ReasoningBlock

/** True for a reasoning block (T1.1); never throws. */
export function isReasoning(block: { readonly type: string }): block is ReasoningBlock {
  return block.type === 'reasoning'
}

/** The reasoning blocks of `content` that `wire` produced, in order: what that wire sends back (T1.2). */
export function reasoningOf(content: readonly { readonly type: string }[], wire: string): ReasoningBlock[] {
  return content.filter((block): block is ReasoningBlock => isReasoning(block) && block.wire === wire)
}
