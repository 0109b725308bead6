import { isApprovalOutcome, isProvenanceLabel, type JsonValue, type ToolCallBlock } from '@tooltx/core'
import { judgeDecision } from './decision-rule.js'
import { EVENT_SCOPES } from './event-scopes.js'
import {
  type ApprovalAskedData,
  type ApprovalDecidedData,
  type NewSessionEvent,
  SESSION_EVENT_TYPES,
  type SessionEventType,
} from './events.js'

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

/** Where a turn's latest `assistant/message` stands: its tool-call blocks and their progress. */
interface AssistantTurn {
  readonly step: number
  readonly blocks: readonly ToolCallBlock[]
  readonly ids: ReadonlySet<string>
  readonly called: Set<string>
  readonly answered: Set<string>
  /** The `tool/effect` receipts of calls, by call id, in append order (F1.3). */
  readonly receipts: Map<string, JsonValue[]>
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

interface Dispatch {
  readonly root: string
  settled: boolean
}

type Data = Record<string, unknown>

const isObject = (x: unknown): x is Data => typeof x === 'object' && x !== null && !Array.isArray(x)
const isCount = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 1
const isId = (x: unknown): x is string => typeof x === 'string' && x !== ''
const q = (x: unknown): string => JSON.stringify(x) ?? String(x)

/** The version of `LogState.toJSON`'s shape; a checkpoint of another version is not used (L11.8). */
const STATE_VERSION = 2

/**
 * What the log knows about its latest turn, maintained event by event in O(1) (amortized per
 * event). `check` names the invariant an event would break (V1.4–V1.8, L1.7, L1.8, O2.2, O2.3)
 * without changing anything; `apply` records an event that was checked and made durable.
 * Only the latest turn is kept, so the state stays as small as one turn. `toJSON` and
 * `LogState.restore` carry it through a checkpoint (L11.8): every field added here must be
 * added to both.
 */
export class LogState {
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
  readonly #durable = new Map<string, DurableAsk>()
  readonly #dispatches = new Map<string, Dispatch>()
  /** True once any event was applied: `session/fork` may only be the first (A2.1). */
  #started = false

  /** The state as plain JSON, for a checkpoint (L11.8); `LogState.restore` reads it back. */
  toJSON(): JsonValue {
    const a = this.assistant
    return {
      v: STATE_VERSION,
      turn: this.turn,
      turnOpen: this.turnOpen,
      step: this.step,
      stepOpen: this.stepOpen,
      started: this.#started,
      assistant:
        a === undefined
          ? null
          : {
              step: a.step,
              blocks: a.blocks as unknown as JsonValue[],
              called: [...a.called],
              answered: [...a.answered],
              receipts: [...a.receipts],
            },
      approvals: [...this.pendingApprovals.values()] as unknown as JsonValue[],
      dispatches: [...this.#dispatches].map(([sub, d]) => [sub, d.root, d.settled]),
      durable: [...this.#durable.values()].map(({ asked, decided }) => ({
        asked: asked as unknown as JsonValue,
        decided: (decided ?? null) as unknown as JsonValue,
      })),
    }
  }

  /**
   * The state `toJSON` wrote, or `undefined` when `json` is not exactly that shape (another
   * version, a damaged or foreign checkpoint): never throws, so a bad checkpoint is ignored.
   */
  static restore(json: unknown): LogState | undefined {
    if (!isObject(json) || json.v !== STATE_VERSION) return undefined
    const { turn, step, turnOpen, stepOpen, started, approvals, dispatches, durable } = json
    if (!isCountOrZero(turn) || !isCountOrZero(step)) return undefined
    if (typeof turnOpen !== 'boolean' || typeof stepOpen !== 'boolean' || typeof started !== 'boolean')
      return undefined
    if (!Array.isArray(approvals) || !Array.isArray(dispatches) || !Array.isArray(durable)) return undefined
    const state = new LogState()
    const assistant = restoreAssistant(json.assistant)
    if (assistant === false) return undefined
    Object.assign(state, { turn, step, turnOpen, stepOpen, assistant })
    state.#started = started
    for (const asked of approvals as unknown[]) {
      if (!isObject(asked) || !isId(asked.callId)) return undefined
      state.pendingApprovals.set(asked.callId, asked as unknown as ApprovalAskedData)
    }
    for (const entry of dispatches as unknown[]) {
      const [sub, root, settled] = Array.isArray(entry) ? entry : []
      if (!isId(sub) || !isId(root) || typeof settled !== 'boolean') return undefined
      state.#dispatches.set(sub, { root, settled })
    }
    for (const entry of durable as unknown[]) {
      const { asked, decided } = isObject(entry) ? entry : {}
      if (!isObject(asked) || !isId(asked.callId) || asked.durable !== true) return undefined
      if (decided !== null && !(isObject(decided) && decided.callId === asked.callId)) return undefined
      const ask = asked as unknown as ApprovalAskedData
      const decision = (decided ?? undefined) as unknown as ApprovalDecidedData | undefined
      // A decision the rule refuses is not obeyed from a checkpoint either (F2.15).
      if (decision !== undefined && judgeDecision(ask, decision) !== undefined) return undefined
      state.#durable.set(asked.callId, { asked: ask, decided: decision })
    }
    return state
  }

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
    if (!this.turnOpen || a === undefined || this.#durable.size === 0) return undefined
    for (let index = 0; index < a.blocks.length; index++) {
      const id = a.blocks[index]!.id
      const ask = this.#durable.get(id)
      if (ask !== undefined && !a.answered.has(id)) return { index, asked: ask.asked, decided: ask.decided }
    }
    return undefined
  }

