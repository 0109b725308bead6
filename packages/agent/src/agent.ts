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
import { repairSession, type Session } from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from './agent-runtime.js'
import { recordingApprover } from './approval-events.js'
import type { ModelAdapter, ModelStreamEvent } from './model/model.js'
import { readReply } from './model/reply.js'
import { runBatch } from './scheduler.js'

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

  constructor(options: AgentOptions, maxParallel: number) {
    this.#options = options
    this.#maxParallel = maxParallel
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
    this.#running = this.#drain()
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
      if (this.#needsRepair) {
        await repairSession(this.#options.session)
        this.#needsRepair = false
      }
      await this.#turn()
    }
  }

  async #turn(): Promise<void> {
    const { session } = this.#options
    const turn = session.events().filter((event) => event.type === 'turn/start').length + 1
    const controller = new AbortController()
    this.#controller = controller
    try {
      await session.append('turn/start', { turn })
      for (let step = 1; ; step++) {
        this.#position = { turn, step }
        const next = await this.#step(turn, step, controller.signal)
        if (next === 'continue') continue
        await session.append('turn/end', next)
        return
      }
    } catch (error) {
      // A failed append or model call ends the turn; repair runs before the next one (L5.6).
      this.#needsRepair = true
      await session
        .append('turn/end', { turn, reason: 'error', message: errorMessage(error) })
        .catch(() => {})
    } finally {
      this.#controller = undefined
    }
  }

  /** One step: drain the FIFO, ask the model, run the batch (L3.3–L3.6). */
  async #step(
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<'continue' | { turn: number; reason: 'completed' | 'aborted' | 'error'; message?: string }> {
    const { session, runtime, scope, model } = this.#options
    await session.append('step/start', { turn, step })
    for (const entry of this.#fifo.splice(0)) {
      await session.append('user/message', { turn, step, message: entry.message })
    }
    const surface = runtime.view(scope).surface()
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
      if (reply.content.length > 0)
        await session.append('assistant/message', { turn, step, content: reply.content })
      return { turn, reason: 'aborted' }
    }
    await session.append('assistant/message', { turn, step, content: reply.content })
    const calls = reply.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
    if (calls.length === 0) {
      await session.append('step/end', { turn, step })
      return this.#hasQueued() ? 'continue' : { turn, reason: 'completed' }
    }
    const outcome = await runBatch(
      {
        runtime,
        session,
        turn,
        step,
        signal,
        maxParallel: this.#maxParallel,
        input: (block, args, fail) => this.#input(block, args, signal, fail),
        classify: (block, args) => runtime.view(scope).executionMode({ name: block.name, arguments: args }),
        onContexts: (contexts) => this.#defer(contexts),
      },
      calls,
    )
    if (outcome.kind === 'failed') {
      this.#needsRepair = true
      return { turn, reason: 'error', message: outcome.message }
    }
    if (outcome.kind === 'aborted') return { turn, reason: 'aborted' }
    await session.append('step/end', { turn, step })
    if (outcome.concludesTurn && !this.#hasQueued()) return { turn, reason: 'completed' }
    return 'continue'
  }

  #hasQueued(): boolean {
    return this.#fifo.length > 0
  }

  #defer(contexts: readonly AdditionalContext[]): void {
    for (const message of contexts) this.#fifo.push({ message, fromUser: false })
  }

  /**
   * The pipeline input of one call (L4.3). Appends made on the call's behalf (approval and
   * code-dispatch events) report a failure to `fail`, which fails the batch (L5.5).
   */
  #input(
    block: ToolCallBlock,
    args: unknown,
    signal: AbortSignal,
    fail: (error: unknown) => void,
  ): ToolCallInput {
    const { approver, codeRuntime, scope, session } = this.#options
    const input: ToolCallInput = { callId: block.id, name: block.name, arguments: args, signal, scope }
    if (approver !== undefined)
      input.approver = recordingApprover(approver, session, () => this.#position, fail)
    if (codeRuntime !== undefined) input.codeRuntime = codeRuntime
    input.onCodeDispatch = this.#codeDispatchSink(fail)
    return input
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
