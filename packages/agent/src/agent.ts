import type { UserMessage } from '@tooltx/core'
import { definitionError, errorMessage } from '@tooltx/core/internal'
import { planRepair, suspendedTurn } from '@tooltx/session'
import { ExpiryWatch } from './approvals/expiry-watch.js'
import type { TurnOutcome } from './base/turn-outcome.js'
import type { AgentOptions } from './loop/agent-options.js'
import { continueTurn } from './loop/continue-turn.js'
import { type LoopContext, loopContext } from './loop/loop-context.js'
import { recoverInterrupted } from './loop/recover-interrupted.js'
import { runTurn, type TurnRun } from './loop/run-turn.js'
import { snapshotUserMessage, textMessage } from './loop/user-input.js'
import {
  agentElicitor,
  type ElicitationOptions,
  type ElicitationRequest,
  type Elicitor,
} from './server-elicitation.js'
import { agentSampler, type Sampler, type SamplingOptions } from './server-sampling.js'

export type { AgentOptions } from './loop/agent-options.js'

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
  /**
   * Answers the sampling requests of MCP servers with the agent's model (`mcpTools`' `onSample`,
   * Y2.30): the policy decides (default `'ask'`: the agent's approver), the host bounds the
   * request, and each is recorded in the turn in progress as `server/request`. Throws
   * `INVALID_DEFINITION` for malformed options.
   */
  sampler(options?: SamplingOptions): Sampler
  /**
   * Answers the questions of MCP servers (`mcpTools`' `onElicit`, Y2.35): by `answer`, or by the
   * agent's approver when a question has a yes/no shape; each recorded as `server/request`.
   */
  elicitor<R extends ElicitationRequest = ElicitationRequest>(options?: ElicitationOptions<R>): Elicitor<R>
}

/**
 * Builds an agent loop (L3): turns and steps (`runTurn`), the tool scheduler, deferred
 * contexts, approval events, turn bounds. The loop owns durability: its `Journal` writes every
 * event; the runtime writes nothing. Throws `INVALID_DEFINITION` for malformed options (see
 * `loopContext`: L5.4, L13.2, T3.1, T4.1, T2.3, F2.1).
 */
export function createAgent(options: AgentOptions): Agent {
  return new AgentLoop(loopContext(options))
}

/** The agent's queue and lifecycle; what a turn does is `runTurn`'s. */
class AgentLoop implements Agent {
  readonly #ctx: LoopContext
  #running: Promise<void> | undefined
  #controller: AbortController | undefined
  #needsRepair: boolean
  /**
   * Set by an abort that holds queued input for the next send (L6.8); cleared by that send
   * and by `abort({ keepQueued: true })`.
   */
  #halted = false
  /** Why the loop stopped with user messages still queued; cleared by the next send. */
  #stalled: { error: unknown } | undefined
  /** The session's latest turn number, kept current by a listener instead of a scan per turn. */
  #lastTurn = 0
  #lastOutcome: TurnOutcome | undefined
  /** The latest turn is suspended on a durable approval (F2.3): it continues, no new turn starts. */
  #suspended: boolean
  /** Continues the suspended turn when its ask expires with nobody deciding (F2.18). */
  readonly #expiry: ExpiryWatch

  constructor(ctx: LoopContext) {
    this.#ctx = ctx
    const { session } = ctx.options
    session.on((event) => {
      if (event.type === 'turn/start') this.#lastTurn = event.data.turn
    })
    const events = session.events()
    // A session opened without repair (F1.6) is recovered before the next turn; a suspended
    // turn is continued instead (F2.7).
    this.#needsRepair = planRepair(events).length > 0
    this.#suspended = suspendedTurn(events) !== undefined
    const start = events.findLast((event) => event.type === 'turn/start')
    if (start?.type === 'turn/start') this.#lastTurn = start.data.turn
    // A failure of the continuation (the session was closed) is the turn's to report, not the timer's.
    this.#expiry = new ExpiryWatch(session, () => void this.resume().catch(() => undefined))
    if (this.#suspended) this.#expiry.watch()
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

  sampler(options?: SamplingOptions): Sampler {
    return agentSampler(this.#ctx, options)
  }

  elicitor<R extends ElicitationRequest = ElicitationRequest>(options?: ElicitationOptions<R>): Elicitor<R> {
    return agentElicitor(this.#ctx, options)
  }

  /** Continues the suspended turn (F2.7); `undefined` when the session holds none. */
  async #continue(controller: AbortController): Promise<TurnOutcome | undefined> {
    const continuation = await continueTurn(this.#ctx, controller)
    switch (continuation.kind) {
      case 'none':
        this.#suspended = false
        this.#expiry.stop()
        return undefined
      case 'waiting':
        this.#lastOutcome = continuation.outcome
        this.#expiry.watch()
        return continuation.outcome
      case 'ran':
        return this.#ended(continuation.run)
    }
  }

  /** Re-runs what may run again, then repairs the rest (F1.4); clears the repair flag. */
  async #recover(signal: AbortSignal): Promise<void> {
    await recoverInterrupted(this.#ctx, signal, this.#lastTurn)
    this.#needsRepair = false
  }

  /** Takes in how a turn run ended. */
  #ended(run: TurnRun): TurnOutcome {
    this.#suspended = run.suspended
    if (run.suspended) this.#expiry.watch()
    else this.#expiry.stop()
    if (run.failed) this.#needsRepair = true
    this.#lastOutcome = run.outcome
    return run.outcome
  }

  /** Queues a checked user message and resolves with the outcome of the turn it goes into. */
  #enqueue(message: UserMessage): Promise<TurnOutcome> {
    const outcome = new Promise<TurnOutcome>((settle) => this.#ctx.queue.pushUser(message, settle))
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
        this.#ctx.queue.settleAll(
          Object.freeze({ reason: 'error' as const, text: '', error: errorMessage(error) }),
        )
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
    if (this.#ctx.queue.hasUserInput) this.#kick()
  }

  async #drain(): Promise<void> {
    // Deferred contexts alone never start a turn: they ride along with the next user message.
    // After an abort, queued input waits for the next send (L6.8).
    while (!this.#halted && this.#ctx.queue.hasUserInput) {
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
            this.#ctx.queue.settleAll(outcome)
            return
          }
          continue
        }
        if (this.#needsRepair) await this.#recover(controller.signal)
        this.#ended(await runTurn(this.#ctx, controller, this.#lastTurn + 1))
      } finally {
        this.#controller = undefined
      }
    }
  }
}
