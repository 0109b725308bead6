/** The content-size policy (P11.8–P11.11): a cap on the UTF-8 bytes of all text blocks. */
import type { ContentBlock } from '../contract/content.js'
import type { ToolResult } from '../contract/result.js'

/** The default cap: 256 KiB of text. */
export const DEFAULT_MAX_CONTENT_BYTES = 262_144

/** UTF-8 byte length of `text` (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/**
 * The longest prefix of `text` of at most `budget` UTF-8 bytes that does not split a code point
 * (`encodeInto` stops before a character that would not fit whole).
 */
function prefixWithin(text: string, budget: number): { text: string; bytes: number } {
  const { read, written } = new TextEncoder().encodeInto(text, new Uint8Array(budget))
  return { text: text.slice(0, read), bytes: written }
}

/**
 * Applies the cap to a frozen result. At or under the cap the same object is returned
 * (P11.11). Over it, text blocks are kept whole in order while they fit, the first that
 * does not fit is cut to the longest fitting prefix and ends with
 * `\n[content truncated: showing <shown> of <total> bytes]`, later text blocks are dropped
 * and other blocks stay in place (P11.9, P11.10). The marker itself is not counted.
 */
export function capContent<R extends ToolResult>(result: R, maxBytes: number): R {
  if (maxBytes === Number.POSITIVE_INFINITY) return result
  const content = result.content
  // Cheap bound first: a UTF-16 code unit is at most 3 UTF-8 bytes.
  let bound = 0
  for (const block of content) if (block.type === 'text') bound += (block as { text: string }).text.length * 3
  if (bound <= maxBytes) return result
  let total = 0
  for (const block of content)
    if (block.type === 'text') total += utf8Length((block as { text: string }).text)
  if (total <= maxBytes) return result
  const out: ContentBlock[] = []
  let shown = 0
  let cut = false
  for (const block of content) {
    if (block.type !== 'text') {
      out.push(block)
      continue
    }
    if (cut) continue
    const text = (block as { text: string }).text
    const bytes = utf8Length(text)
    if (shown + bytes <= maxBytes) {
      out.push(block)
      shown += bytes
      continue
    }
    const prefix = prefixWithin(text, maxBytes - shown)
    shown += prefix.bytes
    cut = true
    out.push(
      Object.freeze({
        type: 'text',
        text: `${prefix.text}\n[content truncated: showing ${shown} of ${total} bytes]`,
      }),
    )
  }
  return Object.freeze({ ...result, content: Object.freeze(out) }) as unknown as R
}
