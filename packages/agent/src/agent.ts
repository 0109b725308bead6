import {
  type AdditionalContext,
  type Approver,
  type CodeDispatchSink,
  type CodeRuntime,
  definitionError,
  errorMessage,
  parseToolArguments,
  type RuntimeScope,
  type ToolCallBlock,
  type ToolSurface,
  type ToolView,
  type UserMessage,
} from '@tooltx/core'
import {
  type ApprovalDecidedData,
  isExpired,
  type PreparedStep,
  planRepair,
  type ReplyStop,
  type Session,
  type StepEndData,
  type SuspendedTurn,
  stepPreparation,
  suspendedTurn,
  type TurnEndData,
} from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from './agent-runtime.js'
import { ContextBudget } from './context/context-budget.js'
import { type ContextOptions, resolveContext } from './context/context-options.js'
import { ContextProvenanceTracker } from './context-provenance.js'
import {
  type ApprovalsOption,
  type DurableApprovals,
  decidedApprover,
  durableApprover,
  resolveApprovals,
} from './durable-approvals.js'
import { Journal } from './journal.js'
import type { ModelAdapter, ModelStreamEvent } from './model/model.js'
import { type CutReply, ModelError } from './model/model-error.js'
import { type ReplyOutcome, readReply } from './model/reply.js'
import { type PrepareStep, restoreRequest } from './prepare-step.js'
import { recordingApprover } from './recording-approver.js'
import { recoverCalls, recoverSession } from './recovery.js'
import { type BatchHooks, type ScheduleOptions, type ScheduleOutcome, schedule } from './scheduler.js'
import { stepRequest } from './step-request.js'
import {
  callsBefore,
  isSuspension,
  lastReplyText,
  pendingDecision,
  type StepEnd,
  type Suspension,
} from './suspension.js'
import { effectSink, notStartedEvents } from './tool-events.js'
import { limitEnd, resolveBounds, type TurnBounds } from './turn-bounds.js'
import { replyText, suspendedOutcome, type TurnOutcome, turnOutcome } from './turn-outcome.js'
import { snapshotUserMessage, textMessage } from './user-input.js'

/** Options of `createAgent` (L3.1). */
export interface AgentOptions {
  runtime: AgentRuntime
  /** The scope whose view the model sees and whose tools it calls. */
  scope: RuntimeScope
  session: Session
  model: ModelAdapter
  /** The sandbox for `run_code` calls, passed in every call's input. */
  codeRuntime?: CodeRuntime
  /** How many concurrency-safe calls may run at once (default 10, L5.4). */
  maxParallelToolCalls?: number
  /** Decides `ask` decisions; every consultation is recorded in the session (L8). */
  approver?: Approver
  /**
   * `'durable'`: an `ask` is recorded in the session and its turn suspends until someone
   * calls `decide` and an agent resumes it, in any process (F2.1); not with `approver`.
   */
  approvals?: ApprovalsOption
  /** The agent's own system prompt, sent before the surface instructions. */
  system?: string
  /** Sees every model stream event as it arrives (for live display); must not throw. */
  onModelEvent?: (event: ModelStreamEvent) => void
  /** Model requests (steps) per turn; default 100, `Infinity` for none (L13.1). */
  maxSteps?: number
  /** Tool calls started per turn; default 1000, `Infinity` for none (L13.1). */
  maxToolCalls?: number
  /** Wall-clock milliseconds per turn; default `Infinity` (none), since a turn may wait for a person (L13.1). */
  maxTurnMs?: number
  /** A token budget for each model request and how to shrink the history past it (T3.1). */
  context?: ContextOptions
  /** Called before each model call; may change the system prompt, narrow the tools, force a tool (T4.1). */
  prepareStep?: PrepareStep
  /** What follows a reply the provider cut while it held tool calls (T2.3); default `'end-turn'`. */
  onCutToolCalls?: 'end-turn' | 'tell-model'
}

/** Options of `agent.abort` (L6.8). */
export interface AbortOptions {
  /** Start the next turn with the queued user input at once; by default it waits for the next send. */
  keepQueued?: boolean
}

