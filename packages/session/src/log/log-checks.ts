import { isApprovalOutcome, isProvenanceLabel } from '@tooltx/core/internal'
import { judgeDecision } from './decision-rule.js'
import { EVENT_SCOPES } from './event-scopes.js'
import { type ApprovalDecidedData, SESSION_EVENT_TYPES, type SessionEventType } from './events.js'
import { type Data, isCount, isId, isObject } from './guards.js'
import type { LogFacts } from './log-facts.js'
import { checkServerRequest } from './server-request-check.js'

const EVENT_TYPES = new Set<string>(SESSION_EVENT_TYPES)
const TURN_END_REASONS = new Set(['completed', 'aborted', 'error', 'interrupted', 'limit'])
const TURN_LIMITS = new Set(['maxSteps', 'maxToolCalls', 'maxTurnMs'])
const STOP_REASONS = new Set([
  'stop',
  'tool_calls',
  'max_tokens',
  'context_window',
  'content_filter',
  'refusal',
  'other',
])

const q = (x: unknown): string => JSON.stringify(x) ?? String(x)
const isNameList = (x: unknown): x is string[] => Array.isArray(x) && x.every((n) => typeof n === 'string')

/**
 * The invariant `event` would violate in a log whose state is `state`, as the `<what>` of
 * `invariant violated: <what>` (V1.4–V1.8, L1.7, L1.8, O2.2, O2.3); `undefined` if none.
 * Changes nothing: `applyEvent` records an event that passed.
 */
export function checkEvent(state: LogFacts, event: { type: unknown; data: unknown }): string | undefined {
  const { type, data } = event
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return `unknown session event type ${q(type)}`
  if (!isObject(data)) return `${type} data must be an object`
  if (type === 'session/fork') return checkFork(state, data)
  if (type === 'submission/failed' || type === 'submission/queued') return checkSubmission(type, data)
  if (!isCount(data.turn)) return `${type} needs a positive integer "turn"`
  if (EVENT_SCOPES[type as SessionEventType] === 'step' && !isCount(data.step)) {
    return `${type} needs a positive integer "step"`
  }
  if (type === 'turn/start') return checkTurnStart(state, data)
  if (data.turn !== state.turn) return `${type} names turn ${data.turn} but the latest turn is ${state.turn}`
  return checkInTurn(state, type as SessionEventType, data)
}

function checkFork(state: LogFacts, data: Data): string | undefined {
  if (state.started) return 'session/fork may only be the first event of a session'
  if (!isId(data.source) || !Number.isSafeInteger(data.at) || (data.at as number) < 0) {
    return 'session/fork needs { source: <session id>, at: <seq, 0 or more> }'
  }
  return undefined
}

function checkTurnStart(state: LogFacts, data: Data): string | undefined {
  if (state.turnOpen) return `turn/start while turn ${state.turn} has no turn/end`
  if (data.turn !== state.turn + 1) return `turn/start ${data.turn} does not follow turn ${state.turn}`
  if (state.unanswered().length > 0) {
    return `turn/start while tool calls of turn ${state.turn} have no tool/result (repair the session first)`
  }
  return undefined
}

function checkInTurn(state: LogFacts, type: SessionEventType, data: Data): string | undefined {
  // Repair answers the calls of a turn that already ended after a scheduler failure (L5.6),
  // so tool/call, tool/effect, tool/result and approval/decided may follow the latest turn's turn/end.
  const closedOk =
    type === 'tool/call' || type === 'tool/effect' || type === 'tool/result' || type === 'approval/decided'
  if (!state.turnOpen && !closedOk) return `${type} outside an open turn`
  switch (type) {
    case 'step/start':
      if (state.stepOpen) return `step/start while step ${state.step} has no step/end`
      if (data.step !== state.step + 1) return `step/start ${data.step} does not follow step ${state.step}`
      return undefined
    case 'step/end':
      if (!state.stepOpen || data.step !== state.step)
        return `step/end ${data.step} does not close the open step`
      if (data.stop !== undefined && !(isObject(data.stop) && STOP_REASONS.has(data.stop.reason as string)))
        return `step/end stop ${q(data.stop)} is not { reason: <a known stop reason>, raw? }`
      return undefined
    case 'approval/decided':
      return checkDecided(state, data)
    case 'turn/end':
      if (!TURN_END_REASONS.has(data.reason as string)) return `turn/end reason ${q(data.reason)} is unknown`
      if (data.message !== undefined && typeof data.message !== 'string')
        return 'turn/end message must be a string'
      if ((data.reason === 'limit') !== TURN_LIMITS.has(data.limit as string))
        return 'turn/end carries a known "limit" iff its reason is "limit"'
      return undefined
    default:
      return CHECKS[type]?.(state, data)
  }
}

