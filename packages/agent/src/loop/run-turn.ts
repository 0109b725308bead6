/**
 * One turn of the loop (L3), read top to bottom: `runTurn` opens the turn and runs its steps;
 * a step opens (`step/start` and the drained FIFO durable before the model is asked), builds
 * its request, reads the reply, stages it and runs its calls as one batch through the
 * scheduler. What a step comes to is a `StepResult`, which the steps loop switches on. A
 * resumed turn (F2.7) starts in its open step, whose parked calls run as the step's batch.
 */
import type { RuntimeScope, ToolCallBlock, ToolSurface, ToolView } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import type {
  ApprovalDecidedData,
  PreparedStep,
  ReplyStop,
  StepEndData,
  SuspendedTurn,
  TurnEndData,
} from '@tooltx/session'
import { Journal } from '../base/journal.js'
import type { PendingApproval } from '../base/pending-approval.js'
import { notStartedEvents } from '../base/tool-events.js'
import { replyText, suspendedOutcome, type TurnOutcome, turnOutcome } from '../base/turn-outcome.js'
import { restoreRequest } from '../context/prepare-step.js'
import { stepRequest } from '../context/step-request.js'
import { type CutReply, ModelError } from '../model/model-error.js'
import { type ReplyOutcome, readReply } from '../model/reply.js'
import { recoverCalls } from '../recovery/recover-calls.js'
import { callInputs, recoveryInput } from './call-input.js'
import type { LoopContext } from './loop-context.js'
import { schedule } from './scheduler.js'
import { limitEnd } from './turn-bounds.js'

/** What one step comes to: another step follows, the turn ends, or it suspends (F2.3). */
export type StepResult =
  | { readonly kind: 'next' }
  | { readonly kind: 'end'; readonly end: TurnEndData }
  | { readonly kind: 'suspended'; readonly pending: readonly PendingApproval[] }

/** A suspended turn about to continue (F2.7). */
export interface Resumption {
  readonly suspended: SuspendedTurn
  /** The text of the turn's last assistant message so far. */
  readonly text: string
  /** Tool calls the turn started before its parked ones (L13.1). */
  readonly calls: number
  /** The recorded decision the waiting call's ask is answered with, by call id. */
  readonly decisions: Map<string, ApprovalDecidedData>
}

/** How a run of one turn ended, for the agent's lifecycle. */
export interface TurnRun {
  readonly outcome: TurnOutcome
  readonly suspended: boolean
  /** A write or a call failed: the session needs its repair before the next turn (L5.6). */
  readonly failed: boolean
}

/** What the loop tracks of the turn that runs (L13). */
interface RunningTurn {
  readonly turn: number
  /** The `send`/`inject` promises of the user messages the turn drained. */
  readonly waiters: ((outcome: TurnOutcome) => void)[]
  /** Tool calls started so far (L13.1 `maxToolCalls`). */
  calls: number
  /** The text of the turn's last assistant message. */
  text: string
  /** The step whose `step/start` is durable and whose `step/end` is not (L3.8). */
  openStep: number | undefined
  /** The `turn/start` is durable. */
  started: boolean
  /** Aborts the turn: `abort()`, or the `maxTurnMs` timer. */
  readonly signal: AbortSignal
  /** The `maxTurnMs` timer aborted the turn signal. */
  timedOut: boolean
  failed: boolean
  /** The turn's writer (see `Journal` for when each event becomes durable). */
  readonly journal: Journal
}

/** The view of one step's calls: its surface's tools, its view and its scope (T4.2). */
interface StepView {
  readonly step: number
  readonly tools: ToolSurface['tools']
  readonly view: ToolView
  readonly scope: RuntimeScope
}

const NEXT: StepResult = { kind: 'next' }
const ended = (end: TurnEndData): StepResult => ({ kind: 'end', end })

/**
 * Runs turn `turn`, or continues the suspended one (F2.7) from its open step, under
 * `controller` and the `maxTurnMs` bound, and settles the promises of the messages it drained
 * with its outcome.
 */
