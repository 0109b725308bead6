/**
 * `mcpServer`: one tooltx scope view served as an MCP server (Y1). Every `tools/call` is a
 * `runtime.execute` with a fresh call id, so validation, policy, approvals, guards, timeouts and
 * the frozen result apply to MCP clients exactly as to a model.
 */
import { randomUUID } from 'node:crypto'
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type Transport,
} from '@modelcontextprotocol/server'
import type {
  ApprovalRequest,
  ExecuteInput,
  LogEntry,
  RuntimeScope,
  ToolResult,
  ToolRuntime,
} from '@tooltx/core'
import { effectOf, ToolError } from '@tooltx/core'
import { errorMessage, isRepeatable } from '@tooltx/core/internal'
import { toCallToolResult } from '../call-result.js'
import { TASKS_EXTENSION } from '../tasks-extension.js'
import { APPROVAL_INPUT, ApprovalRounds } from './approval-rounds.js'
import { clientElicitor } from './body-elicit.js'
import { openBodyRoutes } from './body-routes.js'
import { CallRoutes } from './call-routes.js'
import { approvalForm, elicitApprover, failClosed } from './elicit-approver.js'
import { ProgressRoutes } from './progress-route.js'
import { createTaskResult, declaresTasks, serveExtensionRequests } from './tasks/extension-handlers.js'
import { ServedTasks, type ServeTasksOptions } from './tasks/served-tasks.js'
import { serveTaskRequests, TASKS_CAPABILITY, withTaskSupport } from './tasks/task-handlers.js'
import {
  type AnnotationRule,
  defaultAnnotations,
  InvalidCursorError,
  isObjectSchema,
  listPage,
} from './tool-listing.js'

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The scope whose view is served; none serves the global view. */
  scope?: RuntimeScope
  /** The server name announced at initialization. */
  name: string
  /** The server version announced at initialization. */
  version: string
  /** Instructions announced at initialization; default: the view's instructions, when it has any. */
  instructions?: string
  /** Tools per `tools/list` page (Y1.2); default 100. */
  pageSize?: number
  /** Maps a definition to MCP annotations (Y1.3); default {@link defaultAnnotations}. */
  annotations?: AnnotationRule
  /** How long an approval elicitation may wait for the person (Y1.7); default 10 minutes. */
  approvalTimeoutMs?: number
  /**
   * Runs each served call (Y1.15) given its input and the runtime's `execute`; default: the
   * call as is. `servedCallRecorder(session).run` (`@tooltx/agent`) records every call.
   */
  wrapCall?: CallWrapper
  /**
   * Long-running tools and where their tasks live (Y6.1–Y6.12): each named tool may be called as
   * an MCP task, kept in `store` (memory by default; `postgresTaskStore` for tasks that outlive
   * the process and are answered by every instance). None: no tasks.
   */
  tasks?: ServeTasksOptions
}

/** Runs one served call through `execute`, e.g. recording it around the call (Y1.15). */
export type CallWrapper = (
  input: ExecuteInput,
  execute: (input: ExecuteInput) => Promise<ToolResult>,
) => Promise<ToolResult>

/** A tooltx MCP server: any number of connections, each its own MCP session over one view. */
export interface TooltxMcpServer {
  /** Serves one MCP session over `transport` until it closes (Y1.1). */
  connect(transport: Transport): Promise<void>
  /**
   * A fresh SDK server over the view, not connected: what per-request serving of the
   * 2026-07-28 revision (`serveHttp`, Y1.14) gives each request.
   */
  instance(): Server
  /** Calls `listener` after each change of the served listing (Y1.9); returns a disposer. */
  onListChanged(listener: () => void): () => void
  /** Closes every session and stops following the registry. Idempotent. */
  close(): Promise<void>
}

function optionError(message: string): ToolError {
  return new ToolError('INVALID_DEFINITION', `mcpServer: ${message}`, { name: 'DefinitionError' })
}

function readOptions(options: McpServerOptions) {
  if (options === null || typeof options !== 'object') throw optionError('options must be an object')
  const {
    name,
    version,
    pageSize = 100,
    approvalTimeoutMs = 600_000,
    annotations = defaultAnnotations,
    wrapCall = (input, execute) => execute(input),
  } = options
  if (typeof name !== 'string' || name === '') throw optionError('name must be a non-empty string')
  if (typeof version !== 'string' || version === '') throw optionError('version must be a non-empty string')
  if (!Number.isInteger(pageSize) || pageSize < 1) throw optionError('pageSize must be a positive integer')
  if (!(approvalTimeoutMs > 0))
    throw optionError('approvalTimeoutMs must be a positive number of milliseconds')
  if (typeof annotations !== 'function') throw optionError('annotations must be a function')
  if (typeof wrapCall !== 'function') throw optionError('wrapCall must be a function')
  if (options.tasks !== undefined && (options.tasks === null || typeof options.tasks !== 'object'))
    throw optionError('tasks must be { tools, store?, pollInterval?, ttl?, leaseMs? }')
  return { name, version, pageSize, approvalTimeoutMs, annotations, wrapCall, scope: options.scope }
}

