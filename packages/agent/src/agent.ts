import {
  type AdditionalContext,
  type Approver,
  type CodeDispatchSink,
  type CodeRuntime,
  definitionError,
  errorMessage,
  type RuntimeScope,
  type ToolCallBlock,
  type UserMessage,
} from '@tooltx/core'
import { type NewSessionEvent, repairSession, type Session, type TurnEndData } from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from './agent-runtime.js'
import { recordingApprover } from './approval-events.js'
import type { ModelAdapter, ModelStreamEvent } from './model/model.js'
import { readReply } from './model/reply.js'
import { type BatchContext, runBatch } from './scheduler.js'

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
}

/** A running agent loop over one session. */
export interface Agent {
  /** Queues a user text message; starts a turn when idle (L3.1, L3.2). */
  send(text: string): void
  /** Queues a user message with any content blocks; starts a turn when idle. */
  inject(message: UserMessage): void
  /** Aborts the running turn, if any (L6.1). */
  abort(): void
  /**
   * Resolves when no turn runs and no user message waits (L3.7). Rejects with the cause when
   * the loop stopped with messages still queued because the session refused the repair a new
   * turn needs (L5.6); the next `send` or `inject` tries again.
   */
  whenIdle(): Promise<void>
}

type QueuedMessage = { message: UserMessage; fromUser: boolean }

/**
 * How a step ended: the events it leaves for the next write (they land together with the
 * next step's opening or with `turn/end`), and the turn's end when the turn is over.
 */
interface StepOutcome {
  readonly carry: NewSessionEvent[]
  readonly end?: TurnEndData
}

/**
 * Builds an agent loop (L3): turns and steps, the tool scheduler, deferred contexts, approval
 * events. The loop owns durability: it appends every event; the runtime writes nothing.
 * Throws `INVALID_DEFINITION` for a `maxParallelToolCalls` that is not a positive integer.
 */
export function createAgent(options: AgentOptions): Agent {
  const maxParallel = options.maxParallelToolCalls ?? 10
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw definitionError(`maxParallelToolCalls must be a positive integer, got ${String(maxParallel)}`)
  }
  return new AgentLoop(options, maxParallel)
}

class AgentLoop implements Agent {
  readonly #options: AgentOptions
  readonly #maxParallel: number
  /** User messages and deferred contexts; drained only at step boundaries (L3.3, L7.2). */
  readonly #fifo: QueuedMessage[] = []
  #running: Promise<void> | undefined
  #controller: AbortController | undefined
  #needsRepair = false
  /** Why the loop stopped with user messages still queued; cleared by the next send. */
  #stalled: { error: unknown } | undefined
  #position = { turn: 0, step: 0 }
  /** The session's latest turn number, kept current by a listener instead of a scan per turn. */
  #lastTurn = 0

  constructor(options: AgentOptions, maxParallel: number) {
    this.#options = options
    this.#maxParallel = maxParallel
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

  send(text: string): void {
    this.inject({ role: 'user', content: [{ type: 'text', text }] })
  }

  inject(message: UserMessage): void {
    this.#fifo.push({ message, fromUser: true })
    this.#kick()
  }

  abort(): void {
    this.#controller?.abort()
  }

  async whenIdle(): Promise<void> {
    while (this.#running !== undefined) await this.#running
    if (this.#stalled !== undefined) throw this.#stalled.error
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
      })
      .finally(() => {
        this.#running = undefined
      })
  }

  async #drain(): Promise<void> {
    // Deferred contexts alone never start a turn: they ride along with the next user message.
    while (this.#fifo.some((entry) => entry.fromUser)) {
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
    const { session } = this.#options
    const turn = this.#lastTurn + 1
    try {
      let carry: NewSessionEvent[] = [{ type: 'turn/start', data: { turn } }]
      for (let step = 1; ; step++) {
        this.#position = { turn, step }
        const outcome = await this.#step(turn, step, controller.signal, carry)
        carry = outcome.carry
        if (outcome.end === undefined) continue
        carry.push({ type: 'turn/end', data: outcome.end })
        await session.appendBatch(carry)
        return
      }
    } catch (error) {
      // A failed append or model call ends the turn; repair runs before the next one (L5.6).
      // When even the turn's opening write failed, the turn is recorded as started and failed.
      this.#needsRepair = true
      const end: NewSessionEvent = {
        type: 'turn/end',
        data: { turn, reason: 'error', message: errorMessage(error) },
      }
      await session
        .appendBatch(this.#lastTurn < turn ? [{ type: 'turn/start', data: { turn } }, end] : [end])
        .catch(() => {})
    }
  }

  /**
   * One step (L3.3–L3.6): `step/start` and the drained FIFO are written with the events the
   * previous step left (`turn/start`, or its `step/end`), then the model is asked; the reply's
   * `assistant/message` rides on the batch's first write, or on the next step's opening.
   */
  async #step(
    turn: number,
    step: number,
    signal: AbortSignal,
    carry: NewSessionEvent[],
  ): Promise<StepOutcome> {
    const { session, runtime, scope, model } = this.#options
    carry.push({ type: 'step/start', data: { turn, step } })
    for (const entry of this.#fifo.splice(0)) {
      carry.push({ type: 'user/message', data: { turn, step, message: entry.message } })
    }
    await session.appendBatch(carry)
    const view = runtime.view(scope)
    const surface = view.surface()
    const reply = await readReply(
      model,
      {
        ...(this.#options.system !== undefined ? { system: this.#options.system } : {}),
        instructions: surface.instructions,
        tools: [...surface.tools],
        messages: session.messages(),
      },
      signal,
      this.#options.onModelEvent,
    )
    if (reply.status === 'aborted') {
      // Incomplete tool calls are dropped; partial text is kept only when there is some (L6.6).
      const kept: NewSessionEvent[] =
        reply.content.length > 0
          ? [{ type: 'assistant/message', data: { turn, step, content: reply.content } }]
          : []
      return { carry: kept, end: { turn, reason: 'aborted' } }
    }
    const assistant: NewSessionEvent = {
      type: 'assistant/message',
      data: { turn, step, content: reply.content },
    }
    const stepEnd: NewSessionEvent = { type: 'step/end', data: { turn, step } }
    const calls = reply.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
    if (calls.length === 0) {
      const carry = [assistant, stepEnd]
      return this.#hasQueued() ? { carry } : { carry, end: { turn, reason: 'completed' } }
    }
    const outcome = await runBatch(
      {
        runtime,
        session,
        turn,
        step,
        signal,
        maxParallel: this.#maxParallel,
        input: this.#inputs(signal),
        classify: (block, args) => view.executionMode({ name: block.name, arguments: args }),
        parse: model.parseArguments && ((block) => model.parseArguments!(block, surface.tools)),
        onContexts: (contexts) => this.#defer(contexts),
        lead: [assistant],
      },
      calls,
    )
    if (outcome.kind === 'failed') {
      this.#needsRepair = true
      return { carry: [], end: { turn, reason: 'error', message: outcome.message } }
    }
    if (outcome.kind === 'aborted') return { carry: [], end: { turn, reason: 'aborted' } }
    if (outcome.concludesTurn && !this.#hasQueued())
      return { carry: [stepEnd], end: { turn, reason: 'completed' } }
    return { carry: [stepEnd] }
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
  #inputs(signal: AbortSignal): BatchContext['input'] {
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
