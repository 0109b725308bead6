/**
 * Content blocks across the boundary (Y1.6, Y2.6): tooltx `{ type, … }` blocks to MCP content
 * blocks and back. Text and images map field for field; anything else crosses as a text block
 * holding its JSON, so nothing is dropped silently and nothing unvalidated is trusted.
 */

import type { ContentBlock as McpContentBlock } from '@modelcontextprotocol/server'
import type { ContentBlock } from '@tooltx/core'

/** A tooltx block as MCP content: text → text, image → image (`mediaType` → `mimeType`), other → JSON text. */
export function toMcpContent(block: ContentBlock): McpContentBlock {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text }
  if (block.type === 'image' && typeof block.data === 'string' && typeof block.mediaType === 'string')
    return { type: 'image', data: block.data, mimeType: block.mediaType }
  return { type: 'text', text: JSON.stringify(block) }
}

/**
 * An MCP content block as a tooltx block: text → text, image → image (`mimeType` → `mediaType`),
 * a text resource → its text, every other block (audio, blobs, resource links, unknown types) → a
 * text block with its JSON. Total: never throws on a hostile block.
 */
export function fromMcpContent(block: unknown): ContentBlock {
  const b = (block ?? {}) as Record<string, unknown>
  if (b.type === 'text' && typeof b.text === 'string') return { type: 'text', text: b.text }
  if (b.type === 'image' && typeof b.data === 'string' && typeof b.mimeType === 'string')
    return { type: 'image', data: b.data, mediaType: b.mimeType }
  const resource = b.resource as Record<string, unknown> | undefined
  if (b.type === 'resource' && typeof resource?.text === 'string')
    return { type: 'text', text: resource.text }
  let text: string
  try {
    text = JSON.stringify(block) ?? String(block)
  } catch {
    text = '<unprintable content block>'
  }
  return { type: 'text', text }
}
