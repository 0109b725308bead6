import type { AdditionalContext, UserMessage } from '@tooltx/core'
import type { TurnOutcome } from '../base/turn-outcome.js'

/** A queued message: a user's (with the promise of its `send` or `inject`) or a deferred context. */
export interface QueuedMessage {
  readonly message: UserMessage
  readonly fromUser: boolean
  /** Resolves the `send` or `inject` promise of a user message. */
  settle?: ((outcome: TurnOutcome) => void) | undefined
}

/**
 * The agent's FIFO of user messages and deferred contexts; drained only at step boundaries
 * (L3.3, L7.2).
 */
export class InputQueue {
  #entries: QueuedMessage[] = []

  /** Queues a user message whose `send` or `inject` resolves through `settle`. */
  pushUser(message: UserMessage, settle: (outcome: TurnOutcome) => void): void {
    this.#entries.push({ message, fromUser: true, settle })
  }

  /** Queues the contexts a committed result deferred (L7.1); they never start a turn alone. */
  defer(contexts: readonly AdditionalContext[]): void {
    for (const message of contexts) this.#entries.push({ message, fromUser: false })
  }

  /** Whether anything is queued. */
  get hasQueued(): boolean {
    return this.#entries.length > 0
  }

  /** Whether a user message is queued: only that starts a turn. */
  get hasUserInput(): boolean {
    return this.#entries.some((entry) => entry.fromUser)
  }

  /** Takes every queued message, in order. */
  drain(): QueuedMessage[] {
    return this.#entries.splice(0)
  }

  /** Resolves every queued user message's promise with `outcome` now; the messages stay queued. */
  settleAll(outcome: TurnOutcome): void {
    for (const entry of this.#entries) {
      entry.settle?.(outcome)
      delete entry.settle
    }
  }
}
