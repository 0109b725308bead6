/** Effect classes of tools (F1.1): what re-running a call whose outcome is unknown may do. */

/**
 * How a tool touches the world (F1.1): `'read'` changes nothing, `'idempotent'` changes it at
 * most once per idempotency key, `'write'` may change it on every run. Absent means `'write'`.
 */
export type ToolEffect = 'read' | 'idempotent' | 'write'

/** True iff `value` is exactly one of the three effect classes. */
export function isToolEffect(value: unknown): value is ToolEffect {
  return value === 'read' || value === 'idempotent' || value === 'write'
}

/** The effect class of a definition: its `effect`, `'write'` when it declares none (F1.1). */
export function effectOf(definition: { readonly effect?: ToolEffect } | undefined): ToolEffect {
  return definition?.effect ?? 'write'
}

/** True iff a call of this class may run again when its outcome is unknown (F1.4). */
export function isRepeatable(effect: ToolEffect): boolean {
  return effect !== 'write'
}

/**
 * The key of a resumable receipt (Y6.19): a receipt object whose `'tooltx/resumable'` is `true`
 * says the call can pick up its own work again (an MCP task it started, say), so recovery runs
 * it again with its receipts instead of answering `TOOL_EFFECT_RECORDED` (F1.4).
 */
export const RESUMABLE_RECEIPT_KEY = 'tooltx/resumable'

/** True iff `receipt` is an object whose {@link RESUMABLE_RECEIPT_KEY} is exactly `true`. */
export function isResumableReceipt(receipt: unknown): boolean {
  return (
    receipt !== null &&
    typeof receipt === 'object' &&
    !Array.isArray(receipt) &&
    (receipt as Record<string, unknown>)[RESUMABLE_RECEIPT_KEY] === true
  )
}
