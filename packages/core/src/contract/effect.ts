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
