/**
 * Policy what-if over a recorded session (A1): every call the log holds is decided again by a
 * runtime's current pre-execute policy and guards, without running any body, and compared with
 * what was recorded.
 */
import {
  type ApprovalOutcome,
  type Approver,
  type ContentBlock,
  type ContextProvenance,
  checkToolArguments,
  type ErrorInfo,
  type JsonValue,
  parseToolArguments,
  type RuntimeScope,
  type ToolResult,
  type ToolRuntime,
} from '@tooltx/core'
import { definitionError } from '@tooltx/core/internal'
import type { SessionEvent } from '@tooltx/session'
import { malformedArguments } from './base/malformed-arguments.js'
import { PausableDeadline } from './base/pausable-deadline.js'
import { ContextProvenanceTracker } from './context/context-provenance.js'

/**
 * How a call is decided (A1.2): `execute` (allowed; its body runs, whatever it then returns),
 * `ask` (the approver is asked; nothing but the person's answer stops it), `deny` (a pre-execute
 * denial or a guard), `invalid` (allowed, but the arguments fail the tool's schema),
 * `policy-failed` (a pre-execute handler or guard threw or answered wrongly), `unknown-tool`,
 * `not-run` (a nested call whose `run_code` call would not run), and `unknown` (the log holds
 * no decision: the call was aborted before it was decided, or its outcome was never recorded).
 */
export type AuditDecisionKind =
  | 'execute'
  | 'ask'
  | 'deny'
  | 'invalid'
  | 'policy-failed'
  | 'unknown-tool'
  | 'not-run'
  | 'unknown'

/** One decision and, where there is one, its reason (the denial, the ask's reason, the violations). */
export interface AuditDecision {
  readonly kind: AuditDecisionKind
  readonly reason?: string
}

/** One recorded call, decided before (from the log) and after (by the runtime now). */
export interface AuditedCall {
  /** The seq of its `tool/call` or, for a nested Code Mode call, its `tool/code-dispatch-start`. */
  readonly seq: number
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly name: string
  /** For a nested Code Mode call: the model's `run_code` call and the call that made it. */
  readonly rootCallId?: string
  readonly parentCallId?: string
  readonly before: AuditDecision
  readonly after: AuditDecision
  /** True iff `before` is a recorded decision (not `unknown`) of another kind than `after`. */
  readonly changed: boolean
}

/** The audit of one session: its calls in seq order and how many would be decided differently. */
export interface SessionAudit {
  readonly calls: readonly AuditedCall[]
  readonly changed: number
}

/** Options of `auditSession`. */
export interface AuditOptions {
  /** The scope the calls resolve through, as the agent's did (default: the global view). */
  scope?: RuntimeScope
  /**
   * How long the policy may take to decide one call, in ms (default `DEFAULT_HOOK_TIMEOUT_MS`):
   * the time its hooks (pre-execute handlers, guards, wrappers, post-execute handlers, a tool's
   * own hooks) spend on the call, not counting its nested calls, which have their own bound.
   * A call whose hooks do not settle within it is `policy-failed` (A1.9).
   */
  hookTimeoutMs?: number
}

/** The default bound on the time a policy may take to decide one call (A1.9). */
export const DEFAULT_HOOK_TIMEOUT_MS = 5_000

interface Recorded {
  readonly isError: boolean
  readonly error?: ErrorInfo
  readonly content: readonly ContentBlock[]
}

/** One call being audited, with what the log and the audit learn about it. */
class Item {
  readonly children: Item[] = []
  result: Recorded | undefined
  approval: { reason?: string; outcome?: ApprovalOutcome } | undefined
  after: AuditDecision | undefined
  asked: { reason?: string } | undefined
  allowed = false
  /** The bound on the policy's time for this call, while it is being audited. */
  bound: PausableDeadline | undefined
  /** Why the raw arguments of a model-direct call are not JSON: the loop ran no pipeline (L4.7). */
  malformed: string | undefined

  constructor(
    readonly seq: number,
    readonly turn: number,
    readonly step: number,
    readonly callId: string,
    readonly name: string,
    readonly args: JsonValue,
    readonly nested: { rootCallId: string; parentCallId: string } | undefined,
  ) {}
}

const STAND_IN: ToolResult = Object.freeze({
  isError: true,
  error: Object.freeze({
    message: 'not executed: this call is being audited',
    info: Object.freeze({ name: 'AuditError', code: 'AUDITED' }),
  }),
  content: Object.freeze([
    Object.freeze({ type: 'text', text: 'Error: not executed: this call is being audited' }),
  ]),
}) as ToolResult

/** The text of content blocks without the `Error: ` of a failure. */
function textOf(content: readonly ContentBlock[]): string {
  const text = content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('')
  return text.startsWith('Error: ') ? text.slice('Error: '.length) : text
}

const key = (turn: number, callId: string): string => `${turn}\u0000${callId}`

