/**
 * One `run_code` run on the host side (X3, X4, X5, X7): the `tools` bindings the program
 * calls, nested dispatch of each call through the runtime, commit of nested results onto
 * the outer call, dispatch events, and settlement with its drain.
 */

import { callSequence } from '../contract/call-sequence.js'
import { type CodeBinding, TOOL_ARGS_NOT_LOSSLESS, toolArgsUnreadable } from '../contract/code-runtime.js'
import type { ContentBlock, ContextSource } from '../contract/content.js'
import { RUN_CODE } from '../contract/definition.js'
import type { ExecuteInput } from '../contract/execution.js'
import type { ToolResult } from '../contract/result.js'
import type { ToolView } from '../contract/tool-view.js'
import { errorMessage } from '../foundation/errors.js'
import type { JsonValue } from '../foundation/lossless-json.js'
import { snapshotJson } from '../foundation/lossless-json.js'
import { DispatchSink } from './dispatch-sink.js'
import type { RunCodeRequest } from './host.js'
import { RunProvenance } from './run-provenance.js'
import { type JobOutcome, SubCallScheduler } from './sub-call-scheduler.js'
import { ToolCallError } from './tool-call-error.js'

/** Why a run is over (X7.2). */
export type SettleReason = 'completed' | 'failed' | 'aborted'

/** A binding call that passed its argument snapshot and got a sub-call number. */
interface SubCall {
  readonly id: string
  readonly name: string
  readonly args: JsonValue
  readonly resolve: (value: JsonValue) => void
  readonly reject: (error: unknown) => void
}

/**
 * The host side of one program run. Construct it when the run starts: it reads the scope's
 * view once for `bindings` (X3.1) and ties its run-scoped `signal` to the outer signal
 * (X7.1). Call `settle(reason)` exactly once, after the code runtime returned, and await it
 * before the `run_code` body returns.
 */
export class CodeRun {
  /** The null-prototype, frozen `tools` object: one binding per visible tool but `run_code`. */
  readonly bindings: Readonly<Record<string, CodeBinding>>
  /** Aborts when the outer signal aborts and when the run settles (X7.1). */
  readonly signal: AbortSignal
  /** True once a nested success carried `concludesTurn` (X4.5). */
  concludes = false
  private readonly controller = new AbortController()
  private readonly view: ToolView
  private readonly scheduler: SubCallScheduler<SubCall, ToolResult>
  private readonly sink: DispatchSink
  private readonly sequence = callSequence()
  /** What the program's labelled results handed it, for its later calls' provenance (H4.1). */
  readonly provenance: RunProvenance
  private over: SettleReason | undefined
  private submitted = 0
  private readonly onOuterAbort = () => this.controller.abort(this.request.run.signal.reason)

  constructor(private readonly request: RunCodeRequest) {
    const { run, host } = request
    this.signal = this.controller.signal
    if (run.signal.aborted) this.onOuterAbort()
    else run.signal.addEventListener('abort', this.onOuterAbort, { once: true })
    this.view = host.view(run.scope)
    this.provenance = new RunProvenance(run.provenance)
    this.sink = new DispatchSink(request.onCodeDispatch, host.reportError)
    this.scheduler = new SubCallScheduler(host.maxParallelSubCalls, {
      classify: (call) =>
        this.view.executionMode({ name: call.name, arguments: call.args, parent: run.token }),
      run: (call) => this.dispatch(call),
      commit: (call, outcome) => this.commit(call, outcome),
    })
    const tools: Record<string, CodeBinding> = Object.create(null)
    for (const def of this.view.list()) {
      if (def.name === RUN_CODE) continue
      const name = def.name
      // defineProperty, so a tool named `__proto__` is an ordinary binding (X3.1).
      Object.defineProperty(tools, name, {
        value: (args: JsonValue) => this.call(name, args),
        enumerable: true,
      })
    }
    this.bindings = Object.freeze(tools)
  }