/** The checks of the event types whose data a function of their own checks, beyond the turn checks. */
const CHECKS: {
  readonly [K in SessionEventType]?: (state: LogFacts, data: Data) => string | undefined
} = {
  'context/compacted': checkCompacted,
  'user/message': checkUserMessage,
  'assistant/message': checkAssistantMessage,
  'tool/call': checkToolCall,
  'tool/result': checkToolResult,
  'tool/effect': checkToolEffect,
  'approval/asked': checkAsked,
  'turn/resumed': checkResumed,
  'tool/code-dispatch-start': (state, data) => checkDispatch(state, 'tool/code-dispatch-start', data),
  'tool/code-dispatch': (state, data) => checkDispatch(state, 'tool/code-dispatch', data),
  'server/request': checkServerRequest,
}

/** L8.1, F2.2: one undecided ask per call; a durable ask names a running call of the turn and its expiry. */
function checkAsked(state: LogFacts, data: Data): string | undefined {
  if (!isId(data.callId) || typeof data.name !== 'string') return 'approval/asked needs a callId and a name'
  if (state.pendingApprovals.has(data.callId)) {
    return `approval/asked for call ${q(data.callId)} while its earlier request is undecided`
  }
  if (data.durable === undefined) return undefined
  const a = state.assistant
  if (data.durable !== true) return 'approval/asked "durable" must be true when present'
  if (typeof data.expiresAt !== 'string' || Number.isNaN(Date.parse(data.expiresAt)))
    return 'a durable approval/asked needs an ISO "expiresAt"'
  const deciders = data.deciders
  if (deciders !== undefined && !(Array.isArray(deciders) && deciders.length > 0 && deciders.every(isId)))
    return 'approval/asked "deciders" must be a non-empty list of non-empty strings'
  if (a === undefined || !a.called.has(data.callId) || a.answered.has(data.callId))
    return `durable approval/asked ${q(data.callId)} is not a running tool call of the turn`
  return checkCallStep('approval/asked', data, a.step)
}

/** V1.6, F2.13: one decision per ask, of a known outcome; a durable ask's passes the decision rule. */
function checkDecided(state: LogFacts, data: Data): string | undefined {
  const asked = isId(data.callId) ? state.pendingApprovals.get(data.callId) : undefined
  if (asked === undefined) {
    return `approval/decided for call ${q(data.callId)} does not follow an undecided approval/asked`
  }
  if (!isApprovalOutcome(data.outcome)) return `approval/decided outcome ${q(data.outcome)}`
  if (data.by !== undefined && !isId(data.by)) return 'approval/decided "by" must be a non-empty string'
  if (data.reason !== undefined && typeof data.reason !== 'string')
    return 'approval/decided "reason" must be a string'
  if (data.decidedAt !== undefined && typeof data.decidedAt !== 'string')
    return 'approval/decided "decidedAt" must be an ISO time'
  if (asked.durable !== true) return undefined
  const refused = judgeDecision(asked, data as unknown as ApprovalDecidedData)
  return refused === undefined
    ? undefined
    : `approval/decided breaks the decision rule: ${refused.message}; decide() records a decision that passes it`
}

