import type { ModelMessage, ModelToolSchema } from '@tooltx/core'

/** Counts the tokens of a text; must be a pure function of the text and must not throw. */
export type TokenCounter = (text: string) => number

/**
 * The local token estimate (T3.2): one token per 3 characters of ASCII and Latin script (up to
 * U+024F), one per other code point (CJK, emoji), rounded up. A documented estimate instead of
 * a BPE tokenizer: Anthropic's tokenizer is not public, so any BPE is already an estimate for
 * half the providers; an o200k table costs megabytes and more time per character; and the
 * provider's own count of each request corrects the estimate step by step (`ContextBudget`).
 * Against o200k_base it overcounts English prose, Markdown and code by 25–31%, accented Latin
 * by 26% and CJK by 27%, and undercounts dense JSON by up to 24% (BENCHMARKS.md). O(length),
 * no allocation.
 */
export function estimateTokens(text: string): number {
  let latin = 0
  let other = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x250) latin++
    // A surrogate pair is one code point: its low half adds nothing.
    else if (code < 0xdc00 || code > 0xdfff) other++
  }
  return Math.ceil(latin / 3) + other
}

/** Tokens a provider adds around each message (role markers); OpenAI documents 3–4. */
const MESSAGE_OVERHEAD = 4
/** An image's tokens: Anthropic documents about (width × height) / 750, at most about 1,600. */
const IMAGE_TOKENS = 1_600

/** The tokens one message costs in a request: its blocks and the per-message overhead (T3.2). */
export function messageTokens(message: ModelMessage, count: TokenCounter): number {
  let tokens = MESSAGE_OVERHEAD
  for (const block of message.content as readonly { type: string; [key: string]: unknown }[]) {
    if (block.type === 'text' || block.type === 'reasoning') {
      const text = block.text
      tokens +=
        typeof text === 'string' && text !== '' ? count(text) : count(JSON.stringify(block.data ?? ''))
    } else if (block.type === 'tool-call') {
      tokens += MESSAGE_OVERHEAD + count(String(block.name)) + count(String(block.arguments))
    } else if (block.type === 'image') {
      tokens += IMAGE_TOKENS
    } else {
      tokens += count(JSON.stringify(block) ?? '')
    }
  }
  return tokens
}

/** The tokens of a request's fixed part: the system prompt and the tool schemas. */
export function fixedTokens(system: string, tools: readonly ModelToolSchema[], count: TokenCounter): number {
  return count(system) + (tools.length === 0 ? 0 : count(JSON.stringify(tools)))
}
