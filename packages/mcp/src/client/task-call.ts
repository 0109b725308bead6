/**
 * An imported tool's call made as an MCP task (Y6.13–Y6.17): create the task, record its id as
 * a resumable receipt before waiting, poll `tasks/get` at the server's interval (each status a
 * progress update), then fetch `tasks/result`. A call resumed after a crash finds the task id in
 * its receipts and polls that task instead of calling the tool again.
 */
import type { CallToolResult } from '@modelcontextprotocol/client'
import {
  isResumableReceipt,
  type JsonObject,
  type JsonValue,
  RESUMABLE_RECEIPT_KEY,
  ToolError,
} from '@tooltx/core'
import { codedError, sleep } from '@tooltx/core/internal'
import { isTerminal, type TaskStatus } from '../task-store.js'
import { CONNECTION_CLOSED } from './client-link.js'
import { type ImportPlan, send, toolWhere } from './remote-call.js'
import { remoteError } from './remote-failure.js'

/** What a task call needs of the run context. */
export interface TaskRun {
  readonly signal: AbortSignal
  progress(update: JsonValue): void
  recordEffect(receipt: JsonValue): Promise<void>
  readonly receipts: readonly JsonValue[]
}

/** The receipt a task call records (Y6.14): resumable, naming the server, the tool and the task. */
export interface TaskReceipt {
  readonly [RESUMABLE_RECEIPT_KEY]: true
  readonly mcpTask: { readonly server: string; readonly tool: string; readonly taskId: string }
}

/** Bounds on the server's suggested poll interval, in ms (Y6.15). */
export const MIN_POLL_MS = 50
export const MAX_POLL_MS = 30_000
const DEFAULT_POLL_MS = 1_000

const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled'])

/** The task id of an earlier attempt's receipt for this server and tool, if any (Y6.16). */
export function receiptTask(receipts: readonly JsonValue[], plan: ImportPlan): string | undefined {
  for (const receipt of [...receipts].reverse()) {
    if (!isResumableReceipt(receipt)) continue
    const task = (receipt as { mcpTask?: { server?: unknown; tool?: unknown; taskId?: unknown } }).mcpTask
    if (task?.server === plan.server && task.tool === plan.tool.name && typeof task.taskId === 'string')
      return task.taskId
  }
  return undefined
}

/** The server's poll interval clamped to [MIN_POLL_MS, MAX_POLL_MS], or the default. */
const pollOf = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value)
    ? Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, value))
    : DEFAULT_POLL_MS

/** A task object from the server's answer, checked (`taskId` a string, a known status). */
function taskOf(
  value: unknown,
  plan: ImportPlan,
): { taskId: string; status: TaskStatus; statusMessage?: string; pollInterval: number } {
  const task = value as {
    taskId?: unknown
    status?: unknown
    statusMessage?: unknown
    pollInterval?: unknown
  } | null
  if (
    task === null ||
    typeof task !== 'object' ||
    typeof task.taskId !== 'string' ||
    !STATUSES.has(task.status as string)
  )
    throw remoteError(
      `${toolWhere(plan)} answered with a malformed task: ${JSON.stringify(value)?.slice(0, 200)}`,
    )
  return {
    taskId: task.taskId,
    status: task.status as TaskStatus,
    ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
    pollInterval: pollOf(task.pollInterval),
  }
}

/**
 * Runs the call as a task and resolves with the tool's `CallToolResult` (Y6.13). A server that
 * answers the creation with a plain result (it ran the call at once) has that result taken as
 * is. An aborted call cancels the task (`tasks/cancel`, not awaited) and fails `ABORTED`; a task
 * cancelled by someone else fails `MCP_REMOTE_ERROR`; a poll that finds the connection down
 * waits and polls again, within the call's timeout (Y6.17).
 */
export async function callAsTask(plan: ImportPlan, args: JsonObject, run: TaskRun): Promise<CallToolResult> {
  let taskId = receiptTask(run.receipts, plan)
  let poll = DEFAULT_POLL_MS
  if (taskId === undefined) {
    const params = { name: plan.tool.name, arguments: args, task: {} }
    const created = await send(plan, { method: 'tools/call', params }, run)
    const raw = (created as { task?: unknown }).task
    if (raw === undefined) return created
    const task = taskOf(raw, plan)
    taskId = task.taskId
    poll = task.pollInterval
    const receipt: TaskReceipt = {
      [RESUMABLE_RECEIPT_KEY]: true,
      mcpTask: { server: plan.server, tool: plan.tool.name, taskId },
    }
    await run.recordEffect(receipt as unknown as JsonValue)
  }
  const id = taskId
  for (let polls = 1; ; polls++) {
    if (run.signal.aborted) {
      send(
        plan,
        { method: 'tasks/cancel', params: { taskId: id } },
        { ...run, signal: new AbortController().signal },
      ).catch(() => undefined)
      throw codedError('ABORTED', 'tool call aborted')
    }
    let task: ReturnType<typeof taskOf> | undefined
    try {
      task = taskOf(await send(plan, { method: 'tasks/get', params: { taskId: id } }, run), plan)
    } catch (error) {
      // The server may be restarting: its task lives on in its store, so poll again (Y6.17).
      if (!(error instanceof ToolError && error.code === CONNECTION_CLOSED) || run.signal.aborted) throw error
    }
    if (task !== undefined) {
      poll = task.pollInterval
      const why = task.statusMessage === undefined ? '' : `: ${task.statusMessage}`
      run.progress({ progress: polls, message: `task ${id} ${task.status}${why}` })
      if (task.status === 'cancelled')
        throw remoteError(`${toolWhere(plan)}: its task ${id} was cancelled before it ended${why}`)
      if (isTerminal(task.status)) break
    }
    await sleep(poll, run.signal)
  }
  const result = await send(plan, { method: 'tasks/result', params: { taskId: id } }, run)
  if (!Array.isArray((result as { content?: unknown }).content))
    throw remoteError(`${toolWhere(plan)}: tasks/result for task ${id} is not a tool result`)
  return result
}
