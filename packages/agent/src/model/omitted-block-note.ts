/** Why a block is left out when the provider takes no block of its type at that place. */
export const UNSUPPORTED_BLOCK = 'the provider cannot take this block type'

/**
 * The text an adapter sends in place of a content block its provider cannot take there. A block
 * whose substance is text still reaches the model as text (L12.8): an embedded text resource as
 * `[resource <uri>]` and its text, a resource link as `[resource link: <uri>]` (with its name
 * when it differs); any other block becomes a note that something was left out, so the model
 * learns of it instead of silently missing it.
 */
export function omittedBlockNote(
  block: { type: string; mediaType?: unknown; uri?: unknown; text?: unknown; name?: unknown },
  why: string,
): string {
  if (block.type === 'image') {
    const mediaType = typeof block.mediaType === 'string' ? block.mediaType : 'unknown type'
    return `[image omitted: ${mediaType}, ${why}]`
  }
  if (typeof block.uri === 'string') {
    if (block.type === 'resource' && typeof block.text === 'string')
      return `[resource ${block.uri}]\n${block.text}`
    if (block.type === 'resource_link') {
      const name = typeof block.name === 'string' && block.name !== block.uri ? ` (${block.name})` : ''
      return `[resource link: ${block.uri}${name}]`
    }
  }
  return `[${block.type} block omitted: ${why}]`
}