/** F2.7: a turn resumes in its open step, only once the call it waits on is decided. */
function checkResumed(state: LogFacts, data: Data): string | undefined {
  if (!state.stepOpen || data.step !== state.step) return 'turn/resumed outside the open step'
  const waiting = state.waiting()
  if (waiting === undefined) return 'turn/resumed while the turn is not suspended'
  if (waiting.decided === undefined)
    return `turn/resumed while the approval of call ${q(waiting.asked.callId)} is undecided`
  return undefined
}

function pendingCalls(state: LogFacts, type: string): string | undefined {
  const open = state.unanswered()
  if (open.length === 0) return undefined
  return `${type} while tool call ${q(open[0]!.id)} of the latest assistant/message has no tool/result`
}

function checkUserMessage(state: LogFacts, data: Data): string | undefined {
  const m = data.message
  if (!isObject(m) || m.role !== 'user' || !Array.isArray(m.content)) {
    return 'user/message needs a message { role: "user", content: [...] }'
  }
  return pendingCalls(state, 'user/message')
}

function checkAssistantMessage(state: LogFacts, data: Data): string | undefined {
  if (!Array.isArray(data.content)) return 'assistant/message needs a content array'
  const { prepared } = data
  if (
    prepared !== undefined &&
    !(isObject(prepared) && (prepared.tools === undefined || isNameList(prepared.tools)))
  )
    return 'assistant/message "prepared" must be { system?, tools?: [<names>], toolChoice? }'
  const ids = new Set<string>()
  for (const block of data.content as unknown[]) {
    if (!isObject(block) || !isId(block.type)) return 'assistant/message content holds a block without a type'
    if (block.type !== 'tool-call') continue
    if (!isId(block.id) || typeof block.name !== 'string' || typeof block.arguments !== 'string') {
      return 'assistant/message tool-call blocks need { id, name, arguments: <raw string> }'
    }
    if (ids.has(block.id)) return `assistant/message repeats tool-call id ${q(block.id)}`
    ids.add(block.id)
  }
  return pendingCalls(state, 'assistant/message')
}

/** T3.5: a compaction happens inside an open step, between batches, and says what it replaced. */
function checkCompacted(state: LogFacts, data: Data): string | undefined {
  if (!state.stepOpen || data.step !== state.step) return 'context/compacted outside the open step'
  if (!Number.isSafeInteger(data.tokensBefore) || !Number.isSafeInteger(data.tokensAfter))
    return 'context/compacted needs integer tokensBefore and tokensAfter'
  if (data.strategy === 'summarise') {
    const summary = data.summary
    if (!isCount(data.through)) return 'context/compacted summarise needs a positive integer "through"'
    if (!isObject(summary) || summary.role !== 'user' || !Array.isArray(summary.content))
      return 'context/compacted summarise needs a summary { role: "user", content: [...] }'
  } else if (data.strategy === 'clear-tool-results') {
    if (!Array.isArray(data.cleared)) return 'context/compacted clear-tool-results needs a cleared array'
    for (const entry of data.cleared as unknown[]) {
      const ok =
        isObject(entry) &&
        isCount(entry.seq) &&
        isId(entry.callId) &&
        typeof entry.isError === 'boolean' &&
        Array.isArray(entry.content)
      if (!ok) return 'context/compacted cleared entries need { seq, callId, isError, content: [...] }'
    }
  } else {
    return `context/compacted strategy ${q(data.strategy)} is unknown`
  }
  return pendingCalls(state, 'context/compacted')
}

function checkToolCall(state: LogFacts, data: Data): string | undefined {
  if (!isId(data.callId) || typeof data.name !== 'string' || typeof data.arguments !== 'string') {
    return 'tool/call needs { callId, name, arguments: <raw string> }'
  }
  const a = state.assistant
  if (a === undefined || !a.ids.has(data.callId)) {
    return `tool/call ${q(data.callId)} is not a tool-call block of the turn's latest assistant/message`
  }
  if (a.called.has(data.callId)) return `tool/call ${q(data.callId)} was already called`
  return checkCallStep('tool/call', data, a.step)
}

