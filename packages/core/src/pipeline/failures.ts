/**
 * The coded failure results the pipeline builds, with their exact messages (SPEC §E and
 * the P items). Every builder returns a deep-frozen `ToolFailure` whose content is
 * `Error: <message>`; none of them throws.
 */
import type { AdditionalContext, ContentBlock } from '../contract/content.js'
import type { ToolFailure } from '../contract/result.js'
import { ERROR_NAMES, errorMessage, readToolError, type ToolErrorCode } from '../foundation/errors.js'
import { vouchFreeze } from '../foundation/frozen.js'
import type { JsonValue } from '../foundation/lossless-json.js'

/** Frozen additional contexts carried from one result to the next; `undefined` when none. */
export type AdditionalContexts = readonly AdditionalContext[] | undefined

/** The one text block of a runtime-made failure (E1.7). */
export function errorContent(message: string): readonly ContentBlock[] {
  return vouchFreeze([Object.freeze({ type: 'text', text: `Error: ${message}` })])
}

/**
 * A frozen failure with the given identity. `content` defaults to `Error: <message>`;
 * `meta` and `contexts` are attached only when present (O1.1, O1.4). The caller passes
 * frozen lossless data only.
 */
export function failure(
  info: { name: string; code: string },
  message: string,
  contexts?: AdditionalContexts,
  content?: readonly ContentBlock[],
  meta?: JsonValue,
): ToolFailure {
  const result: {
    isError: true
    error: ToolFailure['error']
    content: readonly ContentBlock[]
    meta?: JsonValue
    additionalContexts?: readonly AdditionalContext[]
  } = {
    isError: true,
    error: vouchFreeze({ message, info: Object.freeze({ name: info.name, code: info.code }) }),
    content: content ?? errorContent(message),
  }
  if (meta !== undefined) result.meta = meta
  if (contexts !== undefined && contexts.length > 0) result.additionalContexts = contexts
  return Object.freeze(result)
}

/** A failure with a built-in code and that code's table name (E1.1). */
export function coded(code: ToolErrorCode, message: string, contexts?: AdditionalContexts): ToolFailure {
  return failure({ name: ERROR_NAMES[code], code }, message, contexts)
}

/**
 * The failure for a thrown value: a `ToolError` keeps its name, code and message (E1.3);
 * anything else becomes `code` with `<prefix><errorMessage(thrown)>` (E1.4, E2.3).
 */
export function thrown(
  thrownValue: unknown,
  code: ToolErrorCode,
  prefix: string,
  contexts?: AdditionalContexts,
): ToolFailure {
  const known = readToolError(thrownValue)
  if (known !== undefined) return failure(known, known.message, contexts)
  return coded(code, prefix + errorMessage(thrownValue), contexts)
}

/** `unknown tool "<name>"` (P6.6, R4.2). */
export const unknownTool = (name: string, contexts?: AdditionalContexts) =>
  coded('UNKNOWN_TOOL', `unknown tool "${name}"`, contexts)

/** The code-only collapse at entry (M3.1). */
export const collapsed = (name: string) =>
  coded(
    'UNKNOWN_TOOL',
    `unknown tool "${name}": only \`run_code\` is callable directly — call \`${name}\` from inside a \`run_code\` program instead`,
  )

/** Arguments that are not lossless JSON (P2.4). */
export const argumentsNotLossless = () =>
  coded('INVALID_ARGS', 'invalid arguments: arguments are not lossless JSON')

/** An arguments getter that threw (P2.5). */
export const argumentsUnreadable = (error: unknown) =>
  coded('INVALID_ARGS', `invalid arguments: reading the arguments failed: ${errorMessage(error)}`)

/** Cancellation before any body ran (C1.3). */
export const abortedBeforeDispatch = (contexts?: AdditionalContexts) =>
  coded('ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch', contexts)

/** Cancellation after a body was invoked (C1.4). */
export const aborted = (contexts?: AdditionalContexts) => coded('ABORTED', 'tool call aborted', contexts)

/** A pre-execute deny (P3.5). */
export const deniedByPolicy = (name: string, reason: string) =>
  coded('DENIED', `tool "${name}" denied by pre-execute policy: ${reason}`)

/** An ask with no approver anywhere (P4.1). */
export const noApprovalChannel = (name: string) =>
  coded('DENIED', `tool "${name}" requires approval, but there is no approval channel`)

/** The approver said `'rejected'` (P4.4). */
export const userRejected = (name: string) => coded('DENIED', `the user rejected tool "${name}"`)

/** The approver said `'cancelled'` (P4.5). */
export const approvalCancelled = (name: string) =>
  coded('DENIED', `approval for tool "${name}" was cancelled`)

/** The approver said `'unavailable'` or misbehaved (P4.6, P4.7). */
export const approvalUnavailable = (name: string) =>
  coded('DENIED', `tool "${name}" requires approval, but the approval channel is unavailable`)

/** The approver said `'expired'`: a durable approval nobody decided before it expired (P4.10). */
export const approvalExpired = (name: string) =>
  coded('DENIED', `approval for tool "${name}" expired before anyone decided it`)

/**
 * The failure an approver's answer gives a call (P4.4–P4.7, P4.10): `undefined` for
 * `'allowed-once'` (the call goes on), else the `DENIED` that outcome means.
 */
export function approvalFailure(name: string, outcome: string): ToolFailure | undefined {
  switch (outcome) {
    case 'allowed-once':
      return undefined
    case 'rejected':
      return userRejected(name)
    case 'cancelled':
      return approvalCancelled(name)
    case 'expired':
      return approvalExpired(name)
    default:
      return approvalUnavailable(name)
  }
}

/** A guard denial (P5.4). */
export const deniedByGuard = (name: string, reason: string) =>
  coded('DENIED', `tool "${name}" denied by guard: ${reason}`)

/** The hook kinds whose failures are `HOOK_FAILED` (E1.4), as named in messages. */
export type HookKind = 'onPreExecute' | 'guard' | 'wrapExecute' | 'onPostExecute'

/** A hook that returned something it may not return (P3.3, P5.2, P6.12, P10.5). */
export const hookInvalid = (kind: HookKind, detail: string) =>
  coded('HOOK_FAILED', `${kind} handler returned an invalid value: ${detail}`)

/** A hook that threw (P3.6, P5.5, P6.13, P10.14); a thrown `ToolError` keeps its code. */
export const hookThrew = (kind: HookKind, error: unknown) =>
  thrown(error, 'HOOK_FAILED', `${kind} handler failed: `)

/** Output that failed one of the three boundaries (S4.14, P9). */
export const invalidOutput = (name: string, violations: readonly string[], contexts?: AdditionalContexts) =>
  coded('INVALID_TOOL_OUTPUT', `tool "${name}" returned invalid output: ${violations.join('; ')}`, contexts)

/** A field that materialization could not snapshot (P11.2). */
export const notSerializable = (field: string) =>
  coded('RESULT_NOT_SERIALIZABLE', `tool result is not serializable: ${field} is not lossless JSON`)

/** A finalizer return that is neither `undefined` nor content blocks (P11.5). */
export const finalizerReturnedInvalid = (contexts?: AdditionalContexts) =>
  coded(
    'RESULT_NOT_SERIALIZABLE',
    'tool result is not serializable: finalizeContent must return content blocks or undefined',
    contexts,
  )

/** The message of the built-in timeout wrapper (P7.3). */
export const timeoutMessage = (ms: number) => `tool call timed out after ${ms}ms`
