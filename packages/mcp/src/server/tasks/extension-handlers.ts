/**
 * The Tasks extension of the 2026-07-28 revision (`io.modelcontextprotocol/tasks`, Y6.22–Y6.26)
 * on one per-request SDK server: the task a `tools/call` creates, `tasks/get` with the task's
 * input requests or result inlined, `tasks/update` carrying answers, `tasks/cancel`; each
 * answered from the store, so any instance on it can answer.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  type Server,
  type ServerContext,
  type StandardSchemaV1,
} from '@modelcontextprotocol/server'
import { isTerminal, type TaskRecord } from '../../task-store.js'
import { TASKS_EXTENSION } from '../../tasks-extension.js'
import { type McpTask, type ServedTasks, toMcpTask } from './served-tasks.js'

/** True iff the request of `ctx` declares the extension in its per-request capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as
    | Record<string, { extensions?: Record<string, unknown> } | undefined>
    | undefined
  return envelope?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS_EXTENSION] !== undefined
}

/** A task's common fields as the extension names them (`ttlMs`, `pollIntervalMs`). */
function extensionFields(task: McpTask) {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl,
    pollIntervalMs: task.pollInterval,
  }
}

/** The `CreateTaskResult` of a new task (Y6.22). */
export const createTaskResult = (task: McpTask) => ({ resultType: 'task', ...extensionFields(task) })

/**
 * The `tasks/get` answer for `record` (Y6.22): `inputRequests` while `input_required`; a
 * terminal task with a stored tool result is `completed` with it as `result`, an `isError` one
 * included, since the extension keeps `failed` for JSON-RPC errors, which a served call never
 * ends with.
 */
export function detailedTask(record: TaskRecord) {
  const fields = extensionFields(toMcpTask(record))
  if (record.status === 'input_required')
    return { ...fields, inputRequests: JSON.parse(record.inputRequests ?? '{}') as object }
  if (isTerminal(record.status) && record.result !== undefined)
    return { ...fields, status: 'completed', result: JSON.parse(record.result) as object }
  return fields
}

/** `params: { taskId: string }`, checked; the SDK lifts `inputResponses` out before this runs. */
const TASK_PARAMS: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'tooltx',
    validate: (value) => {
      const taskId = (value as { taskId?: unknown } | null)?.taskId
      return typeof taskId === 'string'
        ? { value: { taskId } }
        : { issues: [{ message: 'params.taskId must be a string' }] }
    },
  },
}

/** The extension's methods are not in the SDK's method map: this view registers them. */
type ExtensionHandler = (
  method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
  schemas: { params: StandardSchemaV1<unknown, { taskId: string }> },
  handler: (params: { taskId: string }, ctx: ServerContext) => Promise<object>,
) => void

/**
 * Registers `tasks/get`, `tasks/update` and `tasks/cancel` on a 2026-07-28 `server` (Y6.22,
 * Y6.24, Y6.25). A request that does not declare the extension is error -32021 naming it.
 */
export function serveExtensionRequests(server: Server, tasks: ServedTasks): void {
  const on = server.setRequestHandler.bind(server) as unknown as ExtensionHandler
  const declared = (ctx: ServerContext) => {
    if (!declaresTasks(ctx))
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        `declare the ${TASKS_EXTENSION} extension in the request's client capabilities to use tasks`,
      )
  }
  on('tasks/get', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    declared(ctx)
    return detailedTask(await tasks.record(taskId))
  })
  on('tasks/update', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    declared(ctx)
    await tasks.update(taskId, ctx.mcpReq.inputResponses as Record<string, unknown> | undefined)
    return {}
  })
  on('tasks/cancel', { params: TASK_PARAMS }, async ({ taskId }, ctx) => {
    declared(ctx)
    await tasks.record(taskId)
    // Cancellation is acknowledged even when the task already ended (the extension's rule).
    await tasks.cancel(taskId).catch(() => undefined)
    return {}
  })
}