  /**
   * Ends the run (X7.2): aborts the run-scoped signal, rejects queued calls as abandoned,
   * waits for in-flight calls (aborted) and their commits, then drains the sink.
   */
  async settle(reason: SettleReason): Promise<void> {
    this.over = reason
    this.request.run.signal.removeEventListener('abort', this.onOuterAbort)
    this.controller.abort(new Error(`run_code run is over (${reason})`))
    for (const call of this.scheduler.close()) {
      call.reject(new Error(`run_code run is over (${reason}); ${call.name} tool call abandoned`))
    }
    await this.scheduler.drain()
    await this.sink.drain()
  }

  /** A binding call (X3.2, X4.6, X7.3): snapshot the arguments, number the call, submit it. */
  private call(name: string, args: unknown): Promise<JsonValue> {
    if (this.over !== undefined) {
      return Promise.reject(new Error(`run_code run is over (${this.over}); ${name} not dispatched`))
    }
    let snap: ReturnType<typeof snapshotJson>
    try {
      snap = snapshotJson(args, { freeze: true, root: 'arguments' })
    } catch (error) {
      return Promise.reject(new TypeError(toolArgsUnreadable(errorMessage(error))))
    }
    if (!snap.ok) return Promise.reject(new TypeError(TOOL_ARGS_NOT_LOSSLESS))
    const n = ++this.submitted
    const id = `${this.request.run.callId}:code:${n}`
    const frozenArgs = snap.value
    return new Promise<JsonValue>((resolve, reject) => {
      this.scheduler.submit({ id, name, args: frozenArgs, resolve, reject })
    })
  }

  /** Starts one nested call (X4.1, X5.1, X5.2). */
  private async dispatch(call: SubCall): Promise<ToolResult> {
    const { run, approver, elicitor, host } = this.request
    const ids = { rootCallId: run.rootCallId, parentCallId: run.callId, subCallId: call.id, name: call.name }
    this.sink.emit({ type: 'start', ...ids, arguments: call.args })
    const input: ExecuteInput = {
      callId: call.id,
      rootCallId: run.rootCallId,
      name: call.name,
      arguments: call.args,
      signal: this.signal,
      parent: run.token,
      // Sub-calls run their policy phases one at a time, in submission order (P1.9).
      sequence: this.sequence,
    }
    if (run.scope !== undefined) input.scope = run.scope
    if (approver !== undefined) input.approver = approver
    if (elicitor !== undefined) input.elicit = elicitor
    const provenance = this.provenance.of(call.args)
    if (provenance !== undefined) input.provenance = provenance
    const result = await host.execute(input)
    this.sink.emit(
      result.isError
        ? { type: 'settle', ...ids, isError: true, content: result.content, error: result.error.info }
        : { type: 'settle', ...ids, isError: false, content: result.content },
    )
    return result
  }

  /**
   * Lands one nested outcome on the outer call, in submission order: its contexts are
   * re-deferred (X4.3), image content is deferred too (X4.4), conclusion is noted (X4.5),
   * and the binding settles with the value or a `ToolCallError` (X3.3, X3.4) unless the run
   * is already over, in which case the late result is dropped (X7.3).
   */
  private commit(call: SubCall, outcome: JobOutcome<ToolResult>): void {
    if (!outcome.ok) {
      // Only a broken invariant makes `execute` reject; report it and fail the binding.
      this.request.host.reportError(outcome.error)
      if (this.over === undefined) call.reject(outcome.error)
      return
    }
    const result = outcome.value
    this.provenance.settled(call.id, call.name, result)
    for (const context of result.additionalContexts ?? []) {
      this.defer(context.content, context.source)
    }
    if (!result.isError && result.content.some((block) => block.type === 'image')) {
      this.defer(result.content, { kind: 'code-mode', callId: call.id })
    }
    if (!result.isError && result.concludesTurn === true) this.concludes = true
    if (this.over !== undefined) return
    if (result.isError)
      call.reject(new ToolCallError(call.name, result.error.info.code, result.error.message))
    else call.resolve(result.value)
  }

  private defer(content: readonly ContentBlock[], source: ContextSource): void {
    try {
      this.request.run.deferContext({ content: content as ContentBlock[], source })
    } catch (error) {
      this.request.host.reportError(error)
    }
  }
}
