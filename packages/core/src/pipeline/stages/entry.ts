/**
 * Entry (P2.2): read the input once, mint the token, resolve `rootCallId`, capture the
 * finalizer, snapshot and freeze the arguments, create the frozen execution, then decide
 * the entry-time final-results (argument failure, pre-aborted signal, code-only collapse).
 */

import { enterSequence } from '../../contract/call-sequence.js'
import type { CodeDispatchSink, CodeRuntime } from '../../contract/code-runtime.js'
import { RUN_CODE } from '../../contract/definition.js'
import type { Elicitor } from '../../contract/elicitation.js'
import type { Approver, EffectSink, ExecuteInput, Execution, ToolScope } from '../../contract/execution.js'
import type { ContextProvenance } from '../../contract/provenance.js'
import type { ToolResult } from '../../contract/result.js'
import { errorMessage } from '../../foundation/errors.js'
import { isFrozenSnapshot, type JsonValue, snapshotJson } from '../../foundation/lossless-json.js'
import type { ScopeRecord } from '../../registry/registry.js'
import { Call } from '../call.js'
import { abortedBeforeDispatch, argumentsNotLossless, argumentsUnreadable, collapsed } from '../failures.js'
import { breach } from '../invariants.js'
import type { RuntimeCore } from '../runtime-core.js'

const FROZEN_ARGUMENTS = { freeze: true, root: 'arguments' } as const

/**
 * The input's `receipts` (Y6.18) as a frozen lossless JSON array, `[]` when absent; anything
 * else is a malformed input (I1.2).
 */
function snapshotReceipts(raw: unknown): readonly JsonValue[] {
  if (raw === undefined) return EMPTY_RECEIPTS
  const snap = Array.isArray(raw) ? snapshotJson(raw, { freeze: true, root: 'receipts' }) : undefined
  if (snap?.ok !== true) breach('execute input.receipts must be an array of lossless JSON receipts')
  return snap.value as readonly JsonValue[]
}

const EMPTY_RECEIPTS: readonly JsonValue[] = Object.freeze([])

/**
 * Snapshots the arguments (P2.4, P2.5); returns the frozen copy or the entry failure. A frozen
 * snapshot can never change, so it is taken as is rather than copied again (Q3.1).
 */
function snapshotArguments(raw: unknown): { value: JsonValue } | { failure: ToolResult } {
  if (isFrozenSnapshot(raw)) return { value: raw as JsonValue }
  try {
    const snap = snapshotJson(raw, FROZEN_ARGUMENTS)
    return snap.ok ? { value: snap.value } : { failure: argumentsNotLossless() }
  } catch (error) {
    return { failure: argumentsUnreadable(error) }
  }
}

/** The input fields other than `arguments`, in reading order (I1.1). */
const CHECKED_FIELDS =
  'callId rootCallId name signal scope parent approver elicit codeRuntime onCodeDispatch idempotencyScope onEffect fencingToken sequence receipts provenance'.split(
    ' ',
  )

/** What entry read from the input, each field once (I1.1), not yet checked. */
interface InputFields {
  readonly callId: unknown
  readonly rootCallId: unknown
  readonly name: unknown
  readonly rawArguments: unknown
  /** Set when the arguments getter threw: an entry failure (P2.5), not a malformed input. */
  readonly argumentsError: { error: unknown } | undefined
  readonly signal: unknown
  readonly scope: unknown
  readonly parent: unknown
  readonly approver: unknown
  readonly elicit: unknown
  readonly codeRuntime: unknown
  readonly onCodeDispatch: unknown
  readonly idempotencyScope: unknown
  readonly onEffect: unknown
  readonly fencingToken: unknown
  readonly sequence: unknown
  readonly receipts: unknown
  readonly provenance: unknown
}

/**
 * Reads every input field once, in the order of `ExecuteInput` (I1.1). A throwing read other than
 * `arguments` is a malformed input (I1.2); only then are the fields read again one by one, to
 * name the one that throws.
 */
function readInput(input: object): InputFields {
  const fields = input as { readonly [K in keyof ExecuteInput]?: unknown }
  try {
    const { callId, rootCallId, name } = fields
    let rawArguments: unknown
    let argumentsError: { error: unknown } | undefined
    try {
      rawArguments = fields.arguments
    } catch (error) {
      argumentsError = { error }
    }
    // An object literal evaluates its properties in order: each field is read once, in I1.1's order.
    return {
      callId,
      rootCallId,
      name,
      rawArguments,
      argumentsError,
      signal: fields.signal,
      scope: fields.scope,
      parent: fields.parent,
      approver: fields.approver,
      elicit: fields.elicit,
      codeRuntime: fields.codeRuntime,
      onCodeDispatch: fields.onCodeDispatch,
      idempotencyScope: fields.idempotencyScope,
      onEffect: fields.onEffect,
      fencingToken: fields.fencingToken,
      sequence: fields.sequence,
      receipts: fields.receipts,
      provenance: fields.provenance,
    }
  } catch (error) {
    breach(`execute input.${culprit(fields) ?? 'fields'} could not be read: ${errorMessage(error)}`)
  }
}

/** The first field other than `arguments` whose read throws now, or `undefined`. */
function culprit(fields: object): string | undefined {
  for (const key of CHECKED_FIELDS) {
    try {
      void (fields as Record<string, unknown>)[key]
    } catch {
      return key
    }
  }
  return undefined
}

