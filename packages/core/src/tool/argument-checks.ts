/**
 * The argument check of each `defineTool` definition and of every frozen copy made of one
 * (registration copies it), so `checkToolArguments` answers for a definition a view returns
 * as it does for the one `defineTool` built (P14, A1.8).
 */
import type { SchemaContract } from '../schema/source.js'

const checks = new WeakMap<object, SchemaContract['parse']>()

/** Records `parse` as the argument check of `def`. */
export function setArgumentCheck(def: object, parse: SchemaContract['parse']): void {
  checks.set(def, parse)
}

/** The argument check of `def`, `undefined` for a definition `defineTool` did not build. */
export function argumentCheck(def: object): SchemaContract['parse'] | undefined {
  return checks.get(def)
}

/** Gives `copy` the argument check of `original`, if it has one. */
export function copyArgumentCheck(original: object, copy: object): void {
  const parse = checks.get(original)
  if (parse !== undefined) checks.set(copy, parse)
}
