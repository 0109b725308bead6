import { effectOf, isResumableReceipt, type RuntimeScope, type ToolCallBlock } from '@tooltx/core'
import { approvalFailure, isRepeatable } from '@tooltx/core/internal'
import {
  type ApprovalAskedData,
  type InterruptedCall,
  interruptedCalls,
  repairCall,
  repairSession,
  type Session,
  type SessionEvent,
} from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from '../base/agent-runtime.js'
import type { Journal } from '../base/journal.js'
import { toolResultEvent } from '../base/tool-events.js'

/** What `recoverSession` needs from the loop. */
export interface RecoveryOptions {
  readonly runtime: AgentRuntime
  readonly scope: RuntimeScope
  readonly session: Session
  /**
   * Where every event goes: the repairs, and what the input builder records on a call's behalf,
   * so a call's approvals and effects are logged before its result.
   */
  readonly journal: Journal
  /** The turn whose calls were interrupted: the session's latest. */
  readonly turn: number
  /**
   * Builds a call's pipeline input the way the loop does: arguments, idempotency scope, effect
   * sink. An append made on the call's behalf (approval, effect, code dispatch) reports its
   * failure to `fail`, which never throws, so whatever waits on that append still settles.
   */
  readonly input: (block: ToolCallBlock, step: number, fail: (error: unknown) => void) => ToolCallInput
  /**
   * True for a tool the interrupted step's `prepareStep` kept out (T4.5): such a call failed
   * `UNKNOWN_TOOL` before anything ran, so it runs again in `scope` and fails the same way.
   */
  readonly hides?: (name: string) => boolean
}

/**
 * Makes an interrupted session valid again by effect class (F1.4): each call of the latest
 * turn whose `tool/call` is durable, whose result is not and whose body recorded no receipt is
 * run again, in model order, when the tool now visible is `'read'` or `'idempotent'` (with the
 * same idempotency key, since the key derives from the session, the call id and the
 * arguments), and the others get `TOOL_EFFECT_RECORDED` from their receipts or
 * `TOOL_OUTCOME_UNKNOWN`, one by one in model order (`recoverCalls`); then the crash repair
 * (L9) closes the rest: calls never started, the step, the turn. Every event goes through
 * `journal`, one write per call. Resolves once the log is valid; rejects
 * with the first failed append (nothing is fabricated then, L5.5).
 */
export async function recoverSession(options: RecoveryOptions): Promise<void> {
  await recoverCalls({ ...options, calls: interruptedCalls(options.session.events()) })
  await repairSession(options.session)
}

/**
 * The asks of turn `turn` in `events` nobody decided, by call id: a process died while it waited.
 */
function undecidedAsks(events: readonly SessionEvent[], turn: number): Map<string, ApprovalAskedData> {
  const undecided = new Map<string, ApprovalAskedData>()
  for (const e of events) {
    if (e.type === 'approval/asked' && e.data.turn === turn) undecided.set(e.data.callId, e.data)
    if (e.type === 'approval/decided' && e.data.turn === turn) undecided.delete(e.data.callId)
  }
  return undecided
}

/**
 * Answers the given interrupted calls one by one in model order by F1.4's rule, leaving the
 * turn open (F2.7): a call without receipts whose decisions refused it (none allowed it) gets the
 * `DENIED` that decision means, and nothing runs (F2.16, F2.20); a call whose receipts include a
 * resumable one (Y6.19) and whose tool is still visible runs again with those receipts, any
 * other call with receipts gets `TOOL_EFFECT_RECORDED`, a `'read'` or `'idempotent'` one is run
 * again and its result appended, and so is one whose tool the step kept out (`hides`, T4.5),
 * which fails `UNKNOWN_TOOL` without running — a call run again has an ask the dead process left
 * undecided recorded `'cancelled'` first, so its pipeline may ask anew (F2.17); any other gets
 * `TOOL_OUTCOME_UNKNOWN`. A call that lost an append made on its behalf gets no result: the run
 * rejects with that failure once the call settles (L5.5).
 */
export async function recoverCalls(
  options: RecoveryOptions & { readonly calls: readonly InterruptedCall[] },
): Promise<void> {
  const { runtime, scope, journal, turn, input, hides } = options
  const view = runtime.view(scope)
  const undecided = undecidedAsks(options.session.events(), turn)
  for (const { step, block, receipts, decision } of options.calls) {
    const where = { turn, step }
    // A call its decisions refused (and none allowed) never ran: a body runs only once allowed (V1.2).
    const refused = decision === undefined ? undefined : approvalFailure(block.name, decision)
    if (refused !== undefined && receipts.length === 0) {
      journal.stage(toolResultEvent(where, block, refused))
      await journal.flush()
      continue
    }
    const hidden = hides?.(block.name) === true
    const visible = view.get(block.name)
    const resumes = !hidden && visible !== undefined && receipts.some(isResumableReceipt)
    const again = hidden || isRepeatable(effectOf(visible))
    if (resumes || (receipts.length === 0 && again)) {
      // Its pipeline asks again: the ask the dead process left open is closed first (L9.4, F2.17).
      const open = undecided.get(block.id)
      if (open !== undefined) {
        const { step: at, callId, name, argumentsDigest } = open
        const cancelled = { turn, step: at, callId, name, outcome: 'cancelled' as const }
        await journal.record(
          'approval/decided',
          argumentsDigest === undefined ? cancelled : { ...cancelled, argumentsDigest },
        )
      }
      let lost: { readonly error: unknown } | undefined
      const built = input(block, step, (error) => (lost ??= { error }))
      const result = await runtime.execute(resumes ? { ...built, receipts } : built)
      if (lost !== undefined) throw lost.error
      journal.stage(toolResultEvent(where, block, result))
    } else {
      journal.stage(...repairCall(where, block, true, receipts))
    }
    await journal.flush()
  }
}