export async function runTurn(
  ctx: LoopContext,
  controller: AbortController,
  turn: number,
  resumed?: Resumption,
): Promise<TurnRun> {
  const state: RunningTurn = {
    turn,
    waiters: [],
    calls: resumed?.calls ?? 0,
    text: resumed?.text ?? '',
    openStep: resumed?.suspended.step,
    started: resumed !== undefined,
    signal: controller.signal,
    timedOut: false,
    failed: false,
    journal: new Journal(ctx.options.session),
  }
  const { maxTurnMs } = ctx.bounds
  const timer =
    maxTurnMs === Number.POSITIVE_INFINITY
      ? undefined
      : setTimeout(() => {
          state.timedOut = true
          controller.abort(new Error(`the turn reached maxTurnMs (${maxTurnMs} ms)`))
        }, maxTurnMs)
  let result: Exclude<StepResult, { kind: 'next' }>
  ctx.turnInProgress = state
  try {
    result = await runSteps(ctx, state, resumed)
  } finally {
    ctx.turnInProgress = undefined
    clearTimeout(timer)
  }
  const outcome =
    result.kind === 'suspended'
      ? suspendedOutcome(turn, state.text, result.pending)
      : turnOutcome(result.end, state.text)
  for (const settle of state.waiters) settle(outcome)
  return { outcome, suspended: result.kind === 'suspended', failed: state.failed }
}

/**
 * Runs the steps of a turn and records its end; resolves with the `turn/end` written, or with
 * the suspension of a step whose batch waits on a durable approval (F2.3: no `step/end`, no
 * `turn/end`). What the last step staged becomes durable with `turn/end`, in the turn's last
 * write (L3.6).
 */
async function runSteps(
  ctx: LoopContext,
  state: RunningTurn,
  resumed: Resumption | undefined,
): Promise<Exclude<StepResult, { kind: 'next' }>> {
  const { turn, journal } = state
  try {
    if (resumed === undefined) journal.stage({ type: 'turn/start', data: { turn } })
    for (let step = resumed?.suspended.step ?? 1; ; step++) {
      const result =
        resumed !== undefined && step === resumed.suspended.step
          ? await resumeStep(ctx, state, resumed)
          : await runStep(ctx, state, step)
      let end: TurnEndData
      switch (result.kind) {
        case 'next':
          // A bound ends the turn once the step is closed, instead of asking the model again (L13.1).
          if (step < ctx.bounds.maxSteps) continue
          end = limitEnd(turn, 'maxSteps', ctx.bounds)
          break
        case 'end':
          end = result.end
          break
        case 'suspended':
          await journal.flush()
          return result
        default:
          return unreachable(result)
      }
      if (end.reason === 'aborted' && state.timedOut) end = limitEnd(turn, 'maxTurnMs', ctx.bounds)
      journal.stage({ type: 'turn/end', data: end })
      await journal.flush()
      return { kind: 'end', end }
    }
  } catch (error) {
    // A failed append or model call ends the turn; repair runs before the next one (L5.6).
    // The failed write dropped what it held, so the turn is recorded as started (when even
    // its opening write failed) and failed, an open step closed first (L3.8).
    state.failed = true
    const end: TurnEndData = { turn, reason: 'error', message: errorMessage(error) }
    if (!state.started) journal.stage({ type: 'turn/start', data: { turn } })
    if (state.openStep !== undefined)
      journal.stage({ type: 'step/end', data: { turn, step: state.openStep } })
    journal.stage({ type: 'turn/end', data: end })
    await journal.flush().catch(() => {})
    return { kind: 'end', end }
  }
}

/**
 * One step (L3.3–L3.6): `step/start` and the drained FIFO become durable with what the
 * previous step staged (`turn/start`, or its `step/end`), in one write before the model is
 * asked; the reply's `assistant/message` is staged and rides on the batch's first write, or
 * on the next flush when no call starts. Every way out of the step stages its `step/end`
 * (L3.8).
 */