/** A running agent loop over one session. */
export interface Agent {
  /**
   * Queues a user text message; starts a turn when idle (L3.1, L3.2). Resolves with the
   * outcome of the turn the message goes into (L13.3); never rejects.
   */
  send(text: string): Promise<TurnOutcome>
  /**
   * Queues a user message with any content blocks, snapshotted now (L3.9); starts a turn when
   * idle. Resolves like `send`. Throws `INVALID_DEFINITION` at once for a message that is not
   * a lossless JSON user message; the running turn carries on.
   */
  inject(message: UserMessage): Promise<TurnOutcome>
  /**
   * Aborts the running turn, if any (L6.1). Queued user input then waits for the next `send`
   * or `inject`, unless `{ keepQueued: true }` starts the next turn with it at once (L6.8).
   */
  abort(options?: AbortOptions): void
  /**
   * Resolves when no turn runs and none is about to start (L3.7), with the outcome of the
   * last turn that ended (L13.3), `undefined` if none has. Rejects with the cause when the
   * loop stopped with messages still queued because the session refused the repair a new
   * turn needs (L5.6); the next `send` or `inject` tries again.
   */
  whenIdle(): Promise<TurnOutcome | undefined>
  /**
   * Recovers a session opened with `repair: false` after a crash (F1.4, F1.6): re-runs its
   * interrupted `'read'` and `'idempotent'` calls, then repairs the rest (`TOOL_EFFECT_RECORDED`
   * from receipts, `TOOL_OUTCOME_UNKNOWN` otherwise). The first `send` or `inject` does it
   * too. Resolves once the log is valid (at once when it already is); waits for a running turn.
   * On a suspended turn (F2.7) it continues the turn once its waiting call is decided (or
   * expired) and resolves with the turn's outcome, `'suspended'` again while nobody decided;
   * otherwise it resolves with `undefined`.
   */
  resume(): Promise<TurnOutcome | undefined>
}

/** What `#reply` gets from its step: the reply read and the view it was read against. */
interface ReplyStep {
  readonly step: number
  readonly reply: ReplyOutcome
  readonly tools: ToolSurface['tools']
  readonly view: ToolView
  /** The step's scope: the agent's, or the child `prepareStep` narrowed (T4.2). */
  readonly scope: RuntimeScope
  /** What `prepareStep` changed, recorded on the step's `assistant/message` (T4.4). */
  readonly prepared: PreparedStep | undefined
}

type QueuedMessage = {
  message: UserMessage
  fromUser: boolean
  /** Resolves the `send` or `inject` promise of a user message. */
  settle?: (outcome: TurnOutcome) => void
}

/** What the loop tracks of the turn that runs (L13). */
interface TurnState {
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
  /** The turn's pending events (see `Journal` for when each becomes durable). */
  readonly journal: Journal
}

/**
 * Builds an agent loop (L3): turns and steps, the tool scheduler, deferred contexts, approval
 * events, turn bounds. The loop owns durability: it appends every event; the runtime writes
 * nothing. Throws `INVALID_DEFINITION` for a `maxParallelToolCalls` that is not a positive
 * integer (L5.4), for bounds that are neither positive integers nor `Infinity` (L13.2), for a
 * malformed `context` (T3.1), a `prepareStep` that is not a function (T4.1), an unknown
 * `onCutToolCalls` (T2.3), and malformed `approvals` or `approvals` with an `approver` (F2.1).
 */
export function createAgent(options: AgentOptions): Agent {
  const maxParallel = options.maxParallelToolCalls ?? 10
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw definitionError(`maxParallelToolCalls must be a positive integer, got ${String(maxParallel)}`)
  }
  if (options.prepareStep !== undefined && typeof options.prepareStep !== 'function') {
    throw definitionError('prepareStep must be a function (state) => { system?, tools?, toolChoice? }')
  }
  const cut = options.onCutToolCalls
  if (cut !== undefined && cut !== 'end-turn' && cut !== 'tell-model') {
    throw definitionError(
      `onCutToolCalls must be 'end-turn' or 'tell-model', got ${JSON.stringify(cut) ?? String(cut)}`,
    )
  }
  const context = options.context === undefined ? undefined : resolveContext(options.context)
  const durable = resolveApprovals(options.approvals, options.approver)
  return new AgentLoop(options, maxParallel, resolveBounds(options), context, durable)
}