/** F1.3: a receipt belongs to a called call of the latest assistant message that has no result yet. */
function checkToolEffect(state: LogFacts, data: Data): string | undefined {
  if (!isId(data.callId) || typeof data.name !== 'string' || !('receipt' in data)) {
    return 'tool/effect needs { callId, name, receipt }'
  }
  const a = state.assistant
  if (a === undefined || !a.called.has(data.callId)) {
    return `tool/effect ${q(data.callId)} has no earlier tool/call in the turn`
  }
  if (a.answered.has(data.callId)) return `tool/effect ${q(data.callId)} follows its tool/result`
  return checkCallStep('tool/effect', data, a.step)
}

function checkToolResult(state: LogFacts, data: Data): string | undefined {
  if (!isId(data.callId) || typeof data.name !== 'string') return 'tool/result needs a callId and a name'
  const a = state.assistant
  if (a === undefined || !a.called.has(data.callId)) {
    return `tool/result ${q(data.callId)} has no earlier tool/call in the turn`
  }
  if (a.answered.has(data.callId)) return `tool/result ${q(data.callId)} already has a result`
  const step = checkCallStep('tool/result', data, a.step)
  if (step !== undefined) return step
  if (!Array.isArray(data.content)) return 'tool/result needs a content array'
  if (typeof data.isError !== 'boolean') return 'tool/result needs a boolean isError'
  const e = data.error
  if (data.isError !== (e !== undefined)) return 'tool/result carries "error" iff isError'
  if (e !== undefined && (!isObject(e) || !isId(e.name) || !isId(e.code) || Object.keys(e).length !== 2)) {
    return 'tool/result error must be exactly { name, code }'
  }
  if ('value' in data || 'additionalContexts' in data) {
    return 'tool/result never stores the value or additionalContexts'
  }
  if (data.provenance !== undefined && !isProvenanceLabel(data.provenance)) {
    return "tool/result provenance must be { integrity: 'trusted' | 'untrusted', confidential?: boolean }"
  }
  return undefined
}

/** V1.7: a call and its result belong to the step of the assistant message that made the call. */
function checkCallStep(type: string, data: Data, step: number): string | undefined {
  if (data.step === step) return undefined
  return `${type} ${q(data.callId)} names step ${data.step} but its tool-call block is in step ${step}`
}

function checkDispatch(
  state: LogFacts,
  type: 'tool/code-dispatch-start' | 'tool/code-dispatch',
  data: Data,
): string | undefined {
  const { rootCallId: root, parentCallId: parent, subCallId: sub } = data
  if (!isId(root) || !isId(parent) || !isId(sub))
    return `${type} needs non-empty root, parent and sub call ids`
  const known = state.dispatches.get(sub)
  if (known !== undefined && known.root !== root) {
    return `sub call ${q(sub)} changes its root from ${q(known.root)} to ${q(root)}`
  }
  // V1.8: a sub call nested under another sub call keeps that call's root.
  const above = state.dispatches.get(parent)
  if (above !== undefined && above.root !== root) {
    return `sub call ${q(sub)} names root ${q(root)} but its parent ${q(parent)} has root ${q(above.root)}`
  }
  if (type === 'tool/code-dispatch-start') {
    return known === undefined ? undefined : `tool/code-dispatch-start ${q(sub)} was already started`
  }
  if (known === undefined) return `tool/code-dispatch ${q(sub)} has no tool/code-dispatch-start`
  return known.settled ? `tool/code-dispatch ${q(sub)} was already settled` : undefined
}

/** The problem with `submission/failed` (N2.12) or `submission/queued` (N2.15) data, `undefined` when it is well formed. */
function checkSubmission(type: 'submission/failed' | 'submission/queued', data: Data): string | undefined {
  const message = data.message as { role?: unknown; content?: unknown } | undefined
  const failed = type === 'submission/failed'
  if (!isId(data.submission) || (failed && typeof data.reason !== 'string') || !isObject(message)) {
    return `${type} needs { submission: <id>, ${failed ? 'reason: <text>, ' : ''}message: <user message> }`
  }
  if (message.role !== 'user' || !Array.isArray(message.content)) {
    return `${type} message must be a user message { role: "user", content: [...] }`
  }
  return undefined
}
