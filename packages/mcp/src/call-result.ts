/** A frozen tooltx result as an MCP `tools/call` result (Y1.6). */
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { ToolResult } from '@tooltx/core'
import { toMcpContent } from './content-blocks.js'

/** The `_meta` key under which a served result carries its tooltx outcome (Y1.6). */
export const RESULT_META_KEY = 'tooltx/result'

/** What `_meta['tooltx/result']` holds. */
export interface ResultMeta {
  callId: string
  isError: boolean
  /** The failure code (`DENIED`, `INVALID_ARGS`, …); absent on success. */
  code?: string
  /** The failure's error name; absent on success. */
  name?: string
  /** The result's replayable presentation meta, when it has one. */
  meta?: unknown
}

/**
 * `content` = the final content blocks; `structuredContent` = the frozen value, only on a success
 * of a tool whose output schema is an object (`withStructured`); `isError`, the failure code
 * and the call id in `_meta['tooltx/result']`. A failure whose content is empty carries its
 * message as text, so a client always reads why.
 */
export function toCallToolResult(
  callId: string,
  result: ToolResult,
  withStructured: boolean,
): CallToolResult {
  const content = result.content.map(toMcpContent)
  const meta: ResultMeta = { callId, isError: result.isError }
  if (result.isError) {
    meta.code = result.error.info.code
    meta.name = result.error.info.name
    if (content.length === 0) content.push({ type: 'text', text: result.error.message })
  }
  if (result.meta !== undefined) meta.meta = result.meta
  const out: CallToolResult = { content, isError: result.isError, _meta: { [RESULT_META_KEY]: meta } }
  if (!result.isError && withStructured) out.structuredContent = result.value as Record<string, unknown>
  return out
}
