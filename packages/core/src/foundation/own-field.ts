/**
 * Reads a field of a value a hook, wrapper or tool handed to the runtime from the object's own
 * properties only (P1.10), so a polluted `Object.prototype` cannot supply a decision, a result
 * field or a content field nobody wrote. A throwing getter or Proxy trap propagates to the
 * caller, which treats the value as invalid.
 */
export function ownField(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined
}
