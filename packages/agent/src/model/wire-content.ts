import type { ContentBlock, ImageBlock, TextBlock } from '@tooltx/core'

/**
 * The text an adapter sends in place of a content block its provider cannot take there,
 * so the model learns that something was left out instead of silently missing it.
 */
export function omittedBlockNote(block: { type: string; mediaType?: unknown }, why: string): string {
  if (block.type === 'image') {
    const mediaType = typeof block.mediaType === 'string' ? block.mediaType : 'unknown type'
    return `[image omitted: ${mediaType}, ${why}]`
  }
  return `[${block.type} block omitted: ${why}]`
}

/** Joins the texts of several blocks that the wire takes as one string. */
export function joinTexts(texts: readonly string[]): string {
  return texts.join('\n\n')
}

/** True for a well-formed text block. */
export function isText(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string'
}

/** True for a well-formed image block (string `mediaType` and base64 `data`). */
export function isImage(block: ContentBlock): block is ImageBlock {
  const { mediaType, data } = block as { mediaType?: unknown; data?: unknown }
  return block.type === 'image' && typeof mediaType === 'string' && typeof data === 'string'
}

/** The `message` of a provider's JSON error body, if it has a non-empty one. */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const message = (body as { message?: unknown }).message
  return typeof message === 'string' && message !== '' ? message : undefined
}
