/**
 * The tasks of one served view (Y6.1–Y6.12, Y6.22–Y6.27): a long-running tool called as a task
 * runs in the background, its state in a {@link TaskStore}, so the `tasks/*` requests of either
 * revision are answered by any instance on the store, across restarts.
 */
import { randomUUID } from 'node:crypto'
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { sleep } from '@tooltx/core/internal'
import {
  isTerminal,
  memoryTaskStore,
  type TaskChange,
  type TaskRecord,
  type TaskStore,
} from '../../task-store.js'
import { type TaskAsker, type TaskAsking, taskAsking } from './task-inputs.js'

/** The `_meta` key that ties a message to its task (the Tasks utility's). */
export const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task'

/** Options of served tasks: `mcpServer(runtime, { tasks })`. */
export interface ServeTasksOptions {
  /** The long-running tools (served names): each may be called as a task (Y6.1). */
  tools: readonly string[]
  /** Where tasks live (Y6.3); default {@link memoryTaskStore}, or `postgresTaskStore(…)`. */
  store?: TaskStore
  /** The poll interval suggested to clients, in ms; default 1 000. */
  pollInterval?: number
  /** The longest a task is kept after its creation, in ms (a client may ask for less); default 24 h. */
  ttl?: number
  /** How long a running instance's claim on a task lasts unless renewed, in ms (Y6.8); default 15 000. */
  leaseMs?: number
}

/** A task as the MCP Tasks utility shows it. */
export interface McpTask {
  taskId: string
  status: TaskRecord['status']
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttl: number | null
  pollInterval: number
}

/** What a task runs: the served call of `record`, through the pipeline (server.ts builds it). */
export type TaskExecutor = (
  record: TaskRecord,
  signal: AbortSignal,
  asking: TaskAsking,
) => Promise<CallToolResult>

const positive = (value: unknown, what: string): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
    throw new TypeError(`tasks.${what} must be a positive whole number of milliseconds`)
  return value
}

/** The task of `record` as the wire shows it. */
export function toMcpTask(record: TaskRecord): McpTask {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttl,
    pollInterval: record.pollInterval,
  }
}

const unknownTask = (taskId: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `unknown task ${JSON.stringify(taskId)}: it never existed or has expired`,
  )

/** A failure result that says why a task ended without running to its end. */
const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true })

/** The served tasks of one server: starts, runs, adopts and answers for them. */
export class ServedTasks {
  readonly tools: ReadonlySet<string>
  readonly store: TaskStore
  readonly pollInterval: number
  readonly #ttl: number
  readonly #leaseMs: number
  /** This instance's name in the store's `owner` column. */
  readonly #me = `instance_${randomUUID()}`
  readonly #running = new Map<string, AbortController>()
  #closed = false

  /**
   * `execute` runs a task's call; `repeatable` says whether a tool may run again (Y6.8);
   * `inputTimeoutMs` bounds the wait for an answer to a task's input request (Y6.23).
   */
  constructor(
    options: ServeTasksOptions,
    private readonly execute: TaskExecutor,
    private readonly repeatable: (tool: string) => boolean,
    private readonly inputTimeoutMs: number,
  ) {
    if (!Array.isArray(options.tools) || options.tools.some((t) => typeof t !== 'string' || t === ''))
      throw new TypeError('tasks.tools must be an array of tool names')
    this.tools = new Set(options.tools)
    this.store = options.store ?? memoryTaskStore()
    this.pollInterval = positive(options.pollInterval ?? 1_000, 'pollInterval')
    this.#ttl = positive(options.ttl ?? 86_400_000, 'ttl')
    this.#leaseMs = positive(options.leaseMs ?? 15_000, 'leaseMs')
  }