async function runStep(ctx: LoopContext, state: RunningTurn, step: number): Promise<StepResult> {
  const { session, runtime, scope, model, system, prepareStep, onModelEvent } = ctx.options
  const { turn, journal, signal } = state
  journal.stage({ type: 'step/start', data: { turn, step } })
  for (const entry of ctx.queue.drain()) {
    journal.stage({ type: 'user/message', data: { turn, step, message: entry.message } })
    if (entry.settle !== undefined) state.waiters.push(entry.settle)
  }
  await journal.flush()
  state.started = true
  state.openStep = step
  const { request, view, tools, prepared, measured } = await stepRequest({
    turn,
    step,
    runtime,
    scope,
    session,
    journal,
    model,
    signal,
    system,
    prepareStep,
    budget: ctx.budget,
  })
  try {
    let reply: ReplyOutcome
    try {
      reply = await readReply(model, request, signal, onModelEvent)
    } catch (error) {
      if (!(error instanceof ModelError) || error.kind !== 'truncated' || error.reply === undefined)
        throw error
      return cutStep(ctx, state, step, error, error.reply, prepared.prepared)
    }
    if (reply.status === 'complete') ctx.budget?.observe(measured, reply.usage)
    const stop = reply.status === 'complete' ? reply.stop : undefined
    const at: StepView = { step, tools, view, scope: prepared.scope }
    const result = await replyStep(ctx, state, at, reply, prepared.prepared)
    // A suspended step stays open until its turn resumes (F2.3).
    if (result.kind !== 'suspended') journal.stage(stepEnd(turn, step, stop, prepared.prepared))
    return result
  } finally {
    prepared.dispose()
  }
}

/**
 * A reply the provider cut while it held tool calls (T2.3): none of them runs. `'end-turn'`
 * ends the turn with the adapter's error (L12.2); `'tell-model'` stages the reply with a
 * not-started pair for each call, so the model reads why, and goes on to the next step.
 */
function cutStep(
  ctx: LoopContext,
  state: RunningTurn,
  step: number,
  error: ModelError,
  cut: CutReply,
  prepared: PreparedStep | undefined,
): StepResult {
  const { turn, journal } = state
  const where = { turn, step }
  if (ctx.options.onCutToolCalls !== 'tell-model') {
    journal.stage(stepEnd(turn, step, cut.stop, prepared))
    return ended({ turn, reason: 'error', message: error.message })
  }
  const { content } = cut
  state.text = replyText(content)
  journal.stage({ type: 'assistant/message', data: { ...where, content, ...recorded(prepared) } })
  for (const block of content) {
    if (block.type === 'tool-call') journal.stage(...notStartedEvents(where, block, 'cut'))
  }
  journal.stage(stepEnd(turn, step, cut.stop, prepared))
  return NEXT
}

/**
 * Stages the step's reply and runs its calls. Incomplete tool calls of an aborted reply are
 * dropped; its partial text is kept only when there is some (L6.6).
 */
async function replyStep(
  ctx: LoopContext,
  state: RunningTurn,
  at: StepView,
  reply: ReplyOutcome,
  prepared: PreparedStep | undefined,
): Promise<StepResult> {
  const { turn, journal } = state
  const data = { turn, step: at.step, content: reply.content, ...recorded(prepared) }
  const assistant = { type: 'assistant/message', data } as const
  if (reply.status === 'aborted') {
    if (reply.content.length > 0) {
      state.text = replyText(reply.content)
      journal.stage(assistant)
    }
    return ended({ turn, reason: 'aborted' })
  }
  state.text = replyText(reply.content)
  journal.stage(assistant)
  const calls = reply.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
  if (calls.length === 0) return ctx.queue.hasQueued ? NEXT : ended({ turn, reason: 'completed' })
  return runBatch(ctx, state, at, calls)
}

/**
 * Runs one batch of calls through the scheduler and says what it means for the turn.
 * `resumed` holds the calls of
 * a resumed batch whose `tool/call` is already durable, and the decisions its asks are
 * answered with (F2.7).
 */
