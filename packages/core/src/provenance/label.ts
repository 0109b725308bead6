/** Provenance labels of tool results (H1): how far a result can be trusted, how confidential it is. */

import type { ProvenanceLabel, ProvenanceSpec } from '../contract/provenance.js'
import { definitionError, errorMessage } from '../foundation/errors.js'
import type { JsonValue } from '../foundation/lossless-json.js'

/** The label a spec that throws or answers something else gives: the most restrictive (H1.4). */
export const FAIL_CLOSED_LABEL: ProvenanceLabel = Object.freeze({
  integrity: 'untrusted',
  confidential: true,
})

/** True iff `value` is exactly a label: `integrity` one of the two, `confidential` absent or a boolean. */
export function isProvenanceLabel(value: unknown): value is ProvenanceLabel {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const keys = Object.keys(value)
  const { integrity, confidential } = value as Record<string, unknown>
  if (integrity !== 'trusted' && integrity !== 'untrusted') return false
  if (confidential !== undefined && typeof confidential !== 'boolean') return false
  return keys.every((key) => key === 'integrity' || key === 'confidential')
}

/** True iff a label marks its result as something a policy must look at: untrusted or confidential. */
export function isMarked(label: ProvenanceLabel): boolean {
  return label.integrity === 'untrusted' || label.confidential === true
}

/**
 * The declared spec as a definition stores it (H1.2): absent, a function, or a frozen copy of a
 * label (later mutation of the author's object changes nothing). Anything else throws
 * `INVALID_DEFINITION` with `<prefix>provenance must be …`.
 */
export function checkProvenance(spec: unknown, prefix: string): ProvenanceSpec | undefined {
  if (spec === undefined || typeof spec === 'function') return spec as ProvenanceSpec | undefined
  if (!isProvenanceLabel(spec)) {
    throw definitionError(
      `${prefix}provenance must be { integrity: 'trusted' | 'untrusted', confidential?: boolean } or a function (args, value) => label`,
    )
  }
  return freezeLabel(spec)
}

/** A frozen copy of a label holding only its two fields. */
function freezeLabel(label: ProvenanceLabel): ProvenanceLabel {
  return Object.freeze(
    label.confidential === undefined
      ? { integrity: label.integrity }
      : { integrity: label.integrity, confidential: label.confidential },
  )
}

/**
 * The label of one result (H1.3, H1.4): a static spec as is; a function's answer, frozen, when it
 * is a label, `undefined` (no label) when it answers `undefined`. A function that throws or
 * answers anything else gives `FAIL_CLOSED_LABEL` and passes the problem to `report`. Never throws.
 */
export function labelOf(
  spec: ProvenanceSpec,
  args: JsonValue | undefined,
  value: JsonValue | undefined,
  report: (error: unknown) => void,
): ProvenanceLabel | undefined {
  if (typeof spec !== 'function') return spec
  try {
    const label: unknown = spec(args, value)
    if (label === undefined) return undefined
    if (isProvenanceLabel(label)) return freezeLabel(label)
    report(new TypeError(`provenance function returned ${describe(label)}, not a label`))
  } catch (error) {
    report(new Error(`provenance function failed: ${errorMessage(error)}`))
  }
  return FAIL_CLOSED_LABEL
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : typeof value
}
