import type { ApprovalOutcome, JsonValue, ToolCallBlock } from '@tooltx/core'
import type { ApprovalAskedData, ApprovalDecidedData } from './events.js'

/** Where a turn's latest `assistant/message` stands: its tool-call blocks and their progress. */
export interface AssistantTurn {
  readonly step: number
  readonly blocks: readonly ToolCallBlock[]
  readonly ids: ReadonlySet<string>
  readonly called: Set<string>
  readonly answered: Set<string>
  /** The `tool/effect` receipts of calls, by call id, in append order (F1.3). */
  readonly receipts: Map<string, JsonValue[]>
  /**
   * The approval outcome of each call that was asked, by call id: the latest decision, except
   * that `'allowed-once'` stays once recorded (the body may have run since). Kept past
   * `turn/resumed`, so a repair knows which calls a decision refused (F2.20).
   */
  readonly decisions: Map<string, ApprovalOutcome>
}

/** A durable ask (F2.2) of the latest turn and, once made, its decision. */
export interface DurableAsk {
  readonly asked: ApprovalAskedData
  decided: ApprovalDecidedData | undefined
}

/** The call a suspended turn waits on (F2.3): the first in model order with an open durable ask. */
export interface WaitingCall extends DurableAsk {
  readonly index: number
}

/** A Code Mode sub call of the latest turn (V1.5, V1.8): its root call and whether it settled. */
export interface Dispatch {
  readonly root: string
  settled: boolean
}

/**
 * What the log knows about its latest turn: the data the checks (`log-checks.ts`) read, the
 * transitions (`log-transitions.ts`) change and the checkpoint format (`log-checkpoint.ts`)
 * carries. Only the latest turn is kept, so it stays as small as one turn. Every field added
 * here must join the checkpoint format.
 */
export class LogFacts {
  /** The latest turn number, 0 before the first `turn/start`. */
  turn = 0
  /** True between `turn/start` and `turn/end`. */
  turnOpen = false
  /** The latest step number within `turn`, 0 before its first `step/start`. */
  step = 0
  /** True between `step/start` and `step/end`. */
  stepOpen = false
  /** The latest `assistant/message` of `turn`, if any. */
  assistant: AssistantTurn | undefined = undefined
  /** `approval/asked` events of `turn` without a decision, by call id, in append order. */
  readonly pendingApprovals = new Map<string, ApprovalAskedData>()
  /** Durable asks (F2.2) since the latest `turn/start` or `turn/resumed`, by call id. */
  readonly durable = new Map<string, DurableAsk>()
  /** The Code Mode sub calls of the latest turn, by sub call id. */
  readonly dispatches = new Map<string, Dispatch>()
  /** True once any event was applied: `session/fork` may only be the first (A2.1). */
  started = false

  /** The tool-call blocks of the latest `assistant/message` that have no `tool/result` yet, in model order. */
  unanswered(): ToolCallBlock[] {
    const a = this.assistant
    return a === undefined ? [] : a.blocks.filter((b) => !a.answered.has(b.id))
  }

  /**
   * The call the latest turn is suspended on (F2.3): the turn is open and a call of its latest
   * assistant message has a durable ask made since the turn started or last resumed, and no
   * `tool/result`; the first such call in model order. `undefined` when the turn is not suspended.
   */
  waiting(): WaitingCall | undefined {
    const a = this.assistant
    if (!this.turnOpen || a === undefined || this.durable.size === 0) return undefined
    for (let index = 0; index < a.blocks.length; index++) {
      const id = a.blocks[index]!.id
      const ask = this.durable.get(id)
      if (ask !== undefined && !a.answered.has(id)) return { index, asked: ask.asked, decided: ask.decided }
    }
    return undefined
  }
}
