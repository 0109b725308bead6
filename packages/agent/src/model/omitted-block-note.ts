/** Why a block is left out when the provider takes no block of its type at that place. */
export const UNSUPPORTED_BLOCK = 'the provider cannot take this block type'

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
