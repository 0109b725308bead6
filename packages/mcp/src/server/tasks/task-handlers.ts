/**
 * The Tasks utility on one SDK server session (Y6.1, Y6.5–Y6.7, Y6.10): the capability, the
 * `execution.taskSupport` of long-running tools, and the `tasks/*` requests, each answered from
 * the store so any instance can answer.
 */
import type { Server } from '@modelcontextprotocol/server'
import type { ServedTasks } from './served-tasks.js'

/** The server capability announcing tasks for `tools/call`, with list and cancel. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } }

/** `listing` with `execution.taskSupport: 'optional'` on each long-running tool (Y6.1). */
export function withTaskSupport<L extends { tools: { name: string }[] }>(listing: L, tasks: ServedTasks): L {
  return {
    ...listing,
    tools: listing.tools.map((tool) =>
      tasks.tools.has(tool.name) ? { ...tool, execution: { taskSupport: 'optional' } } : tool,
    ),
  }
}

/**
 * A `setRequestHandler` for the `tasks/*` methods. The SDK's runtime parses them with the
 * 2025-11-25 schemas (so `params.taskId` is a string), but its types leave them out of the
 * method map, hence this narrower view of the same method.
 */
type TaskRequestHandler = (
  method: 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/list',
  handler: (
    request: { params?: { taskId?: string; cursor?: string } },
    ctx: { mcpReq: { signal: AbortSignal } },
  ) => Promise<object>,
) => void

/** Registers `tasks/get`, `tasks/result`, `tasks/cancel` and `tasks/list` on `server`. */
export function serveTaskRequests(server: Server, tasks: ServedTasks): void {
  const on = server.setRequestHandler.bind(server) as unknown as TaskRequestHandler
  const id = (request: { params?: { taskId?: string } }) => request.params?.taskId ?? ''
  on('tasks/get', (request) => tasks.get(id(request)))
  on('tasks/result', (request, ctx) => tasks.result(id(request), ctx.mcpReq.signal))
  on('tasks/cancel', (request) => tasks.cancel(id(request)))
  on('tasks/list', (request) => tasks.list(request.params?.cursor))
}
