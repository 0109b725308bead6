/** Attaching the definition's label to a result (H1.3), the last step before the observers. */

import type { ProvenanceSpec } from '../contract/provenance.js'
import type { ToolResult } from '../contract/result.js'
import { vouchFreeze } from '../foundation/frozen.js'
import { isFrozenSnapshot, type JsonValue } from '../foundation/lossless-json.js'
import { labelOf } from './label.js'

/**
 * `result` with `provenance` set to the label of `spec` for these arguments and value (a failure
 * passes `undefined` as the value). A result that already carries one is returned as is.
 */
export function withLabel(
  result: ToolResult,
  spec: ProvenanceSpec,
  args: JsonValue | undefined,
  report: (error: unknown) => void,
): ToolResult {
  if (result.provenance !== undefined) return result
  const label = labelOf(spec, args, result.isError ? undefined : result.value, report)
  if (label === undefined) return result
  const labelled = { ...result, provenance: label }
  // A result built from checked snapshots stays vouched for, so V1.3's walk still skips it.
  return (isFrozenSnapshot(result) ? vouchFreeze(labelled) : Object.freeze(labelled)) as ToolResult
}