  /** The invariant `event` would violate, as the `<what>` of `invariant violated: <what>`; `undefined` if none. */
  check(event: { type: unknown; data: unknown }): string | undefined {
    const { type, data } = event
    if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return `unknown session event type ${q(type)}`
    if (!isObject(data)) return `${type} data must be an object`
    if (type === 'session/fork') return this.#checkFork(data)
    if (type === 'submission/failed') return checkSubmissionFailed(data)
    if (!isCount(data.turn)) return `${type} needs a positive integer "turn"`
    if (EVENT_SCOPES[type as SessionEventType] === 'step' && !isCount(data.step)) {
      return `${type} needs a positive integer "step"`
    }
    if (type === 'turn/start') return this.#checkTurnStart(data)
    if (data.turn !== this.turn) return `${type} names turn ${data.turn} but the latest turn is ${this.turn}`
    return this.#checkInTurn(type as SessionEventType, data)
  }

  #checkFork(data: Data): string | undefined {
    if (this.#started) return 'session/fork may only be the first event of a session'
    if (!isId(data.source) || !Number.isSafeInteger(data.at) || (data.at as number) < 0) {
      return 'session/fork needs { source: <session id>, at: <seq, 0 or more> }'
    }
    return undefined
  }

  #checkTurnStart(data: Data): string | undefined {
    if (this.turnOpen) return `turn/start while turn ${this.turn} has no turn/end`
    if (data.turn !== this.turn + 1) return `turn/start ${data.turn} does not follow turn ${this.turn}`
    if (this.unanswered().length > 0) {
      return `turn/start while tool calls of turn ${this.turn} have no tool/result (repair the session first)`
    }
    return undefined
  }

  #checkInTurn(type: SessionEventType, data: Data): string | undefined {
    // Repair answers the calls of a turn that already ended after a scheduler failure (L5.6),
    // so tool/call, tool/effect, tool/result and approval/decided may follow the latest turn's turn/end.
    const closedOk =
      type === 'tool/call' || type === 'tool/effect' || type === 'tool/result' || type === 'approval/decided'
    if (!this.turnOpen && !closedOk) return `${type} outside an open turn`
    switch (type) {
      case 'step/start':
        if (this.stepOpen) return `step/start while step ${this.step} has no step/end`
        if (data.step !== this.step + 1) return `step/start ${data.step} does not follow step ${this.step}`
        return undefined
      case 'step/end':
        if (!this.stepOpen || data.step !== this.step)
          return `step/end ${data.step} does not close the open step`
        if (data.stop !== undefined && !(isObject(data.stop) && STOP_REASONS.has(data.stop.reason as string)))
          return `step/end stop ${q(data.stop)} is not { reason: <a known stop reason>, raw? }`
        return undefined
      case 'approval/decided':
        return this.#checkDecided(data)
      case 'turn/end':
        if (!TURN_END_REASONS.has(data.reason as string))
          return `turn/end reason ${q(data.reason)} is unknown`
        if (data.message !== undefined && typeof data.message !== 'string')
          return 'turn/end message must be a string'
        if ((data.reason === 'limit') !== TURN_LIMITS.has(data.limit as string))
          return 'turn/end carries a known "limit" iff its reason is "limit"'
        return undefined
      default:
        return LogState.#checks[type]?.(this, data)
    }
  }

  /** The checks of the event types whose data a method of their own checks, beyond the turn checks. */
  static readonly #checks: {
    readonly [K in SessionEventType]?: (state: LogState, data: Data) => string | undefined
  } = {
    'context/compacted': (state, data) => state.#checkCompacted(data),
    'user/message': (state, data) => state.#checkUserMessage(data),
    'assistant/message': (state, data) => state.#checkAssistantMessage(data),
    'tool/call': (state, data) => state.#checkToolCall(data),
    'tool/result': (state, data) => state.#checkToolResult(data),
    'tool/effect': (state, data) => state.#checkToolEffect(data),
    'approval/asked': (state, data) => state.#checkAsked(data),
    'turn/resumed': (state, data) => state.#checkResumed(data),
    'tool/code-dispatch-start': (state, data) => state.#checkDispatch('tool/code-dispatch-start', data),
    'tool/code-dispatch': (state, data) => state.#checkDispatch('tool/code-dispatch', data),
  }

  /** L8.1, F2.2: one undecided ask per call; a durable ask names a running call of the turn and its expiry. */
  #checkAsked(data: Data): string | undefined {
    if (!isId(data.callId) || typeof data.name !== 'string') return 'approval/asked needs a callId and a name'
    if (this.pendingApprovals.has(data.callId)) {
      return `approval/asked for call ${q(data.callId)} while its earlier request is undecided`
    }
    if (data.durable === undefined) return undefined
    const a = this.assistant
    if (data.durable !== true) return 'approval/asked "durable" must be true when present'
    if (typeof data.expiresAt !== 'string' || Number.isNaN(Date.parse(data.expiresAt)))
      return 'a durable approval/asked needs an ISO "expiresAt"'
    const deciders = data.deciders
    if (deciders !== undefined && !(Array.isArray(deciders) && deciders.length > 0 && deciders.every(isId)))
      return 'approval/asked "deciders" must be a non-empty list of non-empty strings'
    if (a === undefined || !a.called.has(data.callId) || a.answered.has(data.callId))
      return `durable approval/asked ${q(data.callId)} is not a running tool call of the turn`
    return this.#checkCallStep('approval/asked', data, a.step)
  }

  /** V1.6, F2.13: one decision per ask, of a known outcome; a durable ask's passes the decision rule. */
  #checkDecided(data: Data): string | undefined {
    const asked = isId(data.callId) ? this.pendingApprovals.get(data.callId) : undefined
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
  #checkResumed(data: Data): string | undefined {
    if (!this.stepOpen || data.step !== this.step) return 'turn/resumed outside the open step'
    const waiting = this.waiting()
    if (waiting === undefined) return 'turn/resumed while the turn is not suspended'
    if (waiting.decided === undefined)
      return `turn/resumed while the approval of call ${q(waiting.asked.callId)} is undecided`
    return undefined
  }

  #pendingCalls(type: string): string | undefined {
    const open = this.unanswered()
    if (open.length === 0) return undefined
    return `${type} while tool call ${q(open[0]!.id)} of the latest assistant/message has no tool/result`
  }

  #checkUserMessage(data: Data): string | undefined {
    const m = data.message
    if (!isObject(m) || m.role !== 'user' || !Array.isArray(m.content)) {
      return 'user/message needs a message { role: "user", content: [...] }'
    }
    return this.#pendingCalls('user/message')
  }

  #checkAssistantMessage(data: Data): string | undefined {
    if (!Array.isArray(data.content)) return 'assistant/message needs a content array'
    const { prepared } = data
    if (
      prepared !== undefined &&
      !(isObject(prepared) && (prepared.tools === undefined || isNameList(prepared.tools)))
    )
      return 'assistant/message "prepared" must be { system?, tools?: [<names>], toolChoice? }'
    const ids = new Set<string>()
    for (const block of data.content as unknown[]) {
      if (!isObject(block) || !isId(block.type))
        return 'assistant/message content holds a block without a type'
      if (block.type !== 'tool-call') continue
      if (!isId(block.id) || typeof block.name !== 'string' || typeof block.arguments !== 'string') {
        return 'assistant/message tool-call blocks need { id, name, arguments: <raw string> }'
      }
      if (ids.has(block.id)) return `assistant/message repeats tool-call id ${q(block.id)}`
      ids.add(block.id)
    }
    return this.#pendingCalls('assistant/message')
  }

  /** T3.5: a compaction happens inside an open step, between batches, and says what it replaced. */
  #checkCompacted(data: Data): string | undefined {
    if (!this.stepOpen || data.step !== this.step) return 'context/compacted outside the open step'
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
    return this.#pendingCalls('context/compacted')
  }

  #checkToolCall(data: Data): string | undefined {
    if (!isId(data.callId) || typeof data.name !== 'string' || typeof data.arguments !== 'string') {
      return 'tool/call needs { callId, name, arguments: <raw string> }'
    }
    const a = this.assistant
    if (a === undefined || !a.ids.has(data.callId)) {
      return `tool/call ${q(data.callId)} is not a tool-call block of the turn's latest assistant/message`
    }
    if (a.called.has(data.callId)) return `tool/call ${q(data.callId)} was already called`
    return this.#checkCallStep('tool/call', data, a.step)
  }

  /** F1.3: a receipt belongs to a called call of the latest assistant message that has no result yet. */
  #checkToolEffect(data: Data): string | undefined {
    if (!isId(data.callId) || typeof data.name !== 'string' || !('receipt' in data)) {
      return 'tool/effect needs { callId, name, receipt }'
    }
    const a = this.assistant
    if (a === undefined || !a.called.has(data.callId)) {
      return `tool/effect ${q(data.callId)} has no earlier tool/call in the turn`
    }
    if (a.answered.has(data.callId)) return `tool/effect ${q(data.callId)} follows its tool/result`
    return this.#checkCallStep('tool/effect', data, a.step)
  }

  #checkToolResult(data: Data): string | undefined {
    if (!isId(data.callId) || typeof data.name !== 'string') return 'tool/result needs a callId and a name'
    const a = this.assistant
    if (a === undefined || !a.called.has(data.callId)) {
      return `tool/result ${q(data.callId)} has no earlier tool/call in the turn`
    }
    if (a.answered.has(data.callId)) return `tool/result ${q(data.callId)} already has a result`
    const step = this.#checkCallStep('tool/result', data, a.step)
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
  #checkCallStep(type: string, data: Data, step: number): string | undefined {
    if (data.step === step) return undefined
    return `${type} ${q(data.callId)} names step ${data.step} but its tool-call block is in step ${step}`
  }

  #checkDispatch(type: 'tool/code-dispatch-start' | 'tool/code-dispatch', data: Data): string | undefined {
    const { rootCallId: root, parentCallId: parent, subCallId: sub } = data
    if (!isId(root) || !isId(parent) || !isId(sub))
      return `${type} needs non-empty root, parent and sub call ids`
    const known = this.#dispatches.get(sub)
    if (known !== undefined && known.root !== root) {
      return `sub call ${q(sub)} changes its root from ${q(known.root)} to ${q(root)}`
    }
    // V1.8: a sub call nested under another sub call keeps that call's root.
    const above = this.#dispatches.get(parent)
    if (above !== undefined && above.root !== root) {
      return `sub call ${q(sub)} names root ${q(root)} but its parent ${q(parent)} has root ${q(above.root)}`
    }
    if (type === 'tool/code-dispatch-start') {
      return known === undefined ? undefined : `tool/code-dispatch-start ${q(sub)} was already started`
    }
    if (known === undefined) return `tool/code-dispatch ${q(sub)} has no tool/code-dispatch-start`
    return known.settled ? `tool/code-dispatch ${q(sub)} was already settled` : undefined
  }

  /** Adds `callId` to the assistant turn's `called` or `answered` set (with its undo); no-op without one. */
  #mark(set: 'called' | 'answered', callId: string, undo: (() => void)[] | undefined): void {
    const ids = this.assistant?.[set]
    if (ids === undefined) return
    ids.add(callId)
    undo?.push(() => ids.delete(callId))
  }

  /**
   * Records an event that passed `check`. With `undo`, pushes what reverts it, so a batch can
   * be checked and applied event by event and rolled back (newest first) when a later event is
   * refused or the write fails, without copying the state.
   */
  apply(event: NewSessionEvent, undo?: (() => void)[]): void {
    if (!this.#started) {
      this.#started = true
      undo?.push(() => {
        this.#started = false
      })
    }
    switch (event.type) {
      case 'turn/start': {
        if (undo !== undefined) {
          const { turn, turnOpen, step, stepOpen, assistant } = this
          const approvals = [...this.pendingApprovals]
          const dispatches = [...this.#dispatches]
          const durable = [...this.#durable]
          undo.push(() => {
            Object.assign(this, { turn, turnOpen, step, stepOpen, assistant })
            for (const [k, v] of approvals) this.pendingApprovals.set(k, v)
            for (const [k, v] of dispatches) this.#dispatches.set(k, v)
            for (const [k, v] of durable) this.#durable.set(k, v)
          })
        }
        this.turn = event.data.turn
        this.turnOpen = true
        this.step = 0
        this.stepOpen = false
        this.assistant = undefined
        this.pendingApprovals.clear()
        this.#dispatches.clear()
        this.#durable.clear()
        return
      }
      case 'step/start': {
        const { step, stepOpen } = this
        undo?.push(() => Object.assign(this, { step, stepOpen }))
        this.step = event.data.step
        this.stepOpen = true
        return
      }
      case 'step/end':
        undo?.push(() => {
          this.stepOpen = true
        })
        this.stepOpen = false
        return
      case 'assistant/message': {
        const previous = this.assistant
        undo?.push(() => {
          this.assistant = previous
        })
        const blocks = event.data.content.filter((b): b is ToolCallBlock => b.type === 'tool-call')
        this.assistant = {
          step: event.data.step,
          blocks,
          ids: new Set(blocks.map((b) => b.id)),
          called: new Set(),
          answered: new Set(),
          receipts: new Map(),
        }
        return
      }
      case 'tool/call':
        this.#mark('called', event.data.callId, undo)
        return
      case 'tool/result':
        this.#mark('answered', event.data.callId, undo)
        return
      case 'tool/effect': {
        const a = this.assistant
        if (a === undefined) return
        const { callId, receipt } = event.data
        const list = a.receipts.get(callId)
        if (list === undefined) a.receipts.set(callId, [receipt])
        else list.push(receipt)
        undo?.push(() => {
          if (list === undefined) a.receipts.delete(callId)
          else list.pop()
        })
        return
      }
      case 'approval/asked': {
        const { callId } = event.data
        this.pendingApprovals.set(callId, event.data)
        if (event.data.durable === true) this.#durable.set(callId, { asked: event.data, decided: undefined })
        undo?.push(() => {
          this.pendingApprovals.delete(callId)
          this.#durable.delete(callId)
        })
        return
      }
      case 'approval/decided': {
        const { callId } = event.data
        const asked = this.pendingApprovals.get(callId)
        this.pendingApprovals.delete(callId)
        if (asked !== undefined) undo?.push(() => this.pendingApprovals.set(callId, asked))
        const durable = this.#durable.get(callId)
        if (durable !== undefined && durable.decided === undefined) {
          durable.decided = event.data
          undo?.push(() => {
            durable.decided = undefined
          })
        }
        return
      }
      case 'turn/resumed': {
        const durable = [...this.#durable]
        undo?.push(() => {
          for (const [k, v] of durable) this.#durable.set(k, v)
        })
        this.#durable.clear()
        return
      }
      case 'tool/code-dispatch-start':
        this.#dispatches.set(event.data.subCallId, { root: event.data.rootCallId, settled: false })
        undo?.push(() => this.#dispatches.delete(event.data.subCallId))
        return
      case 'tool/code-dispatch': {
        const d = this.#dispatches.get(event.data.subCallId)
        if (d === undefined) return
        d.settled = true
        undo?.push(() => {
          d.settled = false
        })
        return
      }
      case 'turn/end': {
        const { turnOpen, stepOpen } = this
        undo?.push(() => Object.assign(this, { turnOpen, stepOpen }))
        this.turnOpen = false
        this.stepOpen = false
        return
      }
      default:
        return
    }
  }
}

const isCountOrZero = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0
const isIdList = (x: unknown): x is string[] => Array.isArray(x) && x.every(isId)
const isNameList = (x: unknown): x is string[] => Array.isArray(x) && x.every((n) => typeof n === 'string')

/** The `assistant` part of a `LogState.toJSON` value: `undefined` for `null`, `false` when malformed. */
function restoreAssistant(a: unknown): AssistantTurn | undefined | false {
  if (a === null) return undefined
  if (!isObject(a) || !isCount(a.step) || !Array.isArray(a.blocks) || !Array.isArray(a.receipts)) return false
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
  const calls = blocks as ToolCallBlock[]
  return {
    step: a.step,
    blocks: calls,
    ids: new Set(calls.map((b) => b.id)),
    called: new Set(a.called),
    answered: new Set(a.answered),
    receipts,
  }
}

/** The problem with `submission/failed` data (N2.12), `undefined` when it is well formed. */
function checkSubmissionFailed(data: Data): string | undefined {
  const message = data.message as { role?: unknown; content?: unknown } | undefined
  if (!isId(data.submission) || typeof data.reason !== 'string' || !isObject(message)) {
    return 'submission/failed needs { submission: <id>, reason: <text>, message: <user message> }'
  }
  if (message.role !== 'user' || !Array.isArray(message.content)) {
    return 'submission/failed message must be a user message { role: "user", content: [...] }'
  }
  return undefined
}
