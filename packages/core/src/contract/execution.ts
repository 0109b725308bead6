import type { JsonValue } from '../foundation/lossless-json.js'
import type { ApprovalOutcome } from './approval-outcome.js'
import type { CallSequence } from './call-sequence.js'
import type { CodeDispatchSink, CodeRuntime } from './code-runtime.js'
import type { UserMessage } from './content.js'
import type { ElicitForm, Elicitor, ElicitReply } from './elicitation.js'
import type { ContextProvenance } from './provenance.js'

/**
 * A scope of a runtime (R1). The runtime implements it; this interface is what
 * definitions, hooks and approvers may see of it.
 */
export interface ToolScope {
  /** The parent scope, or `undefined` for a scope chained to the global layer. */
  readonly parent: ToolScope | undefined
}

/**
 * The frozen identity of one `execute` call (I1.6), shared by every stage (I1.7).
 * `arguments` is absent when the arguments were not lossless JSON (P2.4).
 */
export interface Execution {
  readonly callId: string
  readonly rootCallId: string
  readonly name: string
  readonly arguments?: JsonValue
  readonly scope?: ToolScope
  readonly parent?: symbol
  readonly token: symbol
  readonly signal: AbortSignal
  /** The labelled results in the context the call was made from (H2.2); absent when none. */
  readonly provenance?: ContextProvenance
}

/** The RFC 5424 severities as MCP names them, least severe first (P8.12). */
export const LOG_LEVELS = Object.freeze([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const)

/** One RFC 5424 severity (P8.12). */
export type LogLevel = (typeof LOG_LEVELS)[number]

/** One `log` entry of a body (P8.12). */
export interface LogEntry {
  readonly level: LogLevel
  readonly data: JsonValue
}

/**
 * What a body receives besides its arguments (P8.2). Its functions work detached (P8.3), except
 * `log`, a method of the context.
 */
export interface RunContext extends Execution {
  /** 1 for the first dispatch of the execution, counting up with each retry. */
  readonly attempt: number
  /** Queues a user message for the next step boundary (P8.4). */
  readonly deferContext: (
    message: string | { content: UserMessage['content']; source?: UserMessage['source'] },
  ) => void
  /** Marks this attempt as concluding the turn; only a success carries it (P8.7). */
  readonly concludeTurn: () => void
  /** Sends an ephemeral progress update to `onProgress` listeners (P8.11). */
  readonly progress: (update: JsonValue) => void
  /**
   * Logs `data` at `level` (P8.12): to the `onLog` listener that takes it (an MCP client of a
   * served call), else to `reportError` like the runtime's other diagnostics. A method: call it
   * on the context (`run.log(…)`), not detached.
   */
  log(level: LogLevel, data: JsonValue): void
  /**
   * Asks the person to fill `form` (P8.13–P8.19) through the host's elicitation handler (the
   * input's `elicit`) and resolves with the checked answer: `accept` with the form's values,
   * `decline`, or `cancel` (with a `reason` when nobody could be asked, the handler failed, the
   * answer did not fit, or the call was aborted). Rejects only for a malformed form. A method:
   * call it on the context.
   */
  elicit(form: ElicitForm): Promise<ElicitReply>
  /**
   * The call's idempotency key (F1.2): 64 hex digits, the same for every attempt of the call and,
   * under an agent, for every resume of it, derived from the input's `idempotencyScope` (the
   * session), the call id and the arguments digest (P4.9). Pass it to a backend that dedupes.
   */
  readonly idempotencyKey: string
  /**
   * Records a durable receipt of an external effect (F1.3), e.g. a refund id, to be logged
   * as `tool/effect` before the call's result. Resolves once the receipt is durable (at once
   * when the caller keeps no log); rejects with `RESULT_NOT_SERIALIZABLE` for a receipt that is
   * not lossless JSON, and with the log's error when it could not be recorded.
   */
  readonly recordEffect: (receipt: JsonValue) => Promise<void>
  /**
   * The receipts an earlier attempt of this call recorded, as the input's `receipts` gave them
   * (Y6.18): `[]` on a first run. A call resumed after a crash because one of them is a
   * resumable receipt (`isResumableReceipt`) reads it here to pick up where it left off.
   */
  readonly receipts: readonly JsonValue[]
  /**
   * The input's `fencingToken` (F1.9), absent without one. Under an agent it is the session
   * lease's epoch, larger for every later owner of the session (a worker that took over a
   * crashed turn): pass it with a write to an external system that keeps the largest token it
   * has seen and refuses a smaller one, so a stale owner's late write is refused.
   */
  readonly fencingToken?: number
}

/** Where `recordEffect` receipts go (F1.3): resolves once the receipt is durable. */
export type EffectSink = (effect: {
  readonly callId: string
  readonly name: string
  readonly receipt: JsonValue
}) => Promise<void>

export type { ApprovalOutcome } from './approval-outcome.js'

/** What an approver is asked (P4.2, P4.9). */
export interface ApprovalRequest {
  readonly callId: string
  readonly rootCallId: string
  readonly name: string
  readonly arguments: JsonValue
  readonly argumentsDigest: string
  readonly reason?: string
  readonly scope?: ToolScope
  readonly signal: AbortSignal
}

/**
 * Decides an `ask`; anything but the five outcomes counts as `'unavailable'` (P4.7). An async
 * approver may resolve to any string, because TypeScript widens the literal an `async` arrow
 * returns: so `async () => 'allowed-once'` type-checks without `as const` (P14.6), and the
 * runtime still accepts only the five outcomes.
 */
export type Approver = (
  request: ApprovalRequest,
) => ApprovalOutcome | Promise<ApprovalOutcome | (string & {})>

/** What `runtime.execute` reads, once each, at entry (I1.1). */
export interface ExecuteInput {
  /** Non-empty; the model's tool-call id. */
  callId: string
  /** Defaults to `callId` (I1.5). */
  rootCallId?: string
  /** The tool name the model asked for. */
  name: string
  /** The parsed arguments; snapshotted and frozen at entry (P2.4). */
  arguments: unknown
  /** The caller's cancellation signal. */
  signal: AbortSignal
  /** The scope whose view the call resolves through; none means the global view. */
  scope?: ToolScope
  /** The token of the execution this call is nested in (Code Mode). */
  parent?: symbol
  /** Overrides the runtime's approver for this call (P4.1). */
  approver?: Approver
  /** Answers the body's `run.elicit` forms (P8.15), and those of its Code Mode sub-calls. */
  elicit?: Elicitor
  /** Overrides the runtime's code runtime for a `run_code` call (X1.6). */
  codeRuntime?: CodeRuntime
  /** Receives Code Mode dispatch events of a `run_code` call (X5). */
  onCodeDispatch?: CodeDispatchSink
  /** Namespaces the call's idempotency key, e.g. a session id (F1.2); default `''`. */
  idempotencyScope?: string
  /** Receives the receipts the body records (F1.3); without it they are not kept. */
  onEffect?: EffectSink
  /** The run context's `fencingToken` (F1.9): a whole number >= 0, e.g. a session lease's epoch. */
  fencingToken?: number
  /** Orders this call's policy phases after those of the calls that entered it before (P1.8). */
  sequence?: CallSequence
  /** Receipts an earlier attempt recorded, handed to the body as `run.receipts` (Y6.18). */
  receipts?: readonly JsonValue[]
  /** The provenance of the caller's context, `exec.provenance` (H2.2); the agent loop sets it. */
  provenance?: ContextProvenance
}