class AgentLoop implements Agent {
  readonly #options: AgentOptions
  readonly #maxParallel: number
  readonly #bounds: TurnBounds
  /** User messages and deferred contexts; drained only at step boundaries (L3.3, L7.2). */
  readonly #fifo: QueuedMessage[] = []
  #running: Promise<void> | undefined
  #controller: AbortController | undefined
  #needsRepair = false
  /**
   * Set by an abort that holds queued input for the next send (L6.8); cleared by that send
   * and by `abort({ keepQueued: true })`.
   */
  #halted = false
  /** Why the loop stopped with user messages still queued; cleared by the next send. */
  #stalled: { error: unknown } | undefined
  #position = { turn: 0, step: 0 }
  /** The session's latest turn number, kept current by a listener instead of a scan per turn. */
  #lastTurn = 0
  #lastOutcome: TurnOutcome | undefined
  /** Follows the session's messages when `context` is set (T3). */
  readonly #budget: ContextBudget | undefined
  /** The durable-approval settings (F2.1); `undefined` for in-process approvals. */
  readonly #durable: DurableApprovals | undefined
  /** The latest turn is suspended on a durable approval (F2.3): it continues, no new turn starts. */
  #suspended: boolean
  /** Decisions a resumed batch answers its asks with, by call id (F2.7). */
  readonly #decisions = new Map<string, ApprovalDecidedData>()
  /** [provenance] The labelled results in the model's context, for `exec.provenance` (H2). */
  readonly #provenance: ContextProvenanceTracker