/**
 * Creates an MCP server over `runtime.view(options.scope)` (Y1.1). Throws `INVALID_DEFINITION`
 * for a bad option or a scope of another runtime. Sessions announce `tools.listChanged` and get
 * `notifications/tools/list_changed` whenever the served listing changes (Y1.9); they announce
 * `logging`, and a served call's `run.log` goes to its client as `notifications/message` (Y1.21).
 */
export function mcpServer(runtime: ToolRuntime, options: McpServerOptions): TooltxMcpServer {
  const opts = readOptions(options)
  const view = runtime.view(opts.scope)
  const sessions = new Set<Server>()
  const progress = new ProgressRoutes()
  const logs = new CallRoutes<(entry: LogEntry) => void>()
  const rounds = new ApprovalRounds(opts.approvalTimeoutMs)
  const listing = () => JSON.stringify(listPage(view, undefined, Number.MAX_SAFE_INTEGER, opts.annotations))
  let lastListing = listing()
  const listeners = new Set<() => void>()
  const offChange = runtime.onRegistryChange(() => {
    const next = listing()
    if (next === lastListing) return
    lastListing = next
    for (const session of sessions) session.sendToolListChanged().catch(() => undefined)
    for (const listener of listeners) listener()
  })
  const offProgress = runtime.onProgress(
    (exec, update) => progress.deliver(exec.rootCallId, update),
    opts.scope === undefined ? undefined : { scope: opts.scope },
  )
  const offLog = runtime.onLog(
    (exec, entry) => {
      const send = logs.find(exec.rootCallId)
      send?.(entry)
      return send !== undefined
    },
    opts.scope === undefined ? undefined : { scope: opts.scope },
  )
  let closed = false
  const scoped = opts.scope === undefined ? {} : { scope: opts.scope }
  const resultOf = (callId: string, name: string, result: ToolResult) => {
    const def = view.get(name)
    return toCallToolResult(callId, result, def !== undefined && isObjectSchema(def.output.schema))
  }
  // A task's run is the served call of its record, under the task's id as idempotency scope,
  // so a resumed run has the same idempotency key as the first (Y6.8).
  let tasks: ServedTasks | undefined
  try {
    tasks =
      options.tasks === undefined
        ? undefined
        : new ServedTasks(
            options.tasks,
            async (record, signal, { approver, elicit }) => {
              const input: ExecuteInput = {
                callId: record.callId,
                name: record.tool,
                arguments: JSON.parse(record.arguments),
                signal,
                ...scoped,
                approver,
                ...(elicit === undefined ? {} : { elicit }),
                idempotencyScope: record.taskId,
              }
              return resultOf(
                record.callId,
                record.tool,
                await opts.wrapCall(input, (i) => runtime.execute(i)),
              )
            },
            (tool) => isRepeatable(effectOf(view.get(tool))),
            opts.approvalTimeoutMs,
          )
  } catch (error) {
    throw optionError(errorMessage(error))
  }

  /**
   * One SDK server over the view: a 2025 session's, or (`modern`) a per-request one of the
   * 2026-07-28 revision, whose tasks are the Tasks extension's (Y6.22).
   */
  function session(modern = false): Server {
    const instructions = options.instructions ?? view.surface().instructions
    const server = new Server(
      { name: opts.name, version: opts.version },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          ...(tasks === undefined
            ? {}
            : modern
              ? { extensions: { [TASKS_EXTENSION]: {} } }
              : { tasks: TASKS_CAPABILITY }),
        },
        ...(instructions === '' ? {} : { instructions }),
      },
    )
    server.setRequestHandler('tools/list', (request) => {
      try {
        const page = listPage(view, request.params?.cursor, opts.pageSize, opts.annotations)
        return tasks === undefined || modern ? page : withTaskSupport(page, tasks)
      } catch (error) {
        if (error instanceof InvalidCursorError)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message)
        throw error
      }
    })
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params
      const callId = `mcp_${randomUUID()}`
      const token = ctx.mcpReq._meta?.progressToken
      const closeRoute =
        token === undefined
          ? undefined
          : progress.open(callId, (params) => {
              ctx.mcpReq
                .notify({ method: 'notifications/progress', params: { progressToken: token, ...params } })
                .catch(() => undefined)
            })
      // The SDK sends `notifications/message` on this request and filters by the client's level.
      const closeLog = logs.open(callId, (entry) => {
        ctx.mcpReq.log(entry.level, entry.data).catch(() => undefined)
      })
      let closeBodyRoutes: (() => void) | undefined
      try {
        // A 2026-07-28 request (with its own `_meta` envelope) has no server-to-client
        // requests: its ask is a round of input_required (Y1.16).
        const envelope = ctx.mcpReq.envelope as
          | Record<string, { elicitation?: unknown; sampling?: unknown } | undefined>
          | undefined
        // A task of a 2025 session (Y6.2): created durably and answered at once, run in the
        // background; its approvals are put to this session's client while it is connected.
        if (request.params.task !== undefined && envelope === undefined && tasks?.tools.has(name) === true) {
          const asker =
            server.getClientCapabilities()?.elicitation === undefined
              ? 'nobody'
              : {
                  client: elicitApprover(
                    (params, o) => server.elicitInput(params, o),
                    opts.approvalTimeoutMs,
                  ),
                }
          const task = await tasks.start(
            { tool: name, arguments: args, callId, ttl: request.params.task.ttl, session: ctx.sessionId },
            asker,
          )
          return { content: [], task }
        }
        // A task of the 2026-07-28 Tasks extension (Y6.22), when the request declares it: its
        // asks, forms and completions are input requests of the task itself, of the kinds the
        // request declares; the others fail closed (Y6.23, Y6.29).
        if (envelope !== undefined && tasks?.tools.has(name) === true && declaresTasks(ctx)) {
          const declared = envelope[CLIENT_CAPABILITIES_META_KEY]
          const task = {
            elicitation: declared?.elicitation !== undefined,
            sampling: declared?.sampling !== undefined,
          }
          const asker = task.elicitation || task.sampling ? { task } : 'nobody'
          return createTaskResult(await tasks.start({ tool: name, arguments: args, callId }, asker)) as never
        }
        let asked: ApprovalRequest | undefined
        const approver =
          envelope !== undefined
            ? envelope[CLIENT_CAPABILITIES_META_KEY]?.elicitation === undefined
              ? failClosed
              : rounds.approver(ctx.mcpReq.inputResponses, ctx.mcpReq.requestState<string>(), (request) => {
                  asked = request
                })
            : server.getClientCapabilities()?.elicitation === undefined
              ? failClosed
              : elicitApprover((params, o) => ctx.mcpReq.elicitInput(params, o), opts.approvalTimeoutMs)
        // A 2025 session's body may ask its client too (Y1.32, Y1.33, Y1.35).
        const client = envelope === undefined ? (server.getClientCapabilities() ?? {}) : undefined
        closeBodyRoutes = openBodyRoutes(callId, ctx, client, opts.approvalTimeoutMs)
        const input: ExecuteInput = {
          callId,
          name,
          arguments: args ?? {},
          signal: ctx.mcpReq.signal,
          ...(opts.scope === undefined ? {} : { scope: opts.scope }),
          approver,
          elicit: clientElicitor(ctx, client, opts.approvalTimeoutMs),
        }
        const result = await opts.wrapCall(input, (i) => runtime.execute(i))
        if (asked !== undefined)
          return inputRequired({
            inputRequests: { [APPROVAL_INPUT]: inputRequired.elicit(approvalForm(asked)) },
            requestState: rounds.issue(asked),
          })
        return resultOf(callId, name, result)
      } finally {
        closeRoute?.()
        closeLog()
        closeBodyRoutes?.()
      }
    })
    if (tasks !== undefined)
      if (modern) serveExtensionRequests(server, tasks)
      else serveTaskRequests(server, tasks)
    return server
  }

  return {
    instance: () => session(true),
    onListChanged(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    async connect(transport) {
      if (closed) throw optionError('this server was closed; create a new one')
      const server = session()
      sessions.add(server)
      const previous = server.onclose
      server.onclose = () => {
        sessions.delete(server)
        previous?.()
      }
      await server.connect(transport)
    },
    async close() {
      if (closed) return
      closed = true
      listeners.clear()
      offChange()
      offProgress()
      offLog()
      tasks?.close()
      await Promise.allSettled([...sessions].map((s) => s.close()))
      sessions.clear()
    },
  }
}
