/**
 * The provenance shapes of a tool call (H1, H2, H3): the label a result carries, what a
 * definition declares, and `exec.provenance`, the provenance of the caller's context. The
 * machinery that computes them is in `provenance/`.
 */

import type { JsonValue } from '../foundation/lossless-json.js'

/** Whether a result's content may carry instructions or values an outsider chose (H1.1). */
export type Integrity = 'trusted' | 'untrusted'

/**
 * The label of one result (H1.1): `integrity` says whether an outsider may have written it,
 * `confidential` that it holds data that must not leave through a sink tool. Plain frozen data.
 */
export interface ProvenanceLabel {
  readonly integrity: Integrity
  readonly confidential?: boolean
}

/**
 * What a definition declares (H1.1): one label for every result, or a function of the frozen
 * arguments and the success value (`undefined` for a failure) for a tool that reads both kinds,
 * e.g. a file inside or outside the workspace; a function answering `undefined` leaves that
 * result unlabelled.
 */
export type ProvenanceSpec<Args = any> =
  | ProvenanceLabel
  | ((args: Args, value: JsonValue | undefined) => ProvenanceLabel | undefined)

/** What kind of piece an atom is (H3.2). */
export type AtomKind = 'email' | 'url' | 'account' | 'number' | 'words'

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
