/** The state of one `execute` call as it moves through the pipeline. */

import type { Place } from '../contract/call-sequence.js'
import type { CodeDispatchSink, CodeRuntime } from '../contract/code-runtime.js'
import type { ContextSource } from '../contract/content.js'
import type { AnyToolDefinition } from '../contract/definition.js'
import type { Elicitor } from '../contract/elicitation.js'
import type { Approver, EffectSink, Execution } from '../contract/execution.js'
import type { ProvenanceSpec } from '../contract/provenance.js'
import type { ToolResult } from '../contract/result.js'
import { vouchFreeze } from '../foundation/frozen.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import type { Entry, ScopeRecord } from '../registry/registry.js'
import { StageLog } from './invariants.js'
import type { RuntimeCore } from './runtime-core.js'

/** The finalizer captured at entry (P2.3, P11.3). */
export type Finalizer = NonNullable<AnyToolDefinition['finalizeContent']>

/** Where a result stands: a final-result skips post-execute (P13). */
export interface Outcome {
  readonly result: ToolResult
  readonly final: boolean
}

/** A final-result (P13.1). */
export const final = (result: ToolResult): Outcome => ({ result, final: true })

/** A post-result (P13.2). */
export const post = (result: ToolResult): Outcome => ({ result, final: false })

/** Where a call's idempotency key, effect receipts and fencing token come from (F1.2, F1.3, F1.9). */
export interface CallEffects {
  /** The input's `idempotencyScope`, `''` when absent. */
  readonly scope: string
  readonly sink: EffectSink | undefined
  /** The input's `fencingToken` (F1.9), the run context's when present. */
  readonly fencing: number | undefined
  /** The input's `receipts` (Y6.18), frozen; `[]` when absent. */
  readonly receipts: readonly JsonValue[]
}

/**
 * One execution: the frozen identity, what entry read from the input (I1.1), the stage log
 * (V1.2) and what later stages must know (body invoked, attempts).
 */
export class Call extends StageLog {
  /** True once some attempt invoked a body (C1.4). */
  bodyInvoked = false
  /** Base dispatches so far; the run context's `attempt` (P8.2). */
  attempts = 0
  /** The `provenance` of the definition whose body ran last, labelling the result (H1.3). */
  provenance: ProvenanceSpec | undefined
  /** The idempotency key, derived at the first dispatch (F1.2). */
  idempotencyKey: string | undefined
  private source: ContextSource | undefined

  constructor(
    readonly core: RuntimeCore,
    readonly exec: Execution,
    readonly record: ScopeRecord | undefined,
    readonly approver: Approver | undefined,
    /** The input's `elicit` (P8.15). */
    readonly elicitor: Elicitor | undefined,
    readonly codeRuntime: CodeRuntime | undefined,
    readonly onCodeDispatch: CodeDispatchSink | undefined,
    /** Whether a definition was visible at entry, and its finalizer (P11.3, P11.7). */
    readonly finalizer: Finalizer | undefined,
    /** The call's places in its sequence's lines, if it has one (P1.8). */
    readonly place: Place | undefined,
    readonly effects: CallEffects,
  ) {
    super()
  }

  /** The tool name the caller asked for. */
  get name(): string {
    return this.exec.name
  }

  /** The caller's signal. */
  get signal(): AbortSignal {
    return this.exec.signal
  }

  /** The entry `name` resolves to in the call's live view (R4.3, R4.4). */
  resolve(): Entry | undefined {
    return this.core.registry.resolve(this.record, this.exec.name)
  }

  /** The default `source` of contexts this call defers (P8.4): `{ kind: 'tool', name, callId }`. */
  contextSource(): ContextSource {
    this.source ??= vouchFreeze({ kind: 'tool', name: this.exec.name, callId: this.exec.callId })
    return this.source
  }
}
