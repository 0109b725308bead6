/**
 * Where the tasks of served long-running calls live (Y6.3): one record per task, read and written
 * only through the conditional moves below, so several server instances on one durable store
 * agree on who runs a task and on its one terminal state.
 */

/** A task's status, as the MCP Tasks utility names them. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** The statuses a task never leaves (Y6.5). */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled'])

/** True iff `status` is terminal. */
export const isTerminal = (status: TaskStatus): boolean => TERMINAL_STATUSES.has(status)

/** One task as stored: its MCP state, the call it runs, and who runs it. */
export interface TaskRecord {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  /** The served tool's name. */
  readonly tool: string
  /** The call's arguments as JSON text (kept exact for a resumed run). */
  readonly arguments: string
  /** The served call id (`mcp_…`) the task's runs share. */
  readonly callId: string
  /** The MCP session the task was created in, when the transport has one. */
  readonly session?: string
  /** The `CallToolResult` as JSON text, once the task is completed or failed. */
  readonly result?: string
  /**
   * While `input_required` on the 2026-07-28 revision (Y6.23): the outstanding input requests,
   * a JSON object of key → `{ method, params }`.
   */
  readonly inputRequests?: string
  /** The answers `tasks/update` delivered (Y6.24), a JSON object of key → answer; keys never repeat. */
  readonly inputResponses?: string
  /** ISO times. */
  readonly createdAt: string
  readonly lastUpdatedAt: string
  /** How long after creation the task may be forgotten, in ms; `null` for never. */
  readonly ttl: number | null
  /** The poll interval the server suggests, in ms. */
  readonly pollInterval: number
  /** The instance that runs the task now (Y6.8). */
  readonly owner: string
  /** Epoch ms until which `owner`'s claim holds; renewed while it runs. */
  readonly leaseUntil: number
  /** How many runs the task has had (1 for the first). */
  readonly runs: number
}

/** A change of state: the status and what comes with it. */
export interface TaskChange {
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly result?: string
  readonly inputRequests?: string
}

/**
 * A durable home for task records. Every method is atomic in the store; a move refused by its
 * condition resolves `undefined` (or `false`), never throws.
 */
export interface TaskStore {
  /** Adds a new record; rejects when its id exists. */
  create(record: TaskRecord): Promise<void>
  /** The record, or `undefined`. */
  get(taskId: string): Promise<TaskRecord | undefined>
  /** Up to `limit` records, newest first, after `offset` of them. */
  list(offset: number, limit: number): Promise<readonly TaskRecord[]>
  /**
   * Moves a task that is not terminal to `change` (and `lastUpdatedAt` to `at`); with `owner`,
   * only while that instance owns it. Resolves the new record, or `undefined` when refused.
   */
  move(taskId: string, change: TaskChange, at: string, owner?: string): Promise<TaskRecord | undefined>
  /** Extends `owner`'s lease on a task that is not terminal; false when it is terminal or not `owner`'s. */
  renew(taskId: string, owner: string, leaseUntil: number): Promise<boolean>
  /**
   * Takes over a task that is not terminal and whose lease ended before `now` (Y6.8): it becomes
   * `owner`'s until `leaseUntil` and counts one more run. Resolves the record, or `undefined`.
   */
  claim(taskId: string, owner: string, now: number, leaseUntil: number): Promise<TaskRecord | undefined>
  /**
   * Adds `responses` (a JSON object) to the answers of a task that is `input_required`; an answer
   * it has for a key is kept, never replaced (Y6.24). Resolves false when the task is not
   * `input_required`.
   */
  answer(taskId: string, responses: string): Promise<boolean>
  /** Forgets a task. */
  remove(taskId: string): Promise<void>
  /** Releases what the store holds (a pool it opened). */
  close(): Promise<void>
}

/** A {@link TaskStore} in this process's memory: tasks last as long as the process (Y6.3). */
export function memoryTaskStore(): TaskStore {
  const records = new Map<string, TaskRecord>()
  const live = (taskId: string) => {
    const record = records.get(taskId)
    return record === undefined || isTerminal(record.status) ? undefined : record
  }
  const put = (record: TaskRecord) => {
    records.set(record.taskId, Object.freeze({ ...record }))
    return records.get(record.taskId)
  }
  return {
    async create(record) {
      if (records.has(record.taskId)) throw new Error(`task ${record.taskId} exists`)
      put(record)
    },
    get: async (taskId) => records.get(taskId),
    async list(offset, limit) {
      const newest = [...records.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      return newest.slice(offset, offset + limit)
    },
    async move(taskId, change, at, owner) {
      const record = live(taskId)
      if (record === undefined || (owner !== undefined && record.owner !== owner)) return undefined
      const { statusMessage: _message, result: _result, inputRequests: _requests, ...rest } = record
      return put({ ...rest, ...change, lastUpdatedAt: at })
    },
    async renew(taskId, owner, leaseUntil) {
      const record = live(taskId)
      if (record === undefined || record.owner !== owner) return false
      put({ ...record, leaseUntil })
      return true
    },
    async claim(taskId, owner, now, leaseUntil) {
      const record = live(taskId)
      if (record === undefined || record.leaseUntil >= now) return undefined
      return put({ ...record, owner, leaseUntil, runs: record.runs + 1 })
    },
    async answer(taskId, responses) {
      const record = records.get(taskId)
      if (record?.status !== 'input_required') return false
      const given = JSON.parse(record.inputResponses ?? '{}') as Record<string, unknown>
      put({ ...record, inputResponses: JSON.stringify({ ...JSON.parse(responses), ...given }) })
      return true
    },
    async remove(taskId) {
      records.delete(taskId)
    },
    async close() {},
  }
}
