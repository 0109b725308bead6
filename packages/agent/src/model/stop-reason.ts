import type { ReplyStop, StopReason } from '@tooltx/session'

export type { ReplyStop, StopReason, ToolChoice } from '@tooltx/session'

/**
 * A provider's stop reason in tooltx's words (T2.1): looked up in the adapter's `table`, `other`
 * for a word the table lacks; `raw` keeps the provider's own word. Never throws.
 */
export function replyStop(raw: string | undefined, table: Readonly<Record<string, StopReason>>): ReplyStop {
  if (raw === undefined || raw === '') return { reason: 'other' }
  return { reason: Object.hasOwn(table, raw) ? table[raw]! : 'other', raw }
}