  constructor(
    options: AgentOptions,
    maxParallel: number,
    bounds: TurnBounds,
    context: ReturnType<typeof resolveContext> | undefined,
    durable: DurableApprovals | undefined,
  ) {
    this.#options = options
    this.#maxParallel = maxParallel
    this.#bounds = bounds
    this.#durable = durable
    const { session, runtime, scope } = options
    this.#budget =
      context === undefined
        ? undefined
        : new ContextBudget(context, session, (name) => runtime.view(scope).get(name))
    session.on((event) => {
      if (event.type === 'turn/start') this.#lastTurn = event.data.turn
    })
    const events = session.events()
    this.#provenance = ContextProvenanceTracker.following(session, events) // [provenance] H2.4
    // A session opened without repair (F1.6) is recovered before the next turn; a suspended
    // turn is continued instead (F2.7).
    this.#needsRepair = planRepair(events).length > 0
    this.#suspended = suspendedTurn(events) !== undefined
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!
      if (event.type === 'turn/start') {
        this.#lastTurn = event.data.turn
        break
      }
    }
  }

  send(text: string): Promise<TurnOutcome> {
    return this.#enqueue(textMessage(text))
  }

  inject(message: UserMessage): Promise<TurnOutcome> {
    return this.#enqueue(snapshotUserMessage(message))
  }

  abort(options?: AbortOptions): void {
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw definitionError('agent.abort takes { keepQueued?: boolean } or nothing')
    }
    const keepQueued = options?.keepQueued
    if (keepQueued !== undefined && typeof keepQueued !== 'boolean') {
      throw definitionError(`agent.abort keepQueued must be a boolean, got ${typeof keepQueued}`)
    }
    if (this.#controller === undefined) return
    this.#halted = keepQueued !== true
    this.#controller.abort()
  }

  async whenIdle(): Promise<TurnOutcome | undefined> {
    while (this.#running !== undefined) await this.#running
    if (this.#stalled !== undefined) throw this.#stalled.error
    return this.#lastOutcome
  }

  async resume(): Promise<TurnOutcome | undefined> {
    while (this.#running !== undefined) await this.whenIdle().catch(() => {})
    if (!this.#suspended && !this.#needsRepair) return undefined
    const controller = new AbortController()
    this.#controller = controller
    const run = this.#suspended
      ? this.#continue(controller)
      : this.#recover(controller.signal).then(() => undefined)
    this.#running = run.then(
      () => {},
      () => {},
    )
    try {
      return await run
    } finally {
      this.#controller = undefined
      this.#running = undefined
      // Input sent while it ran and not drained into the resumed turn starts the next one.
      this.#kickQueued()
    }
  }

  /**
   * Continues the suspended turn (F2.7), resolving with its outcome: `'suspended'` again,
   * appending nothing, while its waiting call is undecided and not expired; otherwise an
   * expired ask is recorded `'expired'`, `turn/resumed` is appended before anything runs, the
   * earlier calls a dead process left without a result are recovered by F1.4's rule, and the
   * waiting call and every later one run through the scheduler in model order (with their
   * `tool/call`s as logged), the waiting call's ask answered by its recorded decision; then
   * the turn goes on as any other. `undefined` when the session holds no suspended turn.
   */
  async #continue(controller: AbortController): Promise<TurnOutcome | undefined> {
    const { session } = this.#options
    const events = session.events()
    const suspended = suspendedTurn(events)
    if (suspended === undefined) {
      this.#suspended = false
      return undefined
    }
    const { turn, step, asked } = suspended
    const text = lastReplyText(events)
    let decided = suspended.decided
    if (decided === undefined) {
      const expiresAt = asked.expiresAt ?? ''
      const now = Date.now()
      if (!isExpired(asked, now)) {
        const pending = pendingDecision(asked)
        const outcome = suspendedOutcome(turn, text, [pending])
        this.#lastOutcome = outcome
        return outcome
      }
      const { callId, name, argumentsDigest } = asked
      const expired = { turn, step, callId, name, outcome: 'expired' as const }
      decided = (
        await session.append('approval/decided', {
          ...expired,
          ...(argumentsDigest === undefined ? {} : { argumentsDigest }),
          reason: `nobody decided before ${expiresAt}`,
          decidedAt: new Date(now).toISOString(),
        })
      ).data
    }
    this.#suspended = false
    this.#decisions.clear()
    this.#decisions.set(asked.callId, decided)
    return this.#turn(controller, suspended, text)
  }

  /**
   * Re-runs what may run again, then repairs the rest (F1.4), in the interrupted step's scope
   * as `prepareStep` prepared it (T4.5); clears the repair flag.
   */
  async #recover(signal: AbortSignal): Promise<void> {
    const { runtime, scope, session, system } = this.#options
    const rebuilt = restoreRequest(stepPreparation(session.events()), { runtime, scope, system })
    try {
      const tools = runtime.view(rebuilt.scope).surface().tools
      const input = this.#inputs(signal, rebuilt.scope)
      await recoverSession({
        runtime,
        scope: rebuilt.scope,
        session,
        turn: this.#lastTurn,
        input: (block, step, fail) => {
          this.#position = { turn: this.#lastTurn, step }
          return input(block, this.#parse(block, tools), solo(fail))
        },
        hides: rebuilt.hides,
      })
    } finally {
      rebuilt.dispose()
    }
    this.#needsRepair = false
  }

  /** Queues a checked user message and resolves with the outcome of the turn it goes into. */
  #enqueue(message: UserMessage): Promise<TurnOutcome> {
    const outcome = new Promise<TurnOutcome>((settle) => {
      this.#fifo.push({ message, fromUser: true, settle })
    })
    this.#halted = false
    this.#kick()
    return outcome
  }

  /** Starts the turn loop when idle and a user message waits. */
  #kick(): void {
    if (this.#running !== undefined) return
    this.#stalled = undefined
    // The loop runs detached: a failure is kept for whenIdle, never left as an unhandled rejection.
    // It starts a microtask later, so messages sent back to back open the turn together.
    this.#running = Promise.resolve()
      .then(() => this.#drain())
      .catch((error: unknown) => {
        this.#stalled = { error }
        // The messages stay queued for the next send, but their callers learn now (L13.3).
        const failed = Object.freeze({ reason: 'error' as const, text: '', error: errorMessage(error) })
        for (const entry of this.#fifo) {
          entry.settle?.(failed)
          delete entry.settle
        }
      })
      .finally(() => {
        this.#running = undefined
        this.#kickQueued()
      })
  }

  /**
   * Starts the loop for user input queued while it was winding down (after its last look at
   * the FIFO); not after a stall (L13.3), a halting abort (L6.8) or a suspension that nobody
   * decided (F2.8), which keep their input for the next send.
   */
  #kickQueued(): void {
    if (this.#stalled !== undefined || this.#halted || this.#suspended) return
    if (this.#fifo.some((entry) => entry.fromUser)) this.#kick()
  }

  async #drain(): Promise<void> {
    // Deferred contexts alone never start a turn: they ride along with the next user message.
    // After an abort, queued input waits for the next send (L6.8).
    while (!this.#halted && this.#fifo.some((entry) => entry.fromUser)) {
      // The turn's controller exists before the repair runs, so an abort during the repair
      // reaches the turn it precedes instead of being lost.
      const controller = new AbortController()
      this.#controller = controller
      try {
        if (this.#suspended) {
          // Input sent to a suspended turn waits for it: it is drained at the resumed turn's
          // next step; while nobody decided, its callers learn the turn is suspended (F2.8).
          const outcome = await this.#continue(controller)
          if (outcome?.reason === 'suspended') {
            for (const entry of this.#fifo) {
              entry.settle?.(outcome)
              delete entry.settle
            }
            return
          }
          continue
        }
        if (this.#needsRepair) await this.#recover(controller.signal)
        await this.#turn(controller)
      } finally {
        this.#controller = undefined
      }
    }
  }

  /**
   * Runs a new turn, or continues the suspended one (F2.7) from its open step, and settles its
   * waiters with the outcome it resolves with.
   */
  async #turn(controller: AbortController, resumed?: SuspendedTurn, text = ''): Promise<TurnOutcome> {
    const state: TurnState = {
      turn: resumed?.turn ?? this.#lastTurn + 1,
      waiters: [],
      calls: resumed === undefined ? 0 : callsBefore(this.#options.session, resumed),
      text,
      openStep: resumed?.step,
      started: resumed !== undefined,
      signal: controller.signal,
      timedOut: false,
      journal: new Journal(this.#options.session),
    }
    const { maxTurnMs } = this.#bounds
    const timer =
      maxTurnMs === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => {
            state.timedOut = true
            controller.abort(new Error(`the turn reached maxTurnMs (${maxTurnMs} ms)`))
          }, maxTurnMs)
    let end: TurnEndData | Suspension
    try {
      end = await this.#steps(state, resumed)
    } finally {
      clearTimeout(timer)
    }
    if (isSuspension(end)) this.#suspended = true
    const outcome = isSuspension(end)
      ? suspendedOutcome(state.turn, state.text, end.pending)
      : turnOutcome(end, state.text)
    this.#lastOutcome = outcome
    for (const settle of state.waiters) settle(outcome)
    return outcome
  }

  /**
   * Runs the steps of a turn and records its end; resolves with the `turn/end` written, or with
   * the suspension of a step whose batch waits on a durable approval (F2.3: no `step/end`, no
   * `turn/end`). What the last step staged becomes durable with `turn/end`, in the turn's last
   * write (L3.6). A resumed turn starts in its open step (F2.7).
   */
  async #steps(state: TurnState, resumed: SuspendedTurn | undefined): Promise<TurnEndData | Suspension> {
    const { turn, journal } = state
    try {
      if (resumed === undefined) journal.stage({ type: 'turn/start', data: { turn } })
      for (let step = resumed?.step ?? 1; ; step++) {
        this.#position = { turn, step }
        let end =
          resumed !== undefined && step === resumed.step
            ? await this.#resumeStep(state, resumed)
            : await this.#step(state, step)
        if (isSuspension(end)) {
          await journal.flush()
          return end
        }
        // A bound ends the turn once the step is closed, instead of asking the model again (L13.1).
        if (end === undefined && step >= this.#bounds.maxSteps) end = limitEnd(turn, 'maxSteps', this.#bounds)
        if (end === undefined) continue
        if (end.reason === 'aborted' && state.timedOut) end = limitEnd(turn, 'maxTurnMs', this.#bounds)
        journal.stage({ type: 'turn/end', data: end })
        await journal.flush()
        return end
      }
    } catch (error) {
      // A failed append or model call ends the turn; repair runs before the next one (L5.6).
      // The failed write dropped what it held, so the turn is recorded as started (when even
      // its opening write failed) and failed, an open step closed first (L3.8).
      this.#needsRepair = true
      const end: TurnEndData = { turn, reason: 'error', message: errorMessage(error) }
      if (!state.started) journal.stage({ type: 'turn/start', data: { turn } })
      if (state.openStep !== undefined)
        journal.stage({ type: 'step/end', data: { turn, step: state.openStep } })
      journal.stage({ type: 'turn/end', data: end })
      await journal.flush().catch(() => {})
      return end
    }
  }

  /**
   * One step (L3.3–L3.6): `step/start` and the drained FIFO become durable with what the
   * previous step staged (`turn/start`, or its `step/end`), in one write before the model is
   * asked; the reply's `assistant/message` is staged and rides on the batch's first write, or
   * on the next flush when no call starts. Every way out of the step stages its `step/end`
   * (L3.8). Resolves with the turn's end when the turn is over.
   */
  async #step(state: TurnState, step: number): Promise<StepEnd> {
    const { session, runtime, scope, model } = this.#options
    const { turn, journal, signal } = state
    journal.stage({ type: 'step/start', data: { turn, step } })
    for (const entry of this.#fifo.splice(0)) {
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
      model,
      signal,
      system: this.#options.system,
      prepareStep: this.#options.prepareStep,
      budget: this.#budget,
    })
    try {
      let reply: ReplyOutcome
      try {
        reply = await readReply(model, request, signal, this.#options.onModelEvent)
      } catch (error) {
        if (!(error instanceof ModelError) || error.kind !== 'truncated' || error.reply === undefined)
          throw error
        return this.#cut(state, step, error.reply, error, prepared.prepared)
      }
      if (reply.status === 'complete') this.#budget?.observe(measured, reply.usage)
      const stop = reply.status === 'complete' ? reply.stop : undefined
      const { scope: stepScope, prepared: changed } = prepared
      const end = await this.#reply(state, { step, reply, tools, view, scope: stepScope, prepared: changed })
      // A suspended step stays open until its turn resumes (F2.3).
      if (!isSuspension(end))
        journal.stage({ type: 'step/end', data: stepEnd(turn, step, stop, prepared.prepared) })
      return end
    } finally {
      prepared.dispose()
    }
  }

  /**
   * A reply the provider cut while it held tool calls (T2.3): none of them runs. `'end-turn'`
   * ends the turn with the adapter's error (L12.2); `'tell-model'` stages the reply with a
   * not-started pair for each call, so the model reads why, and goes on to the next step.
   */
  #cut(
    state: TurnState,
    step: number,
    cut: CutReply,
    error: ModelError,
    prepared: PreparedStep | undefined,
  ): TurnEndData | undefined {
    const { turn, journal } = state
    const where = { turn, step }
    if (this.#options.onCutToolCalls !== 'tell-model') {
      journal.stage({ type: 'step/end', data: stepEnd(turn, step, cut.stop, prepared) })
      return { turn, reason: 'error', message: error.message }
    }
    const { content } = cut
    state.text = replyText(content)
    journal.stage({ type: 'assistant/message', data: { ...where, content, ...recorded(prepared) } })
    for (const block of content) {
      if (block.type === 'tool-call') journal.stage(...notStartedEvents(where, block, 'cut'))
    }
    journal.stage({ type: 'step/end', data: stepEnd(turn, step, cut.stop, prepared) })
    return undefined
  }

  /**
   * Stages the step's reply and runs its calls; resolves with the turn's end when the turn is
   * over. Incomplete tool calls of an aborted reply are dropped; its partial text is kept only
   * when there is some (L6.6).
   */
  async #reply(state: TurnState, { step, reply, tools, view, scope, prepared }: ReplyStep): Promise<StepEnd> {
    const { turn, journal } = state
    const data = { turn, step, content: reply.content, ...recorded(prepared) }
    const assistant = { type: 'assistant/message', data } as const
    if (reply.status === 'aborted') {
      if (reply.content.length > 0) {
        state.text = replyText(reply.content)
        journal.stage(assistant)
      }
      return { turn, reason: 'aborted' }
    }
    state.text = replyText(reply.content)
    journal.stage(assistant)
    const calls = reply.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
    if (calls.length === 0) return this.#hasQueued() ? undefined : { turn, reason: 'completed' }
    return this.#batch(state, { step, tools, view, scope }, calls)
  }

  /**
   * Runs one batch of calls through the scheduler and resolves with what it means for the
   * turn: its end, a suspension (F2.3), or `undefined` when another step follows. `called`
   * names the calls of a resumed batch whose `tool/call` is already durable (F2.7).
   */
  async #batch(
    state: TurnState,
    { step, tools, view, scope }: Omit<ReplyStep, 'reply' | 'prepared'>,
    calls: readonly ToolCallBlock[],
    called?: ReadonlySet<string>,
  ): Promise<StepEnd> {
    const { turn, journal, signal } = state
    const { model, runtime } = this.#options
    const options: { -readonly [K in keyof ScheduleOptions]: ScheduleOptions[K] } = {
      runtime,
      journal,
      where: { turn, step },
      signal,
      maxParallel: this.#maxParallel,
      maxCalls: this.#bounds.maxToolCalls - state.calls,
      input: this.#inputs(signal, scope),
      classify: (block, args) => view.executionMode({ name: block.name, arguments: args }),
      parse: model.parseArguments && ((block) => model.parseArguments!(block, tools)),
      onContexts: (contexts) => this.#defer(contexts),
    }
    if (this.#durable !== undefined) options.parkable = true
    if (called !== undefined) options.called = called
    const outcome: ScheduleOutcome = await schedule(options, calls)
    state.calls += outcome.started
    switch (outcome.kind) {
      case 'failed':
        this.#needsRepair = true
        return { turn, reason: 'error', message: outcome.message }
      case 'aborted':
        return { turn, reason: 'aborted' }
      case 'limited':
        return limitEnd(turn, 'maxToolCalls', this.#bounds)
      case 'suspended':
        return { pending: outcome.pending }
    }
    if (outcome.concludesTurn && !this.#hasQueued()) return { turn, reason: 'completed' }
    // Every call the turn may make has run: another request could only ask for more (L13.1).
    if (state.calls >= this.#bounds.maxToolCalls) return limitEnd(turn, 'maxToolCalls', this.#bounds)
    return undefined
  }

  /**
   * The open step of a resumed turn (F2.7): `turn/resumed` is durable before anything runs;
   * then the step is rebuilt as `prepareStep` prepared it (T4.5), the calls before the waiting
   * one that have no result are recovered by F1.4's rule, and the waiting call and the later
   * ones run as one batch of the step's scope, without a second `tool/call`.
   */
  async #resumeStep(state: TurnState, resumed: SuspendedTurn): Promise<StepEnd> {
    const { runtime, scope, session, system } = this.#options
    const { turn, step } = resumed
    const { journal, signal } = state
    journal.stage({ type: 'turn/resumed', data: { turn, step } })
    await journal.flush()
    const rebuilt = restoreRequest(resumed.prepared, { runtime, scope, system })
    let end: StepEnd
    try {
      const view = runtime.view(rebuilt.scope)
      const tools = view.surface().tools
      const input = this.#inputs(signal, rebuilt.scope)
      await recoverCalls({
        runtime,
        scope: rebuilt.scope,
        session,
        turn,
        input: (block, _step, fail) => input(block, this.#parse(block, tools), solo(fail)),
        calls: resumed.interrupted,
        hides: rebuilt.hides,
      })
      const called = new Set(resumed.parked.filter((p) => p.called).map((p) => p.block.id))
      const calls = resumed.parked.map((p) => p.block)
      end = await this.#batch(state, { step, tools, view, scope: rebuilt.scope }, calls, called)
    } finally {
      rebuilt.dispose()
    }
    this.#decisions.clear()
    if (!isSuspension(end))
      journal.stage({ type: 'step/end', data: stepEnd(turn, step, undefined, rebuilt.prepared) })
    return end
  }

  /** A call's arguments as the model adapter parses them (Z1.4), else L4.1. */
  #parse(block: ToolCallBlock, tools: ToolSurface['tools']): unknown {
    const { model } = this.#options
    return model.parseArguments === undefined
      ? parseToolArguments(block.arguments)
      : model.parseArguments(block, tools)
  }

  #hasQueued(): boolean {
    return this.#fifo.length > 0
  }

  #defer(contexts: readonly AdditionalContext[]): void {
    for (const message of contexts) this.#fifo.push({ message, fromUser: false })
  }

  /**
   * The pipeline input builder of one batch (L4.3). Appends made on a call's behalf (approval
   * and code-dispatch events) report a failure to the batch's `fail` (L5.5); the recording
   * approver and the dispatch sink are built once per batch, not per call.
   */
  #inputs(signal: AbortSignal, scope: RuntimeScope): ScheduleOptions['input'] {
    const { approver, codeRuntime, session } = this.#options
    let bound: { hooks: BatchHooks; approver?: Approver; sink: CodeDispatchSink } | undefined
    return (block, args, hooks) => {
      const { fail } = hooks
      if (bound?.hooks !== hooks) {
        bound = { hooks, sink: this.#codeDispatchSink(fail) }
        const where = () => this.#position
        if (approver !== undefined) bound.approver = recordingApprover(approver, session, where, fail)
        const settings = this.#durable
        if (settings !== undefined) {
          const { suspend, has } = hooks
          bound.approver = durableApprover({ session, settings, where, isBatchCall: has, suspend, fail })
        }
        // A resumed batch answers its waiting call from the decision in the log (F2.7).
        if (this.#decisions.size > 0) bound.approver = decidedApprover(this.#decisions, bound.approver)
      }
      const input: ToolCallInput = { callId: block.id, name: block.name, arguments: args, signal, scope }
      // The key derives from the session, the call id and the arguments: the same on resume (F1.2).
      input.idempotencyScope = session.id
      input.onEffect = effectSink(session, this.#position, block, fail)
      // A later owner of the session has a larger epoch: an external system can refuse us (F1.9).
      input.fencingToken = session.epoch
      if (bound.approver !== undefined) input.approver = bound.approver
      if (codeRuntime !== undefined) input.codeRuntime = codeRuntime
      input.onCodeDispatch = bound.sink
      // [provenance] What the call's context holds and where its arguments came from (H2.2, H3.1).
      const provenance = this.#provenance.of(args)
      if (provenance !== undefined) input.provenance = provenance
      return input
    }
  }

  /** Appends Code Mode dispatch events with the current turn and step (X5.3). */
  #codeDispatchSink(fail: (error: unknown) => void): CodeDispatchSink {
    const { session } = this.#options
    const { turn, step } = this.#position
    // A lost dispatch event is a failed append like any other: it fails the batch.
    return (event) => {
      if (event.type === 'start') {
        const { type, ...start } = event
        return session
          .append('tool/code-dispatch-start', { turn, step, ...start })
          .then(() => undefined, fail)
      }
      const { type, ...settle } = event
      return session.append('tool/code-dispatch', { turn, step, ...settle }).then(() => undefined, fail)
    }
  }
}

/**
 * The hooks of a call run outside any batch (crash recovery, F1.4): a failed append on its
 * behalf goes to `fail`, which recovery rethrows once the call settles (L5.5). Nothing here
 * may throw: an approval that waits on its append would never settle.
 */
const solo = (fail: (error: unknown) => void): BatchHooks => ({ fail, suspend: () => {}, has: () => false })

/** A step's `step/end`, with why its reply stopped (T2.2) and what `prepareStep` changed (T4.3). */
function stepEnd(
  turn: number,
  step: number,
  stop: ReplyStop | undefined,
  prepared: PreparedStep | undefined,
): StepEndData {
  return {
    turn,
    step,
    ...(stop === undefined ? {} : { stop }),
    ...(prepared === undefined ? {} : { prepared }),
  }
}

/** The `prepared` field of a step's `assistant/message` (T4.4): absent when nothing changed. */
const recorded = (prepared: PreparedStep | undefined) => (prepared === undefined ? {} : { prepared })
