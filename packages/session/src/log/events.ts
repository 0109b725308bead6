import type {
  ApprovalOutcome,
  AssistantBlock,
  CodeDispatchSettle,
  CodeDispatchStart,
  ContentBlock,
  ErrorInfo,
  JsonValue,
  ProvenanceLabel,
  UserMessage,
} from '@tooltx/core'
import { EVENT_SCOPES } from './event-scopes.js'

/** A 1-based position in a session log (L1.2). Branded so it is never mixed up with a turn or step. */
export type Seq = number & { readonly __brand: 'Seq' }

/** Why a turn ended (L1.7); `limit` is a bound of the agent loop (L13.1). */
export type TurnEndReason = 'completed' | 'aborted' | 'error' | 'interrupted' | 'limit'

/** The agent-loop bound that ended a `limit` turn (L13.1). */
export type TurnLimit = 'maxSteps' | 'maxToolCalls' | 'maxTurnMs'

/** The turn and step an event belongs to (L1.8). */
export interface StepRef {
  readonly turn: number
  readonly step: number
}

/** `turn/start`: a turn begins; turns count up from 1 per session (L1.8). */
export interface TurnStartData {
  readonly turn: number
}

/** `step/start`: steps count up from 1 within a turn (L1.8). */
export type StepData = StepRef

/**
 * Why a model reply ended, in tooltx's words (T2.1): `stop` (the model finished), `tool_calls`,
 * `max_tokens` (the reply's token limit), `context_window` (the model's window is full),
 * `content_filter`, `refusal`, or `other` for anything else a provider says.
 */
export type StopReason =
  | 'stop'
  | 'tool_calls'
  | 'max_tokens'
  | 'context_window'
  | 'content_filter'
  | 'refusal'
  | 'other'

/** A reply's stop reason, with the provider's own word for it when it sent one (T2.1). */
export interface ReplyStop {
  readonly reason: StopReason
  readonly raw?: string
}

/** Which tool the model may or must call in one request (T4.1). */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly tool: string }

/** What `prepareStep` changed for one step, as recorded on its `step/end` (T4.3). */
export interface PreparedStep {
  readonly system?: string
  /** The names the step's scope restriction admitted. */
  readonly tools?: readonly string[]
  readonly toolChoice?: ToolChoice
}

/**
 * `step/end` (L1.8): `stop` is why the step's model reply ended (T2.1), absent when no reply
 * completed (an abort, a model failure); `prepared` is what `prepareStep` returned (T4.3).
 */
export interface StepEndData extends StepRef {
  readonly stop?: ReplyStop
  readonly prepared?: PreparedStep
}

/** One tool result that `clear-tool-results` replaced: the `tool/result` at `seq` now derives `content` (T3.3). */
export interface ClearedResult {
  readonly seq: Seq
  readonly callId: string
  readonly isError: boolean
  readonly content: readonly ContentBlock[]
}

/**
 * `context/compacted` (T3.5): what a context strategy replaced, so derivation applies it and
 * replay derives the same messages. `clear-tool-results` replaces the content of the listed
 * results; `summarise` replaces every message derived from an event up to seq `through` by
 * `summary`. `tokensBefore` and `tokensAfter` are the budget's counts around it.
 */
export type ContextCompactedData = StepRef & {
  readonly tokensBefore: number
  readonly tokensAfter: number
} & (
    | { readonly strategy: 'clear-tool-results'; readonly cleared: readonly ClearedResult[] }
    | { readonly strategy: 'summarise'; readonly through: Seq; readonly summary: UserMessage }
  )

/** `user/message`: a user message or a deferred context, with its `source` (L2.1, O1.3). */
export interface UserMessageData extends StepRef {
  readonly message: UserMessage
}

/**
 * `assistant/message`: the model's reply; tool-call blocks keep the raw argument string (L3.4).
 * `prepared` is what `prepareStep` changed for the step (T4.4), durable before any of its calls
 * starts, so a resumed or recovered step runs as the step did (T4.5).
 */
