/**
 * An imported tool's call made as an MCP task (Y6.13–Y6.17, Y6.27): create the task, record its
 * id as a resumable receipt before waiting, poll `tasks/get` at the server's interval (each
 * status a progress update), answering the task's input requests on the 2026-07-28 Tasks
 * extension, then take the result (`tasks/result` of the 2025 utility, the last poll's `result`
 * of the extension). A call resumed after a crash finds the task id in its receipts and polls
 * that task instead of calling the tool again.
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
import { offersTaskExtension } from '../tasks-extension.js'
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
    pollIntervalMs?: unknown
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
    pollInterval: pollOf(task.pollIntervalMs ?? task.pollInterval),
  }
}

/**
 * The extension's input requests of one task (Y6.27, Y6.29): each key's request is answered
 * once (or refused, Y6.30) by the plan's answerer, and its answer sent with `tasks/update`
 * until the server took it, across polls.
 */
class TaskInputAnswers {
  readonly #answers = new Map<string, JsonObject>()
  readonly #delivered = new Set<string>()

  constructor(
    private readonly plan: ImportPlan,
    private readonly taskId: string,
    private readonly meta: Record<string, unknown>,
  ) {}

  async answer(requests: unknown, run: TaskRun): Promise<void> {
    if (requests === null || typeof requests !== 'object') return
    const fresh: JsonObject = {}
    for (const [key, request] of Object.entries(requests)) {
      if (!this.#answers.has(key) && this.plan.answerInput !== undefined)
        this.#answers.set(key, await this.plan.answerInput(request, run.signal))
      const answer = this.#answers.get(key)
      if (answer !== undefined && !this.#delivered.has(key)) fresh[key] = answer
    }
    if (Object.keys(fresh).length === 0) return
    const params = { taskId: this.taskId, inputResponses: fresh, ...this.meta }
    await send(this.plan, { method: 'tasks/update', params }, run)
    for (const key of Object.keys(fresh)) this.#delivered.add(key)
  }
}

/** The tool result of a terminal task of the extension (Y6.27): its `result`, or its `error` as a failure. */
function extensionResult(answer: Record<string, unknown>, plan: ImportPlan, taskId: string): CallToolResult {
  if (answer.status === 'failed') {
    const error = answer.error as { code?: unknown; message?: unknown } | undefined
    throw remoteError(
      `${toolWhere(plan)}: its task ${taskId} failed with error ${String(error?.code)}: ${String(error?.message)}`,
    )
  }
  const result = answer.result as CallToolResult | undefined
  if (!Array.isArray(result?.content))
    throw remoteError(`${toolWhere(plan)}: the result of task ${taskId} is not a tool result`)
  return result
}

/**
 * Runs the call as a task and resolves with the tool's `CallToolResult` (Y6.13). A server that
 * answers the creation with a plain result (it ran the call at once) has that result taken as
 * is. An aborted call cancels the task (`tasks/cancel`, not awaited) and fails `ABORTED`; a task
 * cancelled by someone else fails `MCP_REMOTE_ERROR`; a poll that finds the connection down
 * waits and polls again, within the call's timeout (Y6.17).
 */
export async function callAsTask(plan: ImportPlan, args: JsonObject, run: TaskRun): Promise<CallToolResult> {
  // The 2026-07-28 extension when the server offers it (every request declares it), else the
  // 2025-11-25 utility.
  const extension = offersTaskExtension(plan.link.client)
  const meta = extension ? { _meta: plan.taskMeta ?? {} } : {}
  let taskId = receiptTask(run.receipts, plan)
  let poll = DEFAULT_POLL_MS
  if (taskId === undefined) {
    const params = { name: plan.tool.name, arguments: args, ...(extension ? meta : { task: {} }) }
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
  const inputs = new TaskInputAnswers(plan, id, meta)
  let last: Record<string, unknown> = {}
  for (let polls = 1; ; polls++) {
    if (run.signal.aborted) {
      send(
        plan,
        { method: 'tasks/cancel', params: { taskId: id, ...meta } },
        { ...run, signal: new AbortController().signal },
      ).catch(() => undefined)
      throw codedError('ABORTED', 'tool call aborted')
    }
    // The server may be restarting: its task lives on in its store, so poll again (Y6.17).
    const closed = (error: unknown) => {
      if (!(error instanceof ToolError && error.code === CONNECTION_CLOSED) || run.signal.aborted) throw error
      return undefined
    }
    const answer = await send(plan, { method: 'tasks/get', params: { taskId: id, ...meta } }, run).catch(
      closed,
    )
    if (answer !== undefined) {
      last = answer
      const task = taskOf(answer, plan)
      poll = task.pollInterval
      const why = task.statusMessage === undefined ? '' : `: ${task.statusMessage}`
      run.progress({ progress: polls, message: `task ${id} ${task.status}${why}` })
      if (task.status === 'cancelled')
        throw remoteError(`${toolWhere(plan)}: its task ${id} was cancelled before it ended${why}`)
      if (isTerminal(task.status)) break
      if (extension && task.status === 'input_required')
        await inputs.answer(answer.inputRequests, run).catch(closed)
    }
    await sleep(poll, run.signal)
  }
  if (extension) return extensionResult(last, plan, id)
  const result = await send(plan, { method: 'tasks/result', params: { taskId: id } }, run)
  if (!Array.isArray((result as { content?: unknown }).content))
    throw remoteError(`${toolWhere(plan)}: tasks/result for task ${id} is not a tool result`)
  return result
}
