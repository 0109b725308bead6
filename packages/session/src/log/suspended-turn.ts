import type { ToolCallBlock } from '@tooltx/core'
import type { ApprovalAskedData, ApprovalDecidedData, PreparedStep, SessionEvent } from './events.js'
import { LogState } from './log-state.js'
import { type InterruptedCall, interruptedCall } from './repair.js'
import { stepPreparation } from './step-preparation.js'

/** A call of a suspended turn that has no `tool/result` yet, from the waiting call on (F2.3). */
export interface ParkedCall {
  readonly block: ToolCallBlock
  /** Its `tool/call` is durable: resuming runs it without writing another one. */
  readonly called: boolean
}

/**
 * Where a suspended turn stands (F2.3): the open step, the call it waits on (the first in model
 * order with a durable ask since the turn started or last resumed, and no result), that ask and
 * its decision if one was made, the earlier calls left without a result (a process that died
 * before they settled; resumed by F1.4's rule), and the waiting call with every later one not
 * yet answered (none of them passed its policy phase, so each runs from scratch on resume), and
 * what `prepareStep` changed for the step (the resume rebuilds it, T4.5).
 */
export interface SuspendedTurn {
  readonly turn: number
  readonly step: number
  /** The step's tool-call blocks, in model order. */
  readonly blocks: readonly ToolCallBlock[]
  /** The waiting call's position in `blocks`. */
  readonly index: number
  readonly asked: ApprovalAskedData
  readonly decided: ApprovalDecidedData | undefined
  readonly interrupted: readonly InterruptedCall[]
  readonly parked: readonly ParkedCall[]
  /** What `prepareStep` changed for the step, as its `assistant/message` records it (T4.4). */
  readonly prepared: PreparedStep | undefined
}

/** The suspended turn `events` end in, or `undefined` when the latest turn is not suspended (F2.3). */
export function suspendedTurn(events: readonly SessionEvent[]): SuspendedTurn | undefined {
  const state = new LogState()
  for (const event of events) state.apply(event)
  const waiting = state.waiting()
  const assistant = state.assistant
  if (waiting === undefined || assistant === undefined) return undefined
  const { step, blocks, called, answered } = assistant
  const interrupted: InterruptedCall[] = []
  const parked: ParkedCall[] = []
  blocks.forEach((block, i) => {
    if (answered.has(block.id)) return
    if (i < waiting.index) interrupted.push(interruptedCall(assistant, block))
    else parked.push({ block, called: called.has(block.id) })
  })
  return {
    turn: state.turn,
    step,
    blocks,
    index: waiting.index,
    asked: waiting.asked,
    decided: waiting.decided,
    interrupted,
    parked,
    prepared: stepPreparation(events),
  }
}