async function runBatch(
  ctx: LoopContext,
  state: RunningTurn,
  { step, tools, view, scope }: StepView,
  calls: readonly ToolCallBlock[],
  resumed?: { readonly called: ReadonlySet<string>; readonly decisions: Resumption['decisions'] },
): Promise<StepResult> {
  const { turn, journal, signal } = state
  const { model, runtime } = ctx.options
  const { bounds } = ctx
  const where = { turn, step }
  const outcome = await schedule(
    {
      runtime,
      journal,
      where,
      signal,
      maxParallel: ctx.maxParallel,
      maxCalls: bounds.maxToolCalls - state.calls,
      queue: ctx.queue,
      inputs: callInputs(ctx, { journal, where, signal, scope, decisions: resumed?.decisions }),
      view,
      parse: model.parseArguments && ((block) => model.parseArguments!(block, tools)),
      parkable: ctx.durable !== undefined,
      ...(resumed === undefined ? {} : { called: resumed.called }),
    },
    calls,
  )
  state.calls += outcome.started
  switch (outcome.kind) {
    case 'failed':
      state.failed = true
      return ended({ turn, reason: 'error', message: outcome.message })
    case 'aborted':
      return ended({ turn, reason: 'aborted' })
    case 'limited':
      return ended(limitEnd(turn, 'maxToolCalls', bounds))
    case 'suspended':
      return { kind: 'suspended', pending: outcome.pending }
    case 'completed':
      if (outcome.concludesTurn && !ctx.queue.hasQueued) return ended({ turn, reason: 'completed' })
      // Every call the turn may make has run: another request could only ask for more (L13.1).
      return state.calls >= bounds.maxToolCalls ? ended(limitEnd(turn, 'maxToolCalls', bounds)) : NEXT
    default:
      return unreachable(outcome)
  }
}

/**
 * The open step of a resumed turn (F2.7): `turn/resumed` is durable before anything runs;
 * then the step is rebuilt as `prepareStep` prepared it (T4.5), the calls before the waiting
 * one that have no result are recovered by F1.4's rule, and the waiting call and the later
 * ones run as one batch of the step's scope, without a second `tool/call`.
 */
async function resumeStep(ctx: LoopContext, state: RunningTurn, resumed: Resumption): Promise<StepResult> {
  const { runtime, scope, session, system } = ctx.options
  const { turn, step, prepared, interrupted, parked } = resumed.suspended
  const { journal, signal } = state
  journal.stage({ type: 'turn/resumed', data: { turn, step } })
  await journal.flush()
  const rebuilt = restoreRequest(prepared, { runtime, scope, system })
  let result: StepResult
  try {
    const view = runtime.view(rebuilt.scope)
    const tools = view.surface().tools
    const { decisions } = resumed
    await recoverCalls({
      runtime,
      scope: rebuilt.scope,
      session,
      journal,
      turn,
      input: recoveryInput(ctx, { journal, signal, scope: rebuilt.scope, decisions, turn, tools }),
      calls: interrupted,
      hides: rebuilt.hides,
    })
    const called = new Set(parked.filter((p) => p.called).map((p) => p.block.id))
    const at: StepView = { step, tools, view, scope: rebuilt.scope }
    result = await runBatch(
      ctx,
      state,
      at,
      parked.map((p) => p.block),
      { called, decisions },
    )
  } finally {
    rebuilt.dispose()
  }
  if (result.kind !== 'suspended') journal.stage(stepEnd(turn, step, undefined, rebuilt.prepared))
  return result
}

/** A step's `step/end`, with why its reply stopped (T2.2) and what `prepareStep` changed (T4.3). */
function stepEnd(
  turn: number,
  step: number,
  stop: ReplyStop | undefined,
  prepared: PreparedStep | undefined,
): { type: 'step/end'; data: StepEndData } {
  const data: StepEndData = {
    turn,
    step,
    ...(stop === undefined ? {} : { stop }),
    ...(prepared === undefined ? {} : { prepared }),
  }
  return { type: 'step/end', data }
}

/** The `prepared` field of a step's `assistant/message` (T4.4): absent when nothing changed. */
const recorded = (prepared: PreparedStep | undefined) => (prepared === undefined ? {} : { prepared })

/** The `never` check of an exhaustive switch. */
function unreachable(value: never): never {
  throw new Error(`unhandled case ${JSON.stringify(value)}`)
}
