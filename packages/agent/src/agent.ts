import {
  type AdditionalContext,
  type Approver,
  type CodeDispatchSink,
  type CodeRuntime,
  definitionError,
  errorMessage,
  type RuntimeScope,
  type ToolCallBlock,
  type ToolSurface,
  type ToolView,
  type UserMessage,
} from '@tooltx/core'
import { repairSession, type Session, type TurnEndData } from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from './agent-runtime.js'
import { Journal } from './journal.js'
import type { ModelAdapter, ModelStreamEvent } from './model/model.js'
import { type ReplyOutcome, readReply } from './model/reply.js'
import { recordingApprover } from './recording-approver.js'
import { type ScheduleOptions, schedule } from './scheduler.js'
import { limitEnd, resolveBounds, type TurnBounds } from './turn-bounds.js'
import { replyText, type TurnOutcome, turnOutcome } from './turn-outcome.js'
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
}

/** What `#reply` gets from its step: the reply read and the view it was read against. */
interface ReplyStep {
  readonly step: number
  readonly signal: AbortSignal
  readonly reply: ReplyOutcome
  readonly tools: ToolSurface['tools']
  readonly view: ToolView
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
  /** The `maxTurnMs` timer aborted the turn signal. */
  timedOut: boolean
  /** The turn's pending events (see `Journal` for when each becomes durable). */
  readonly journal: Journal
}

/**
 * Builds an agent loop (L3): turns and steps, the tool scheduler, deferred contexts, approval
 * events, turn bounds. The loop owns durability: it appends every event; the runtime writes
 * nothing. Throws `INVALID_DEFINITION` for a `maxParallelToolCalls` that is not a positive
 * integer (L5.4) and for bounds that are neither positive integers nor `Infinity` (L13.2).
 */
export function createAgent(options: AgentOptions): Agent {
  const maxParallel = options.maxParallelToolCalls ?? 10
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw definitionError(`maxParallelToolCalls must be a positive integer, got ${String(maxParallel)}`)
  }
  return new AgentLoop(options, maxParallel, resolveBounds(options))
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

  constructor(options: AgentOptions, maxParallel: number, bounds: TurnBounds) {
    this.#options = options
    this.#maxParallel = maxParallel
    this.#bounds = bounds
    const { session } = options
    session.on((event) => {
      if (event.type === 'turn/start') this.#lastTurn = event.data.turn
    })
    const events = session.events()
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
      })
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
        if (this.#needsRepair) {
          await repairSession(this.#options.session)
          this.#needsRepair = false
        }
        await this.#turn(controller)
      } finally {
        this.#controller = undefined
      }
    }
  }

  async #turn(controller: AbortController): Promise<void> {
    const state: TurnState = {
      turn: this.#lastTurn + 1,
      waiters: [],
      calls: 0,
      text: '',
      openStep: undefined,
      started: false,
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
    let end: TurnEndData
    try {
      end = await this.#steps(state, controller.signal)
    } finally {
      clearTimeout(timer)
    }
    const outcome = turnOutcome(end, state.text)
    this.#lastOutcome = outcome
    for (const settle of state.waiters) settle(outcome)
  }

  /**
   * Runs the steps of a turn and records its end; resolves with the `turn/end` written. What
   * the last step staged becomes durable with `turn/end`, in the turn's last write (L3.6).
   */
  async #steps(state: TurnState, signal: AbortSignal): Promise<TurnEndData> {
    const { turn, journal } = state
    try {
      journal.stage({ type: 'turn/start', data: { turn } })
      for (let step = 1; ; step++) {
        this.#position = { turn, step }
        let end = await this.#step(state, step, signal)
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
  async #step(state: TurnState, step: number, signal: AbortSignal): Promise<TurnEndData | undefined> {
    const { session, runtime, scope, model } = this.#options
    const { turn, journal } = state
    journal.stage({ type: 'step/start', data: { turn, step } })
    for (const entry of this.#fifo.splice(0)) {
      journal.stage({ type: 'user/message', data: { turn, step, message: entry.message } })
      if (entry.settle !== undefined) state.waiters.push(entry.settle)
    }
    await journal.flush()
    state.started = true
    state.openStep = step
    const view = runtime.view(scope)
    const surface = view.surface()
    const reply = await readReply(
      model,
      {
        ...(this.#options.system !== undefined ? { system: this.#options.system } : {}),
        instructions: surface.instructions,
        tools: [...surface.tools],
        messages: session.history(),
      },
      signal,
      this.#options.onModelEvent,
    )
    const end = await this.#reply(state, { step, signal, reply, tools: surface.tools, view })
    journal.stage({ type: 'step/end', data: { turn, step } })
    return end
  }

  /**
   * Stages the step's reply and runs its calls; resolves with the turn's end when the turn is
   * over. Incomplete tool calls of an aborted reply are dropped; its partial text is kept only
   * when there is some (L6.6).
   */
  async #reply(
    state: TurnState,
    { step, signal, reply, tools, view }: ReplyStep,
  ): Promise<TurnEndData | undefined> {
    const { turn, journal } = state
    const assistant = { type: 'assistant/message', data: { turn, step, content: reply.content } } as const
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
    const { model, runtime } = this.#options
    const outcome = await schedule(
      {
        runtime,
        journal,
        where: { turn, step },
        signal,
        maxParallel: this.#maxParallel,
        maxCalls: this.#bounds.maxToolCalls - state.calls,
        input: this.#inputs(signal),
        classify: (block, args) => view.executionMode({ name: block.name, arguments: args }),
        parse: model.parseArguments && ((block) => model.parseArguments!(block, tools)),
        onContexts: (contexts) => this.#defer(contexts),
      },
      calls,
    )
    state.calls += outcome.started
    switch (outcome.kind) {
      case 'failed':
        this.#needsRepair = true
        return { turn, reason: 'error', message: outcome.message }
      case 'aborted':
        return { turn, reason: 'aborted' }
      case 'limited':
        return limitEnd(turn, 'maxToolCalls', this.#bounds)
    }
    if (outcome.concludesTurn && !this.#hasQueued()) return { turn, reason: 'completed' }
    // Every call the turn may make has run: another request could only ask for more (L13.1).
    if (state.calls >= this.#bounds.maxToolCalls) return limitEnd(turn, 'maxToolCalls', this.#bounds)
    return undefined
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
  #inputs(signal: AbortSignal): ScheduleOptions['input'] {
    const { approver, codeRuntime, scope, session } = this.#options
    let bound: { fail: (error: unknown) => void; approver?: Approver; sink: CodeDispatchSink } | undefined
    return (block, args, fail) => {
      if (bound?.fail !== fail) {
        bound = { fail, sink: this.#codeDispatchSink(fail) }
        if (approver !== undefined)
          bound.approver = recordingApprover(approver, session, () => this.#position, fail)
      }
      const input: ToolCallInput = { callId: block.id, name: block.name, arguments: args, signal, scope }
      if (bound.approver !== undefined) input.approver = bound.approver
      if (codeRuntime !== undefined) input.codeRuntime = codeRuntime
      input.onCodeDispatch = bound.sink
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