export interface AssistantMessageData extends StepRef {
  readonly content: readonly AssistantBlock[]
  readonly prepared?: PreparedStep
}

/** `tool/call`: appended just before the pipeline runs, with the raw argument string (L4.4). */
export interface ToolCallData extends StepRef {
  readonly callId: string
  readonly name: string
  readonly arguments: string
}

/**
 * `tool/result`: the durable result (O2.1). `error` is present iff `isError` (O2.2); the
 * canonical value and additional contexts are never stored here (O2.3).
 */
export interface ToolResultData extends StepRef {
  readonly callId: string
  readonly name: string
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
  readonly error?: ErrorInfo
  readonly meta?: JsonValue
  /** The result's provenance label, when its tool declares one (H1.3). */
  readonly provenance?: ProvenanceLabel
}

/**
 * `tool/effect`: a receipt the body of call `callId` recorded with `exec.recordEffect` (F1.3),
 * appended at once, after the call's `tool/call` and before its `tool/result`.
 */
export interface ToolEffectData extends StepRef {
  readonly callId: string
  readonly name: string
  readonly receipt: JsonValue
}

/**
 * `approval/asked` (L8.1, L8.3). A durable ask (F2.2) carries `durable: true`, when it expires
 * (`expiresAt`, an ISO time) and who may decide it (`deciders`, when the agent names them); its
 * call waits in the log, not in a process.
 */
export interface ApprovalAskedData extends StepRef {
  readonly callId: string
  readonly name: string
  readonly reason?: string
  readonly argumentsDigest?: string
  readonly durable?: true
  readonly expiresAt?: string
  readonly deciders?: readonly string[]
}

/**
 * `approval/decided` (L8.1–L8.3); crash repair records `'cancelled'` (L9.4). A decision of a
 * durable ask (F2.5) names who made it (`by`), when (`decidedAt`, an ISO time) and may say why
 * (`reason`); an expiry records `'expired'` without `by`, with the time it was noticed. The log
 * refuses one the decision rule refuses (F2.13, `judgeDecision`).
 */
export interface ApprovalDecidedData extends StepRef {
  readonly callId: string
  readonly name: string
  readonly outcome: ApprovalOutcome
  readonly argumentsDigest?: string
  readonly by?: string
  readonly reason?: string
  readonly decidedAt?: string
}

/**
 * `turn/resumed`: a suspended turn (F2.3) continues from here, in the step it was suspended in;
 * appended once its waiting call is decided and before anything of the turn runs again (F2.7).
 */
export type TurnResumedData = StepRef

/** `tool/code-dispatch-start`: X5.1's event with `turn` and `step` added (X5.3). */
export type CodeDispatchStartData = StepRef & Omit<CodeDispatchStart, 'type'>

/** `tool/code-dispatch`: X5.2's settle event with `turn` and `step` added (X5.3). */
export type CodeDispatchData = StepRef & Omit<CodeDispatchSettle, 'type'>

/**
 * `turn/end` (L1.7); `message` explains an `error` (L5.5) or `limit` ending, and `limit`
 * names the bound of a `limit` ending (L13.1).
 */
export interface TurnEndData {
  readonly turn: number
  readonly reason: TurnEndReason
  readonly message?: string
  readonly limit?: TurnLimit
}

/**
 * `session/fork`: the first event of a session made by `forkSession` (A2.1), naming the
 * session it was forked from and the last `seq` of that session it holds.
 */
export interface SessionForkData {
  readonly source: string
  readonly at: number
}

/**
 * `submission/failed` (N2.12): a worker gave up on a submitted message (its job had no retry
 * left), so no turn answers it. Names the submission, says why, and keeps the message. It may
 * stand anywhere in the log and changes nothing derived from it.
 */
export interface SubmissionFailedData {
  readonly submission: string
  readonly reason: string
  readonly message: UserMessage
}

