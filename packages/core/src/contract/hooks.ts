/** The five hook kinds: handler and decision types (R5, P1). Their lists are in registry/hook-list.ts. */

import type { JsonValue } from '../foundation/lossless-json.js'
import type { AdditionalContext, ContentBlock, UserMessage } from './content.js'
import type { Execution, LogEntry } from './execution.js'
import type { ToolResult } from './result.js'

/** A pre-execute decision (P3.2): there is no way to rewrite arguments. */
export type PreDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason?: string }
  | { kind: 'ask'; reason?: string }

/** `onPreExecute` handler (P3.1): `next()` runs the rest of the chain; the innermost answer is allow. */
export type PreExecuteHandler = (
  exec: Execution,
  next: () => Promise<PreDecision>,
) => PreDecision | Promise<PreDecision>

/** A guard (P5.2): synchronous; a non-empty string denies, `undefined` abstains. */
export type Guard = (exec: Execution) => string | undefined

/** The execution as wrapExecute handlers see it (I1.8): `signal` is writable, AbortSignals only. */
export interface AroundExecution extends Execution {
  signal: AbortSignal
}

/** `wrapExecute` handler (P6.1): returns a result; `next()` may be called again for a fresh attempt. */
export type AroundHandler = (
  exec: AroundExecution,
  next: () => Promise<ToolResult>,
) => ToolResult | Promise<ToolResult>

/** Extra user messages a post-execute decision adds (P10.4); a missing `source` names the tool. */
export type DecisionContexts = readonly (UserMessage | AdditionalContext)[]

/**
 * A post-execute decision (P10.4): accept as is, accept with new content OR a new value
 * (never both), or block with feedback.
 */
export type PostDecision =
  | { kind: 'accept'; value?: undefined; content?: undefined; additionalContexts?: DecisionContexts }
  | { kind: 'accept'; content: ContentBlock[]; value?: undefined; additionalContexts?: DecisionContexts }
  | { kind: 'accept'; value: JsonValue; content?: undefined; additionalContexts?: DecisionContexts }
  | { kind: 'block'; feedback?: ContentBlock[]; additionalContexts?: DecisionContexts }

/** `onPostExecute` handler (P10.1): the innermost answer is a plain accept. */
export type PostExecuteHandler = (
  exec: Execution,
  result: ToolResult,
  next: () => Promise<PostDecision>,
) => PostDecision | Promise<PostDecision>

/** `onResult` observer (P12.1): read-only, synchronous, contained when it throws. */
export type ResultObserver = (exec: Execution, result: ToolResult) => unknown

/** `onProgress` listener (P8.11): ephemeral updates, never in results or logs. */
export type ProgressListener = (exec: Execution, update: JsonValue) => unknown

/**
 * `onLog` listener (P8.12): ephemeral log entries of bodies. Returning `true` takes the entry;
 * an entry no listener takes goes to `reportError`.
 */
export type LogListener = (exec: Execution, entry: LogEntry) => unknown

/** Options of every hook registration (R5.1). */
export interface HookOptions {
  /** Limits the handler to calls in this scope or below. */
  scope?: object
}
