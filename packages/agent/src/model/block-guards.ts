import type { ContentBlock, ImageBlock, TextBlock } from '@tooltx/core'

/** True for a well-formed text block. */
export function isText(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string'
}

/** True for a well-formed image block (string `mediaType` and base64 `data`). */
export function isImage(block: ContentBlock): block is ImageBlock {
  const { mediaType, data } = block as { mediaType?: unknown; data?: unknown }
  return block.type === 'image' && typeof mediaType === 'string' && typeof data === 'string'
}