/** The calls of `events`, nested ones under the call that made them, with their recorded outcome. */
function recordedCalls(events: readonly SessionEvent[]): { roots: Item[]; all: Item[] } {
  const roots: Item[] = []
  const all: Item[] = []
  const open = new Map<string, Item>()
  for (const event of events) {
    switch (event.type) {
      case 'tool/call': {
        const { turn, step, callId, name } = event.data
        const item = new Item(
          event.seq,
          turn,
          step,
          callId,
          name,
          parseToolArguments(event.data.arguments),
          undefined,
        )
        item.malformed = malformedArguments(event.data.arguments)
        open.set(key(turn, callId), item)
        roots.push(item)
        all.push(item)
        break
      }
      case 'tool/code-dispatch-start': {
        const { turn, step, subCallId, name, rootCallId, parentCallId } = event.data
        const nested = { rootCallId, parentCallId }
        const item = new Item(event.seq, turn, step, subCallId, name, event.data.arguments, nested)
        const parent = open.get(key(turn, parentCallId))
        open.set(key(turn, subCallId), item)
        // A dispatch whose parent the log does not hold is audited as if the model made it.
        ;(parent === undefined ? roots : parent.children).push(item)
        all.push(item)
        break
      }
      case 'tool/result':
      case 'tool/code-dispatch': {
        const id = event.type === 'tool/result' ? event.data.callId : event.data.subCallId
        const item = open.get(key(event.data.turn, id))
        if (item !== undefined) item.result = event.data
        break
      }
      case 'approval/asked': {
        const item = open.get(key(event.data.turn, event.data.callId))
        if (item !== undefined)
          item.approval = event.data.reason === undefined ? {} : { reason: event.data.reason }
        break
      }
      case 'approval/decided': {
        const approval = open.get(key(event.data.turn, event.data.callId))?.approval
        if (approval !== undefined) approval.outcome = event.data.outcome
        break
      }
      default:
        break
    }
  }
  return { roots, all }
}

/** Pre-execute and guard failures, by the start of their message (P3.6, P5.5). */
const POLICY_FAILURE = /^(onPreExecute|guard) handler (failed|returned an invalid value)/

/** What the log says was decided for a call (A1.2). */
function recordedDecision(item: Item): AuditDecision {
  const { result, approval } = item
  const asked: AuditDecision =
    approval?.reason === undefined ? { kind: 'ask' } : { kind: 'ask', reason: approval.reason }
  if (result === undefined) return approval === undefined ? { kind: 'unknown' } : asked
  if (!result.isError) return approval === undefined ? { kind: 'execute' } : asked
  const reason = textOf(result.content)
  switch (result.error?.code) {
    case 'DENIED':
      // A denial after an approved ask is a guard's; any other follows the person's answer.
      if (approval !== undefined)
        return approval.outcome === 'allowed-once' ? { kind: 'deny', reason } : asked
      return reason.includes('requires approval, but there is no approval channel')
        ? { kind: 'ask' }
        : { kind: 'deny', reason }
    case 'INVALID_ARGS':
      return { kind: 'invalid', reason }
    case 'UNKNOWN_TOOL':
      return { kind: 'unknown-tool', reason }
    case 'ABORTED_BEFORE_DISPATCH':
    case 'TOOL_NOT_STARTED':
    case 'TOOL_OUTCOME_UNKNOWN':
      return approval === undefined ? { kind: 'unknown', reason } : asked
    case 'HOOK_FAILED':
      if (POLICY_FAILURE.test(reason)) return { kind: 'policy-failed', reason }
      return approval === undefined ? { kind: 'execute' } : asked
    default:
      return approval === undefined ? { kind: 'execute' } : asked
  }
}

/** What the runtime decides now, from the audit's marks and the result (A1.1). */
async function currentDecision(item: Item, result: ToolResult, runtime: ToolRuntime, scope?: RuntimeScope) {
  if (!item.allowed) {
    const reason = result.isError ? result.error.message : 'the call was not decided'
    switch (result.isError ? result.error.info.code : undefined) {
      case 'DENIED':
        return { kind: 'deny', reason } as const
      case 'INVALID_ARGS':
        return { kind: 'invalid', reason } as const
      case 'UNKNOWN_TOOL':
        return { kind: 'unknown-tool', reason } as const
      default:
        return { kind: 'policy-failed', reason } as const
    }
  }
  const def = runtime.view(scope).get(item.name)
  if (def === undefined) return { kind: 'unknown-tool', reason: `unknown tool "${item.name}"` } as const
  const checked = checkToolArguments(def, item.args)
  const outcome = checked instanceof Promise ? await checked.catch(() => undefined) : checked
  if (outcome !== undefined && !outcome.ok) {
    return { kind: 'invalid', reason: `invalid arguments: ${outcome.violations.join('; ')}` } as const
  }
  if (item.asked === undefined) return { kind: 'execute' } as const
  return item.asked.reason === undefined
    ? ({ kind: 'ask' } as const)
    : ({ kind: 'ask', reason: item.asked.reason } as const)
}

