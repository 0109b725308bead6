import type { JsonValue } from '../foundation/lossless-json.js'
import type { AdditionalContext, ContentBlock } from './content.js'
import type { ProvenanceLabel } from './provenance.js'

/** The `{ name, code }` every failure carries (E1.1). */
export interface ErrorInfo {
  name: string
  code: string
}

/** A successful tool call (O1.1). Optional keys are absent, never `undefined`. */
export interface ToolSuccess {
  readonly isError: false
  readonly value: JsonValue
  readonly content: readonly ContentBlock[]
  readonly meta?: JsonValue
  readonly additionalContexts?: readonly AdditionalContext[]
  readonly concludesTurn?: true
  /** The label of a tool that declares `provenance` (H1.3). */
  readonly provenance?: ProvenanceLabel
}

/** A failed tool call (O1.1): the message never starts with `Error: ` (E1.7). */
export interface ToolFailure {
  readonly isError: true
  readonly error: { readonly message: string; readonly info: ErrorInfo }
  readonly content: readonly ContentBlock[]
  readonly meta?: JsonValue
  readonly additionalContexts?: readonly AdditionalContext[]
  /** The label of a tool that declares `provenance`, when its body ran (H1.3). */
  readonly provenance?: ProvenanceLabel
}

/** The one frozen outcome of `runtime.execute`. */
export type ToolResult = ToolSuccess | ToolFailure
