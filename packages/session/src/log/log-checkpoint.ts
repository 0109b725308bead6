import type { ApprovalOutcome, JsonValue, ToolCallBlock } from '@tooltx/core'
import { judgeDecision } from './decision-rule.js'
import type { ApprovalAskedData, ApprovalDecidedData } from './events.js'
import { isCount, isCountOrZero, isId, isIdList, isObject } from './guards.js'
import type { AssistantTurn, LogFacts } from './log-facts.js'

/**
 * The version of the checkpoint format; a checkpoint of another version is not used (L11.8):
 * the open reads the whole log. Version 3 added the latest assistant message's `decisions`
 * (F2.20), which a version 2 state had dropped at `turn/resumed` and cannot be rebuilt from it.
 */
const STATE_VERSION = 3

/** `state` as plain JSON, the checkpoint format (L11.8) that `readCheckpoint` reads back. */
export function checkpointOf(state: LogFacts): JsonValue {
  const a = state.assistant
  return {
    v: STATE_VERSION,
    turn: state.turn,
    turnOpen: state.turnOpen,
    step: state.step,
    stepOpen: state.stepOpen,
    started: state.started,
    assistant:
      a === undefined
        ? null
        : {
            step: a.step,
            blocks: a.blocks as unknown as JsonValue[],
            called: [...a.called],
            answered: [...a.answered],
            receipts: [...a.receipts],
            decisions: [...a.decisions],
          },
    approvals: [...state.pendingApprovals.values()] as unknown as JsonValue[],
    dispatches: [...state.dispatches].map(([sub, d]) => [sub, d.root, d.settled]),
    durable: [...state.durable.values()].map(({ asked, decided }) => ({
      asked: asked as unknown as JsonValue,
      decided: (decided ?? null) as unknown as JsonValue,
    })),
  }
}

/**
 * Fills the fresh `state` from `json`, the value `checkpointOf` wrote; false (with `state`
 * partly filled, to be dropped) when `json` is not exactly that shape: another version, a
 * damaged or foreign checkpoint. Never throws, so a bad checkpoint is ignored.
 */
export function readCheckpoint(json: unknown, state: LogFacts): boolean {
  if (!isObject(json) || json.v !== STATE_VERSION) return false
  const { turn, step, turnOpen, stepOpen, started, approvals, dispatches, durable } = json
  if (!isCountOrZero(turn) || !isCountOrZero(step)) return false
  if (typeof turnOpen !== 'boolean' || typeof stepOpen !== 'boolean' || typeof started !== 'boolean')
    return false
  if (!Array.isArray(approvals) || !Array.isArray(dispatches) || !Array.isArray(durable)) return false
  const assistant = readAssistant(json.assistant)
  if (assistant === false) return false
  Object.assign(state, { turn, step, turnOpen, stepOpen, started, assistant })
  for (const asked of approvals as unknown[]) {
    if (!isObject(asked) || !isId(asked.callId)) return false
    state.pendingApprovals.set(asked.callId, asked as unknown as ApprovalAskedData)
  }
  for (const entry of dispatches as unknown[]) {
    const [sub, root, settled] = Array.isArray(entry) ? entry : []
    if (!isId(sub) || !isId(root) || typeof settled !== 'boolean') return false
    state.dispatches.set(sub, { root, settled })
  }
  for (const entry of durable as unknown[]) {
    const { asked, decided } = isObject(entry) ? entry : {}
    if (!isObject(asked) || !isId(asked.callId) || asked.durable !== true) return false
    if (decided !== null && !(isObject(decided) && decided.callId === asked.callId)) return false
    const ask = asked as unknown as ApprovalAskedData
    const decision = (decided ?? undefined) as unknown as ApprovalDecidedData | undefined
    // A decision the rule refuses is not obeyed from a checkpoint either (F2.15).
    if (decision !== undefined && judgeDecision(ask, decision) !== undefined) return false
    state.durable.set(asked.callId, { asked: ask, decided: decision })
  }
  return true
}

/** The `assistant` part of a checkpoint: `undefined` for `null`, `false` when malformed. */
function readAssistant(a: unknown): AssistantTurn | undefined | false {
  if (a === null) return undefined
  if (!isObject(a) || !isCount(a.step) || !Array.isArray(a.blocks) || !Array.isArray(a.receipts)) return false
  if (!Array.isArray(a.decisions)) return false
  if (!isIdList(a.called) || !isIdList(a.answered)) return false
  const blocks = a.blocks as unknown[]
  const isCall = (b: unknown): boolean =>
    isObject(b) &&
    b.type === 'tool-call' &&
    isId(b.id) &&
    typeof b.name === 'string' &&
    typeof b.arguments === 'string'
  if (!blocks.every(isCall)) return false
  const receipts = new Map<string, JsonValue[]>()
  for (const entry of a.receipts as unknown[]) {
    const [callId, list] = Array.isArray(entry) ? entry : []
    if (!isId(callId) || !Array.isArray(list)) return false
    receipts.set(callId, list as JsonValue[])
  }
  const decisions = new Map<string, ApprovalOutcome>()
  for (const entry of a.decisions as unknown[]) {
    const [callId, outcome] = Array.isArray(entry) ? entry : []
    if (!isId(callId) || !isId(outcome)) return false
    decisions.set(callId, outcome as ApprovalOutcome)
  }
  const calls = blocks as ToolCallBlock[]
  return {
    step: a.step,
    blocks: calls,
    ids: new Set(calls.map((b) => b.id)),
    called: new Set(a.called),
    answered: new Set(a.answered),
    receipts,
    decisions,
  }
}
