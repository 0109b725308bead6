/**
 * Content blocks across the boundary (Y1.6, Y2.6): tooltx `{ type, … }` blocks to MCP content
 * blocks and back, one to one for text, image, audio, embedded resource and resource link. A
 * block is checked field by field in both directions; one that fails, or of any other type,
 * crosses as a text block holding its JSON, so nothing is dropped silently and nothing
 * unvalidated is trusted.
 */

import type { ContentBlock as McpContentBlock } from '@modelcontextprotocol/server'
import type { ContentBlock } from '@tooltx/core'

/** One field: its tooltx name, its MCP name, whether it is required and its JSON type. */
type Field = readonly [tooltx: string, mcp: string, required: boolean, kind: 'string' | 'number']

const MEDIA: readonly Field[] = [
  ['data', 'data', true, 'string'],
  ['mediaType', 'mimeType', true, 'string'],
]

/** The flat block types: each maps its fields by name, MCP's `mimeType` being tooltx's `mediaType`. */
const FLAT: Readonly<Record<string, readonly Field[]>> = {
  text: [['text', 'text', true, 'string']],
  image: MEDIA,
  audio: MEDIA,
  resource_link: [
    ['uri', 'uri', true, 'string'],
    ['name', 'name', true, 'string'],
    ['title', 'title', false, 'string'],
    ['description', 'description', false, 'string'],
    ['mediaType', 'mimeType', false, 'string'],
    ['size', 'size', false, 'number'],
  ],
}

/** An embedded resource's fields: tooltx keeps them on the block, MCP under `resource`. */
const RESOURCE: readonly Field[] = [
  ['uri', 'uri', true, 'string'],
  ['mediaType', 'mimeType', false, 'string'],
  ['text', 'text', false, 'string'],
  ['data', 'blob', false, 'string'],
]

type Side = 0 | 1

const otherSide = (side: Side): Side => (side === 0 ? 1 : 0)

/**
 * Copies `fields` from `source` (named as on side `from`) into `target` (named as on the other
 * side). False when a required field is missing or any present field has the wrong type.
 */
function copyFields(
  source: Record<string, unknown>,
  fields: readonly Field[],
  from: Side,
  target: Record<string, unknown>,
): boolean {
  for (const field of fields) {
    const value = source[field[from]]
    if (value === undefined) {
      if (field[2]) return false
      continue
    }
    if (typeof value !== field[3] || (field[3] === 'number' && !Number.isFinite(value))) return false
    target[field[otherSide(from)]] = value
  }
  return true
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** `block` mapped to the other side, or undefined when it is not a well-formed block of a mapped type. */
function mapBlock(block: Record<string, unknown>, from: Side): Record<string, unknown> | undefined {
  const type = block.type
  if (typeof type !== 'string') return undefined
  const out: Record<string, unknown> = { type }
  if (type === 'resource') {
    const source = from === 0 ? block : asRecord(block.resource)
    if (source === undefined) return undefined
    const resource: Record<string, unknown> = {}
    if (!copyFields(source, RESOURCE, from, resource)) return undefined
    // Exactly one of the text and the base64 body.
    const to = otherSide(from)
    if ((resource[RESOURCE[2]![to]] === undefined) === (resource[RESOURCE[3]![to]] === undefined))
      return undefined
    return from === 0 ? { type, resource } : { type, ...resource }
  }
  const fields = Object.hasOwn(FLAT, type) ? FLAT[type] : undefined
  return fields !== undefined && copyFields(block, fields, from, out) ? out : undefined
}

function asJsonText(block: unknown): { type: 'text'; text: string } {
  let text: string
  try {
    text = JSON.stringify(block) ?? String(block)
  } catch {
    text = '<unprintable content block>'
  }
  return { type: 'text', text }
}

/**
 * A tooltx block as MCP content (Y1.6): text, image, audio (`mediaType` → `mimeType`), resource
 * (`{ uri, mediaType?, text }` or `{ uri, mediaType?, data }` → `resource: { uri, mimeType?,
 * text | blob }`) and resource_link (`{ uri, name, title?, description?, mediaType?, size? }`)
 * as the matching block; a malformed block or any other type as a text block holding its JSON.
 */
export function toMcpContent(block: ContentBlock): McpContentBlock {
  return (mapBlock(block as Record<string, unknown>, 0) ?? asJsonText(block)) as McpContentBlock
}

/**
 * An MCP content block as a tooltx block (Y2.6), the inverse of {@link toMcpContent}: text,
 * image, audio, resource and resource_link as the matching tooltx block; a malformed block or
 * any other type as a text block holding its JSON. Total: never throws on a hostile block.
 */
export function fromMcpContent(block: unknown): ContentBlock {
  const record = asRecord(block)
  return ((record === undefined ? undefined : mapBlock(record, 1)) ?? asJsonText(block)) as ContentBlock
}
