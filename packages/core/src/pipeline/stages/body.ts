/**
 * The base dispatch (P6.6–P6.8) and the body it runs (P8): resolve the definition live,
 * fuse the signals, run the body with its run context, and turn whatever it does into a
 * frozen result.
 */

import type { AdditionalContext } from '../../contract/content.js'
import { checkDeferred } from '../../contract/content-checks.js'
import type { ElicitForm, ElicitReply } from '../../contract/elicitation.js'
import { LOG_LEVELS, type LogEntry, type LogLevel, type RunContext } from '../../contract/execution.js'
import type { ToolResult } from '../../contract/result.js'
import { idempotencyKey } from '../../foundation/arguments-digest.js'
import { codedError } from '../../foundation/errors.js'
import { frozenSnapshotOrThrow, vouchFreeze } from '../../foundation/frozen.js'
import type { JsonValue } from '../../foundation/lossless-json.js'
import { withLabel } from '../../provenance/result-label.js'
import { nextCovering } from '../../registry/hook-list.js'
import type { Call } from '../call.js'
import { elicitForm } from '../elicitation.js'
import { aborted, abortedBeforeDispatch, thrown, unknownTool } from '../failures.js'
import { breach, isBreach } from '../invariants.js'
import { fuseSignals } from '../signals.js'
import { successFromValue } from './output.js'

/**
 * The object every run context is (P8.2): the attempt's fields are added to it as own data
 * properties; the `idempotencyKey` getter (F1.2) and the `log` method (P8.12) are on this
 * class's prototype, as is `elicit` (P8.13), so they cost an attempt nothing until used. A lazy
 * key needs a getter; defined as an own accessor on each run context (one `Object.defineProperty`
 * per attempt) it cost about a tenth of a whole call (bench/pipeline.bench.ts, run context).
 */
class RunContextBase {
  readonly #call: Call

  constructor(call: Call) {
    this.#call = call
  }

  /** Derived on first read and once per call, so every attempt passes its backend the same key. */
  get idempotencyKey(): string {
    const call = this.#call
    const { exec } = call
    call.idempotencyKey ??= idempotencyKey({
      scope: call.effects.scope,
      callId: exec.callId,
      arguments: exec.arguments ?? null,
    })
    return call.idempotencyKey
  }

  /**
   * Logs one entry (P8.12). A prototype method, so a run context costs nothing more per call: the
   * level is checked, `data` snapshotted, and the entry offered to the covering `onLog`
   * listeners in order until one returns `true`; an entry none takes goes to `reportError`.
   */
  log(level: LogLevel, data: JsonValue): void {
    if (!LOG_LEVELS.includes(level))
      throw codedError('INVARIANT', `log level must be one of ${LOG_LEVELS.join(', ')}`)
    const snap = frozenSnapshotOrThrow(data, {
      root: 'data',
      code: 'RESULT_NOT_SERIALIZABLE',
      unreadable: (message) => `log data could not be read: ${message}`,
      notLossless: (reason) => `log data is not lossless JSON: ${reason}`,
    })
    const call = this.#call
    const { exec, core } = call
    const entry: LogEntry = Object.freeze({ level, data: snap })
    const listeners = core.logs.entries
    for (
      let i = nextCovering(listeners, 0, call.record);
      i >= 0;
      i = nextCovering(listeners, i + 1, call.record)
    ) {
      try {
        if (listeners[i]!.fn(exec, entry) === true) return
      } catch (error) {
        core.report(error)
      }
    }
    core.report(Object.freeze({ callId: exec.callId, name: exec.name, level, data: snap }))
  }

  /**
   * Asks the person a form through the call's elicitation handler (P8.13–P8.19). A prototype
   * method like `log`; the question lives as long as this attempt's signal.
   */
  elicit(form: ElicitForm): Promise<ElicitReply> {
    return elicitForm(this.#call, (this as unknown as RunContext).signal, form)
  }
}

/** One attempt's run context and what it records (P6.4, P8.2–P8.8). */
class Attempt {
  private deferred: AdditionalContext[] | undefined
  concluded = false
  private settled = false
  readonly runContext: RunContext