/** The result of entry: the call and, when entry already decided it, its final-result. */
export interface Entered {
  readonly call: Call
  readonly early: ToolResult | undefined
}

/**
 * Runs entry for one `execute` input. Throws `INVARIANT` (no result) for a malformed input
 * (I1.2); otherwise registers the call as in progress and returns it.
 */
export function enter(core: RuntimeCore, input: unknown): Entered {
  if (input === null || typeof input !== 'object') breach('execute input must be an object')
  const fields = readInput(input)
  const { callId, rootCallId, name, rawArguments, argumentsError, signal, scope, parent } = fields
  const {
    approver,
    elicit,
    codeRuntime,
    onCodeDispatch,
    idempotencyScope,
    onEffect,
    fencingToken,
    sequence,
  } = fields
  if (typeof callId !== 'string' || callId === '') breach('execute input.callId must be a non-empty string')
  if (typeof name !== 'string') breach('execute input.name must be a string')
  if (!(signal instanceof AbortSignal)) breach('execute input.signal must be an AbortSignal')
  if (rootCallId !== undefined && (typeof rootCallId !== 'string' || rootCallId === '')) {
    breach('execute input.rootCallId must be a non-empty string when present')
  }
  let record: ScopeRecord | undefined
  if (scope !== undefined) {
    record = typeof scope === 'object' && scope !== null ? core.records.get(scope) : undefined
    if (record === undefined || record.disposed)
      breach('execute input.scope must be a live scope of this runtime')
  }
  if (parent !== undefined && !(typeof parent === 'symbol' && core.live.has(parent))) {
    breach('execute input.parent must be the token of an execution of this runtime in progress')
  }
  if (approver !== undefined && typeof approver !== 'function')
    breach('execute input.approver must be a function')
  if (elicit !== undefined && typeof elicit !== 'function') breach('execute input.elicit must be a function')
  if (codeRuntime !== undefined && (codeRuntime === null || typeof codeRuntime !== 'object')) {
    breach('execute input.codeRuntime must be a code runtime')
  }
  if (onCodeDispatch !== undefined && typeof onCodeDispatch !== 'function') {
    breach('execute input.onCodeDispatch must be a function')
  }
  if (idempotencyScope !== undefined && typeof idempotencyScope !== 'string') {
    breach('execute input.idempotencyScope must be a string')
  }
  if (onEffect !== undefined && typeof onEffect !== 'function')
    breach('execute input.onEffect must be a function')
  if (fencingToken !== undefined && !(Number.isSafeInteger(fencingToken) && (fencingToken as number) >= 0)) {
    breach('execute input.fencingToken must be a whole number >= 0')
  }
  const { provenance } = fields
  if (provenance !== undefined && (provenance === null || typeof provenance !== 'object')) {
    breach('execute input.provenance must be a context provenance object')
  }
  const place = sequence === undefined ? undefined : enterSequence(sequence)
  if (sequence !== undefined && place === undefined) {
    breach('execute input.sequence must come from callSequence()')
  }
  const receipts = snapshotReceipts(fields.receipts)

  const token = Symbol('tooltx.call')
  // The finalizer is captured before the arguments are snapshotted, so an arguments getter
  // that re-registers the tool cannot change which finalizer runs (P2.3).
  const finalizer = core.registry.resolve(record, name)?.def.finalizeContent
  const args =
    argumentsError === undefined
      ? snapshotArguments(rawArguments)
      : { failure: argumentsUnreadable(argumentsError.error) }

  const exec: { -readonly [K in keyof Execution]: Execution[K] } = {
    callId,
    rootCallId: (rootCallId as string | undefined) ?? callId,
    name,
  } as Execution
  if ('value' in args) exec.arguments = args.value
  if (scope !== undefined) exec.scope = scope as ToolScope
  if (parent !== undefined) exec.parent = parent
  if (provenance !== undefined) exec.provenance = provenance as ContextProvenance
  exec.token = token
  exec.signal = signal
  Object.freeze(exec)

  const call = new Call(
    core,
    exec,
    record,
    approver as Approver | undefined,
    elicit as Elicitor | undefined,
    codeRuntime as CodeRuntime | undefined,
    onCodeDispatch as CodeDispatchSink | undefined,
    finalizer,
    place,
    {
      scope: (idempotencyScope as string | undefined) ?? '',
      sink: onEffect as EffectSink | undefined,
      fencing: fencingToken as number | undefined,
      receipts,
    },
  )
  core.live.set(token, call)
  return { call, early: earlyResult(call, args) }
}

/** The entry-time final-results, in their order of precedence (P2.6, P2.7, M3.1–M3.6). */
function earlyResult(
  call: Call,
  args: { value: JsonValue } | { failure: ToolResult },
): ToolResult | undefined {
  if ('failure' in args) return args.failure
  if (call.signal.aborted) return abortedBeforeDispatch()
  const { registry } = call.core
  if (
    call.exec.parent === undefined &&
    call.name !== RUN_CODE &&
    registry.mode(call.record) === 'code' &&
    registry.resolve(call.record, call.name) !== undefined
  ) {
    return collapsed(call.name)
  }
  return undefined
}
