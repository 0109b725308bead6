import type { AssistantBlock, ReasoningBlock } from '@tooltx/core'

/** One block of a model reply: text, a tool call or reasoning (T1.1). */
export type ReplyBlock = AssistantBlock

/** True for a reasoning block (T1.1); never throws. */
export function isReasoning(block: { readonly type: string }): block is ReasoningBlock {
  return block.type === 'reasoning'
}

/** The reasoning blocks of `content` that `wire` produced, in order: what that wire sends back (T1.2). */
export function reasoningOf(content: readonly { readonly type: string }[], wire: string): ReasoningBlock[] {
  return content.filter((block): block is ReasoningBlock => isReasoning(block) && block.wire === wire)
}
