import {
  type ExecuteInput,
  type JsonValue,
  stringifyJson,
  type ToolCallBlock,
  type ToolFailure,
  type ToolResult,
} from '@tooltx/core'
import { ERROR_NAMES, errorMessage } from '@tooltx/core/internal'
import type { Session, StepRef } from '@tooltx/session'
import { recordingApprover } from './approvals/recording-approver.js'
import { Journal } from './base/journal.js'
import { effectSink, toolCallEvent, toolResultEvent } from './base/tool-events.js'

/** Runs one call: `runtime.execute`, or whatever the caller wraps around it. */
export type ExecuteCall = (input: ExecuteInput) => Promise<ToolResult>

/** Records calls that come from outside the loop (an MCP client's, say) in a session log. */
export interface ServedCallRecorder {
  /**
   * Records `input` and runs it through `execute` (Y3.5): once the calls admitted before it
   * are done, appends `turn/start`, `step/start`, an `assistant/message` holding the call as its
   * one tool-call block (arguments as their JSON text) and `tool/call` in one durable write, runs
   * the call with its approvals recorded (L8), and appends `tool/result`, `step/end` and
   * `turn/end` (`aborted` when the call's signal aborted, else `completed`). A call the log
   * cannot take is not run: it fails `TOOL_NOT_STARTED` saying why. Never rejects for a
   * failed write; each one also goes to `reportError`.
   */
  run(input: ExecuteInput, execute: ExecuteCall): Promise<ToolResult>
  /** Refuses every call not yet started (`TOOL_NOT_STARTED`) and resolves once the running one is recorded. */
  close(): Promise<void>
}

/** The failure of a call the session log could not take, so it never ran. */
function notRecorded(why: string): ToolFailure {
  const message = `tool call was not started: the session log could not record it (${why})`
  const code = 'TOOL_NOT_STARTED'
  return {
    isError: true,
    error: { message, info: { name: ERROR_NAMES[code], code } },
    content: [{ type: 'text', text: `Error: ${message}` }],
  }
}

/** The latest turn number of `session`'s log, 0 before its first turn. */
function latestTurn(session: Session): number {
  const start = session.events().findLast((event) => event.type === 'turn/start')
  return start?.type === 'turn/start' ? start.data.turn : 0
}

/**
 * A recorder of served calls into `session` (Y3.5): each call is one turn of one step, and
 * calls are admitted one at a time in arrival order, because a step's call must have its
 * result before the next step's `assistant/message` may be logged. After a write that lost a
 * call's result (the log then ends inside that turn, which reopening the session repairs,
 * L9) no later call runs.
 */
export function servedCallRecorder(
  session: Session,
  options: { reportError?: (error: unknown) => void } = {},
): ServedCallRecorder {
  const report = options.reportError ?? ((error: unknown) => console.error(error))
  // The recorder's one writer: a call's approvals and effects are logged before its result.
  const journal = new Journal(session)
  let queue: Promise<unknown> = Promise.resolve()
  let broken: string | undefined
  let closed = false

  async function record(input: ExecuteInput, execute: ExecuteCall): Promise<ToolResult> {
    if (closed) return notRecorded('the server is shutting down')
    if (broken !== undefined) return notRecorded(broken)
    const where: StepRef = { turn: latestTurn(session) + 1, step: 1 }
    const block: ToolCallBlock = {
      type: 'tool-call',
      id: input.callId,
      name: input.name,
      arguments: stringifyJson((input.arguments ?? {}) as JsonValue),
    }
    const lost = (error: unknown) => {
      broken ??= `an earlier write failed: ${errorMessage(error)}; restart the server, which repairs the log`
      report(error)
    }
    try {
      journal.stage(
        { type: 'turn/start', data: { turn: where.turn } },
        { type: 'step/start', data: where },
        { type: 'assistant/message', data: { ...where, content: [block] } },
        toolCallEvent(where, block),
      )
      await journal.flush()
    } catch (error) {
      // The write was all or nothing: the log is unchanged and a later call may still be taken.
      report(error)
      return notRecorded(errorMessage(error))
    }
    const recorded: ExecuteInput = {
      ...input,
      idempotencyScope: session.id,
      onEffect: effectSink(journal, where, block, lost),
      fencingToken: session.epoch,
      ...(input.approver === undefined
        ? {}
        : { approver: recordingApprover(input.approver, journal, where, lost) }),
    }
    let result: ToolResult
    try {
      result = await execute(recorded)
    } catch (error) {
      // An invariant breach: the call has no result to log.
      lost(error)
      throw error
    }
    const reason = input.signal.aborted ? 'aborted' : 'completed'
    journal.stage(
      toolResultEvent(where, block, result),
      { type: 'step/end', data: where },
      { type: 'turn/end', data: { turn: where.turn, reason } },
    )
    await journal.flush().catch(lost)
    // The caller gets the call's own result: it ran, whatever the log kept.
    return result
  }

  return {
    run(input, execute) {
      const done = queue.then(() => record(input, execute))
      queue = done.catch(() => undefined)
      return done
    },
    async close() {
      closed = true
      await queue
    },
  }
}