/**
 * `submission/queued` (N2.15): `tooltx submit` recorded a message it queued for the session
 * before any worker took it, so readers see the session, titled by the message, as queued. It
 * may stand anywhere in the log and changes nothing derived from it; the worker that takes the
 * submission logs its `user/message` as it would without it.
 */
export interface SubmissionQueuedData {
  readonly submission: string
  readonly message: UserMessage
}

/** Who decided a server's request (L1.10): the host's policy, the agent's approver, or the host's own handler. */
export type ServerRequestDecider = 'policy' | 'approver' | 'handler'

/** What every `server/request` records: the turn and step in progress, the server and the calls it arrived during. */
interface ServerRequestBase extends StepRef {
  /** The name the server was imported under. */
  readonly server: string
  /** The ids of the server's imported calls that were running when the request arrived (oldest first). */
  readonly calls: readonly string[]
  readonly by: ServerRequestDecider
  /** Why it was refused, declined or cancelled, when the host said. */
  readonly reason?: string
}

/**
 * A server's sampling request (L1.10): how much it sent (`messages`, `characters` of their text),
 * the start of its last message (`last`, at most 200 characters), the model named by the host and
 * the `maxTokens` it granted, the outcome, and the reply text when it was answered.
 */
export interface SamplingRequestData extends ServerRequestBase {
  readonly kind: 'sampling'
  readonly messages: number
  readonly characters: number
  readonly last?: string
  readonly model: string
  readonly maxTokens: number
  readonly outcome: 'answered' | 'refused'
  readonly reply?: string
}

/**
 * A server's question (elicitation, L1.10): its message, the names of its form's fields, the
 * answer's action and the names of the fields answered — never their values.
 */
export interface ElicitationRequestData extends ServerRequestBase {
  readonly kind: 'elicitation'
  readonly message: string
  readonly fields: readonly string[]
  readonly outcome: 'accept' | 'decline' | 'cancel'
  readonly answered?: readonly string[]
}

/**
 * `server/request` (L1.10): a request an MCP server made of the host while a turn ran, as the
 * host decided and answered it; recorded in the open step before the answer goes back, and
 * derives nothing.
 */
export type ServerRequestData = SamplingRequestData | ElicitationRequestData

/** Every event type and its data (L1.7). A new event type is one entry here. */
export interface SessionEventMap {
  'session/fork': SessionForkData
  'turn/start': TurnStartData
  'step/start': StepData
  'user/message': UserMessageData
  'assistant/message': AssistantMessageData
  'tool/call': ToolCallData
  'tool/result': ToolResultData
  'tool/effect': ToolEffectData
  'approval/asked': ApprovalAskedData
  'approval/decided': ApprovalDecidedData
  'turn/resumed': TurnResumedData
  'tool/code-dispatch-start': CodeDispatchStartData
  'tool/code-dispatch': CodeDispatchData
  'context/compacted': ContextCompactedData
  'step/end': StepEndData
  'turn/end': TurnEndData
  'submission/failed': SubmissionFailedData
  'submission/queued': SubmissionQueuedData
  'server/request': ServerRequestData
}

/** The name of an event type. */
export type SessionEventType = keyof SessionEventMap

/** One durable, deep-frozen event `{ seq, type, data }` (L1.2), discriminated by `type`. */
export type SessionEvent = {
  [K in SessionEventType]: { readonly seq: Seq; readonly type: K; readonly data: SessionEventMap[K] }
}[SessionEventType]

/** An event before the log gives it a `seq`: what `appendBatch` accepts. */
export type NewSessionEvent = {
  [K in SessionEventType]: { readonly type: K; readonly data: SessionEventMap[K] }
}[SessionEventType]

/** Every event type, in the order of L1.7 (`session/fork` first, A2.1). */
export const SESSION_EVENT_TYPES: readonly SessionEventType[] = Object.freeze(
  Object.keys(EVENT_SCOPES) as (keyof typeof EVENT_SCOPES)[],
)