/**
 * Audits the calls of `events` against `runtime` as it is now (A1.1): every model-direct call
 * (`tool/call`, its raw arguments parsed as the loop parses them, L4.1) and every nested Code
 * Mode call (`tool/code-dispatch-start` and `tool/code-dispatch`, with the execution of the
 * call that made it as `parent`) goes through `runtime.execute`, so its pre-execute policy,
 * approval step and guards decide it; an `ask` is answered by an approver that only notes it
 * ("would ask") and lets the guards run. No body runs: for the duration of the audit a guard
 * registered last notes that a call was allowed and a `wrapExecute` handler registered last
 * returns a stand-in failure instead of calling `next()` (wrappers registered before it run
 * around it). The allowed arguments are then validated against the tool's schema. A policy that
 * throws is that call's `policy-failed`, and so is one whose hooks do not settle within
 * `hookTimeoutMs` (A1.9): the audit goes on with the next call, so this function never rejects,
 * and never hangs, for anything a policy does. Calls are audited one at a time in seq order, so
 * the same log and policy give the same audit. A bad `hookTimeoutMs` throws `INVALID_DEFINITION`.
 */
export async function auditSession(
  events: readonly SessionEvent[],
  runtime: ToolRuntime,
  options: AuditOptions = {},
): Promise<SessionAudit> {
  const { scope } = options
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  if (!Number.isSafeInteger(hookTimeoutMs) || hookTimeoutMs < 1) {
    throw definitionError(
      `auditSession: hookTimeoutMs must be a whole number of milliseconds, at least 1, got ${String(hookTimeoutMs)}`,
    )
  }
  const { roots, all } = recordedCalls(events)
  const hookOptions = scope === undefined ? undefined : { scope }
  // The call being decided; sequential audits make the innermost one the latest started. A call
  // given up on (its policy did not settle) has its signal aborted, so should its hooks settle
  // later, they are not taken for the call then being decided, which may share its id.
  const stack: Item[] = []
  const current = (exec: { callId: string; signal: AbortSignal }): Item | undefined => {
    const top = stack.at(-1)
    return top?.callId === exec.callId && !exec.signal.aborted ? top : undefined
  }
  const audit = async (
    item: Item,
    parent: symbol | undefined,
    provenance?: ContextProvenance,
  ): Promise<void> => {
    if (item.malformed !== undefined) {
      // The loop fails such a call without a pipeline, so no policy can decide it either.
      item.after = { kind: 'invalid', reason: `invalid arguments: ${item.malformed}` }
      return
    }
    const approver: Approver = (request) => {
      item.asked = request.reason === undefined ? {} : { reason: request.reason }
      return 'allowed-once'
    }
    const controller = new AbortController()
    const bound = new PausableDeadline(hookTimeoutMs)
    item.bound = bound
    stack.push(item)
    let result: ToolResult
    try {
      const executed = runtime.execute({
        callId: item.callId,
        name: item.name,
        arguments: item.args,
        signal: controller.signal,
        approver,
        ...(scope === undefined ? {} : { scope }),
        ...(parent === undefined ? {} : { parent }),
        ...(item.nested === undefined ? {} : { rootCallId: item.nested.rootCallId }),
        ...(provenance === undefined ? {} : { provenance }),
      })
      result = await Promise.race([executed, bound.expired])
    } catch (error) {
      if (error === bound) {
        controller.abort()
        const stage = item.allowed
          ? 'a wrapper or post-execute handler'
          : 'a pre-execute handler, the approval step or a guard'
        item.after = {
          kind: 'policy-failed',
          reason: `the policy did not settle within ${hookTimeoutMs} ms (${stage} never returned), so its decision is unknown`,
        }
        return
      }
      const message = error instanceof Error ? error.message : String(error)
      item.after = { kind: 'policy-failed', reason: message }
      return
    } finally {
      bound.stop()
      stack.pop()
    }
    item.after = await currentDecision(item, result, runtime, scope)
  }
  const offGuard = runtime.guard((exec) => {
    const item = current(exec)
    if (item !== undefined) item.allowed = true
    return undefined
  }, hookOptions)
  const offWrap = runtime.wrapExecute(async (exec) => {
    const item = current(exec)
    if (item === undefined) return STAND_IN
    // The nested calls are bounded one by one; their time is not this call's policy's.
    item.bound?.pause()
    try {
      for (const child of item.children) await audit(child, exec.token)
    } finally {
      item.bound?.resume()
    }
    return STAND_IN
  }, hookOptions)
  // A model-direct call sees the provenance of the context its reply answered, as in the loop (H5.6).
  const context = new ContextProvenanceTracker()
  let fed = 0
  try {
    for (const item of roots) {
      while (fed < events.length && events[fed]!.seq < item.seq) context.follow(events[fed++]!)
      await audit(item, undefined, context.of(item.args))
    }
  } finally {
    offGuard()
    offWrap()
  }
  const calls = all.map((item): AuditedCall => {
    const before = recordedDecision(item)
    const after = item.after ?? { kind: 'not-run', reason: 'its run_code call would not run' }
    const changed = before.kind !== 'unknown' && before.kind !== after.kind
    const base = { seq: item.seq, turn: item.turn, step: item.step, callId: item.callId, name: item.name }
    const nested = item.nested ?? {}
    return Object.freeze({ ...base, ...nested, before, after, changed })
  })
  return Object.freeze({ calls: Object.freeze(calls), changed: calls.filter((c) => c.changed).length })
}