  constructor(call: Call, signal: AbortSignal, attempt: number) {
    const { exec, effects } = call
    // Closures, not methods: they keep working when detached from the run context (P8.3).
    const deferContext: RunContext['deferContext'] = (message) => {
      if (this.settled) breach('deferContext called after the tool call attempt settled')
      const checked = checkDeferred(message, call.contextSource())
      if (!checked.ok) {
        throw codedError(
          'RESULT_NOT_SERIALIZABLE',
          `deferContext message must be lossless user content: ${checked.reason}`,
        )
      }
      this.deferred ??= []
      this.deferred.push(checked.value)
    }
    const concludeTurn = () => {
      if (this.settled) breach('concludeTurn called after the tool call attempt settled')
      this.concluded = true
    }
    const progress = (update: unknown) => {
      const snap = frozenSnapshotOrThrow(update, {
        root: 'update',
        code: 'RESULT_NOT_SERIALIZABLE',
        unreadable: (message) => `progress update could not be read: ${message}`,
        notLossless: (reason) => `progress update is not lossless JSON: ${reason}`,
      })
      if (this.settled) return
      const listeners = call.core.progress.entries
      for (
        let i = nextCovering(listeners, 0, call.record);
        i >= 0;
        i = nextCovering(listeners, i + 1, call.record)
      ) {
        try {
          listeners[i]!.fn(exec, snap)
        } catch (error) {
          call.core.report(error)
        }
      }
    }
    const recordEffect = async (receipt: unknown): Promise<void> => {
      const snap = frozenSnapshotOrThrow(receipt, {
        root: 'receipt',
        code: 'RESULT_NOT_SERIALIZABLE',
        unreadable: (message) => `effect receipt could not be read: ${message}`,
        notLossless: (reason) => `effect receipt is not lossless JSON: ${reason}`,
      })
      // A receipt after the attempt settled would land after the result it must precede.
      if (this.settled) breach('recordEffect called after the tool call attempt settled')
      await effects.sink?.({ callId: exec.callId, name: exec.name, receipt: snap })
    }
    const run = new RunContextBase(call) as unknown as Record<string, unknown>
    run.callId = exec.callId
    run.rootCallId = exec.rootCallId
    run.name = exec.name
    run.arguments = exec.arguments
    run.token = exec.token
    run.signal = signal
    run.attempt = attempt
    run.deferContext = deferContext
    run.concludeTurn = concludeTurn
    run.progress = progress
    run.recordEffect = recordEffect
    run.receipts = effects.receipts
    if (effects.fencing !== undefined) run.fencingToken = effects.fencing
    if (exec.scope !== undefined) run.scope = exec.scope
    if (exec.parent !== undefined) run.parent = exec.parent
    if (exec.provenance !== undefined) run.provenance = exec.provenance
    this.runContext = Object.freeze(run) as unknown as RunContext
  }

  /** Ends the attempt (P8.8) and returns its deferred contexts in call order (P8.6). */
  settle(): readonly AdditionalContext[] | undefined {
    this.settled = true
    return this.deferred === undefined ? undefined : vouchFreeze(this.deferred)
  }
}

/**
 * The innermost step of the around chain: one attempt. Resolves the definition from the
 * live view (`UNKNOWN_TOOL` when gone, P6.6), fuses the caller's signal with the around
 * execution's current one (P6.7), skips the body when that is aborted (P6.8), and otherwise runs
 * it, recording "body invoked" just before (P8.1). Never rejects for a body failure (P6.2).
 */
export async function baseDispatch(call: Call, wrapperSignal: AbortSignal): Promise<ToolResult> {
  call.assertBody()
  const attempt = ++call.attempts
  const entry = call.resolve()
  if (entry === undefined) return unknownTool(call.name)
  const fused = fuseSignals(call.signal, wrapperSignal)
  if (fused.signal.aborted) {
    fused.dispose()
    return abortedBeforeDispatch()
  }
  const current = new Attempt(call, fused.signal, attempt)
  call.bodyInvoked = true
  call.provenance = entry.def.provenance
  let value: unknown
  try {
    value = await entry.def.execute(call.exec.arguments, current.runContext)
  } catch (error) {
    fused.dispose()
    const deferred = current.settle()
    if (isBreach(error)) throw error
    return labelled(call, thrown(error, 'TOOL_FAILED', '', deferred))
  }
  fused.dispose()
  const deferred = current.settle()
  // A success that finished under an aborted signal is superseded; a failure stands (P8.10).
  if (fused.signal.aborted) return aborted(deferred)
  return labelled(call, successFromValue(call, entry, value, deferred, current.concluded))
}

/**
 * A result of the body (or a value a post-execute handler put in its place) with the label of the
 * definition that ran, so post-execute handlers and observers see it (H1.3).
 */
export function labelled(call: Call, result: ToolResult): ToolResult {
  const spec = call.provenance
  return spec === undefined
    ? result
    : withLabel(result, spec, call.exec.arguments, (e) => call.core.report(e))
}
