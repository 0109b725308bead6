/** The provenance of the model's context, as every call sees it in `exec.provenance` (H2, H3). */

import type { AtomKind } from './atoms.js'
import type { ProvenanceLabel } from './label.js'

/** One labelled result in the context the model was sent (H2.2): which call, which tool, what label. */
export interface ProvenanceSource {
  readonly callId: string
  readonly tool: string
  readonly label: ProvenanceLabel
}

/**
 * One argument value found in labelled results (H3.1): where in the arguments (`recipient`,
 * `items[0].iban`), what matched (an atom, normalized), its kind, and the results it appears in.
 * A heuristic: a paraphrased or re-encoded value is not found (H3.5).
 */
export interface ArgumentOrigin {
  readonly path: string
  readonly atom: string
  readonly kind: AtomKind
  readonly sources: readonly ProvenanceSource[]
}

/**
 * `exec.provenance` (H2.2): whether the context the model answered holds untrusted or
 * confidential results, which ones (in the order they entered it), and which argument values
 * were copied from them. Absent from a call whose context holds no labelled result. Frozen.
 */
export interface ContextProvenance {
  readonly untrusted: boolean
  readonly confidential: boolean
  readonly sources: readonly ProvenanceSource[]
  readonly arguments: readonly ArgumentOrigin[]
}