  /**
   * Creates the task of one call and starts its first run (Y6.2, Y6.22); resolves once it is
   * durable. The run asks as `asker` says (Y6.9, Y6.23).
   */
  async start(
    call: {
      tool: string
      arguments: unknown
      callId: string
      session?: string | undefined
      ttl?: number | undefined
    },
    asker: TaskAsker,
  ): Promise<McpTask> {
    const now = new Date()
    const requested = call.ttl
    const record: TaskRecord = {
      taskId: randomUUID(),
      status: 'working',
      tool: call.tool,
      arguments: JSON.stringify(call.arguments ?? {}),
      callId: call.callId,
      ...(call.session === undefined ? {} : { session: call.session }),
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      ttl: typeof requested === 'number' && requested > 0 ? Math.min(requested, this.#ttl) : this.#ttl,
      pollInterval: this.pollInterval,
      owner: this.#me,
      leaseUntil: now.getTime() + this.#leaseMs,
      runs: 1,
    }
    await this.store.create(record)
    this.#launch(record, asker)
    return toMcpTask(record)
  }

  /** Runs `record` here, renewing the claim while it runs, and records how it ended (Y6.4). */
  #launch(record: TaskRecord, asker: TaskAsker): void {
    const controller = new AbortController()
    this.#running.set(record.taskId, controller)
    const renew = setInterval(
      () => {
        const until = Date.now() + this.#leaseMs
        // A refused renewal means the task ended elsewhere (cancelled) or was taken over: stop.
        this.store.renew(record.taskId, this.#me, until).then(
          (held) => held || controller.abort(),
          () => undefined,
        )
      },
      Math.max(1, Math.floor(this.#leaseMs / 3)),
    )
    const asking = taskAsking(asker, {
      store: this.store,
      owner: this.#me,
      taskId: record.taskId,
      callId: record.callId,
      pollMs: Math.min(this.pollInterval, 250),
      timeoutMs: this.inputTimeoutMs,
    })
    this.execute(record, controller.signal, asking)
      .catch((error: unknown) => failure(`the task failed: ${String(error)}`))
      .then(async (result) => {
        clearInterval(renew)
        if (this.#closed) return
        const status = result.isError === true ? 'failed' : 'completed'
        await this.#move(record.taskId, { status, result: JSON.stringify(result) })
      })
      .catch(() => undefined)
      .finally(() => {
        clearInterval(renew)
        asking.close()
        this.#running.delete(record.taskId)
      })
  }

  #move(taskId: string, change: TaskChange): Promise<TaskRecord | undefined> {
    return this.store.move(taskId, change, new Date().toISOString(), this.#me)
  }

  /**
   * The task's record, forgetting it past its ttl, and adopting it when the instance that ran it
   * stopped renewing its claim (Y6.8): a `'read'` or `'idempotent'` tool runs again from the start
   * with the same call id, so the same idempotency key; any other fails `TOOL_OUTCOME_UNKNOWN`.
   */
  async #find(taskId: string): Promise<TaskRecord | undefined> {
    const record = await this.store.get(taskId)
    if (record === undefined) return undefined
    const now = Date.now()
    if (record.ttl !== null && Date.parse(record.createdAt) + record.ttl < now) {
      await this.store.remove(taskId)
      return undefined
    }
    // A run of this instance is never adopted by it again, even when a renewal was late.
    if (isTerminal(record.status) || record.leaseUntil >= now || this.#closed || this.#running.has(taskId))
      return record
    const claimed = await this.store.claim(taskId, this.#me, now, now + this.#leaseMs)
    if (claimed === undefined) return (await this.store.get(taskId)) ?? record
    if (this.repeatable(claimed.tool)) {
      const message = `resumed after the server running it stopped (run ${claimed.runs})`
      const resumed = await this.#move(taskId, { status: 'working', statusMessage: message })
      // A resumed run has no client to ask: its approvals fail closed (Y6.9).
      this.#launch(resumed ?? claimed, 'nobody')
      return resumed ?? claimed
    }
    const text =
      `TOOL_OUTCOME_UNKNOWN: the server running tool "${claimed.tool}" stopped before the task ended; ` +
      `the tool may change the world on every run, so it is not run again. Check its effect before calling it again.`
    const result = JSON.stringify({
      ...failure(text),
      _meta: { 'tooltx/result': { isError: true, code: 'TOOL_OUTCOME_UNKNOWN' } },
    })
    return (
      (await this.#move(taskId, { status: 'failed', statusMessage: 'its server stopped mid-run', result })) ??
      claimed
    )
  }

  /** The task's record as `#find` gives it; an unknown task is error -32602 (Y6.5). */
  async record(taskId: string): Promise<TaskRecord> {
    const record = await this.#find(taskId)
    if (record === undefined) throw unknownTask(taskId)
    return record
  }

  /** `tasks/get` (Y6.5). */
  async get(taskId: string): Promise<McpTask> {
    return toMcpTask(await this.record(taskId))
  }

  /**
   * `tasks/update` (Y6.24): adds the answers to the task's outstanding input requests; answers
   * to keys not outstanding, or already answered, are ignored.
   */
  async update(taskId: string, responses: Record<string, unknown> | undefined): Promise<void> {
    const record = await this.record(taskId)
    const outstanding = JSON.parse(record.inputRequests ?? '{}') as Record<string, unknown>
    const given = JSON.parse(record.inputResponses ?? '{}') as Record<string, unknown>
    const fresh = Object.entries(responses ?? {}).filter(
      ([key]) => Object.hasOwn(outstanding, key) && !Object.hasOwn(given, key),
    )
    if (fresh.length > 0) await this.store.answer(taskId, JSON.stringify(Object.fromEntries(fresh)))
  }

  /** `tasks/result` (Y6.6): waits for a terminal status, then the call's result. */
  async result(taskId: string, signal: AbortSignal): Promise<CallToolResult> {
    for (;;) {
      const record = await this.#find(taskId)
      if (record === undefined) throw unknownTask(taskId)
      if (record.status === 'cancelled')
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `task ${taskId} was cancelled; it has no result`,
        )
      if (isTerminal(record.status) && record.result !== undefined) {
        const result = JSON.parse(record.result) as CallToolResult
        return { ...result, _meta: { ...result._meta, [RELATED_TASK_KEY]: { taskId } } }
      }
      await sleep(Math.min(record.pollInterval, 250), signal)
      signal.throwIfAborted()
    }
  }

  /** `tasks/cancel` (Y6.7): a task not yet terminal becomes `cancelled` and its run is aborted. */
  async cancel(taskId: string): Promise<McpTask> {
    const record = await this.#find(taskId)
    if (record === undefined) throw unknownTask(taskId)
    const at = new Date().toISOString()
    const moved = await this.store.move(
      taskId,
      { status: 'cancelled', statusMessage: 'cancelled by the client' },
      at,
    )
    if (moved === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `task ${taskId} is already ${(await this.store.get(taskId))?.status ?? record.status}; only a task still running can be cancelled`,
      )
    this.#running.get(taskId)?.abort()
    return toMcpTask(moved)
  }

  /** `tasks/list` (Y6.10): newest first, 100 a page; the cursor is an opaque offset. */
  async list(cursor: string | undefined): Promise<{ tasks: McpTask[]; nextCursor?: string }> {
    const offset = cursor === undefined ? 0 : Number.parseInt(cursor, 10)
    if (!Number.isSafeInteger(offset) || offset < 0 || String(offset) !== (cursor ?? '0'))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid cursor ${JSON.stringify(cursor)}`)
    const page = await this.store.list(offset, 101)
    const tasks: McpTask[] = []
    for (const listed of page.slice(0, 100)) {
      const record = await this.#find(listed.taskId)
      if (record !== undefined) tasks.push(toMcpTask(record))
    }
    return page.length > 100 ? { tasks, nextCursor: String(offset + 100) } : { tasks }
  }

  /**
   * Stops running tasks here without recording an outcome, so another instance adopts them once
   * their claim lapses (Y6.8); the store stays open (its owner closes it).
   */
  close(): void {
    this.#closed = true
    for (const controller of this.#running.values()) controller.abort()
    this.#running.clear()
  }
}
