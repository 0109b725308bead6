/**
 * `postgresTaskStore`: task records in a PostgreSQL table (Y6.3), so every server instance on the
 * database answers for every task and a task outlives the process that created it. Each move is
 * one conditional `UPDATE`, atomic in the database.
 */
import { createRequire } from 'node:module'
import { ToolError } from '@tooltx/core'
import type { TaskRecord, TaskStatus, TaskStore } from '../../task-store.js'

/** The part of a `pg` pool the store uses. */
export interface TaskPool {
  query(text: string, values?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>
  end(): Promise<void>
}

/** Options of {@link postgresTaskStore}. */
export interface PostgresTaskStoreOptions {
  /** The table, created when missing; default `tooltx_mcp_tasks`. */
  table?: string
}

const TERMINAL_SQL = `('completed', 'failed', 'cancelled')`

function optionError(message: string): ToolError {
  return new ToolError('INVALID_DEFINITION', `postgresTaskStore: ${message}`, { name: 'DefinitionError' })
}

/** A pool for `connection`: `pg` is an optional peer dependency, loaded only here. */
function openPool(connection: string): TaskPool {
  let pg: { Pool: new (options: { connectionString: string; max: number }) => TaskPool }
  try {
    pg = createRequire(import.meta.url)('pg')
  } catch {
    throw optionError(
      'the "pg" package is not installed; add it (npm install pg) to keep tasks in PostgreSQL',
    )
  }
  return new pg.Pool({ connectionString: connection, max: 4 })
}

function recordOf(row: Record<string, unknown>): TaskRecord {
  const optional = (key: string) => (row[key] === null ? undefined : (row[key] as string))
  const message = optional('status_message')
  const session = optional('mcp_session')
  const result = optional('result')
  const requests = optional('input_requests')
  const responses = optional('input_responses')
  return Object.freeze({
    taskId: row.task_id as string,
    status: row.status as TaskStatus,
    ...(message === undefined ? {} : { statusMessage: message }),
    tool: row.tool as string,
    arguments: row.arguments as string,
    callId: row.call_id as string,
    ...(session === undefined ? {} : { session }),
    ...(result === undefined ? {} : { result }),
    ...(requests === undefined ? {} : { inputRequests: requests }),
    ...(responses === undefined ? {} : { inputResponses: responses }),
    createdAt: row.created_at as string,
    lastUpdatedAt: row.last_updated_at as string,
    ttl: row.ttl === null ? null : Number(row.ttl),
    pollInterval: Number(row.poll_interval),
    owner: row.owner as string,
    leaseUntil: Number(row.lease_until),
    runs: Number(row.runs),
  })
}

/**
 * A {@link TaskStore} on PostgreSQL at `connection` (a connection string, or a `pg` pool you own
 * and close). The table is created on first use. Throws `INVALID_DEFINITION` for a bad table
 * name, or when `pg` is not installed.
 */
export function postgresTaskStore(
  connection: string | TaskPool,
  options: PostgresTaskStoreOptions = {},
): TaskStore {
  const table = options.table ?? 'tooltx_mcp_tasks'
  if (typeof table !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(table))
    throw optionError('table must be a lowercase SQL name ([a-z_][a-z0-9_]*, at most 63 characters)')
  const owned = typeof connection === 'string'
  const pool = owned ? openPool(connection) : connection
  let ready: Promise<void> | undefined
  // Two instances changing the schema at once: one wins, the other finds the change made.
  const raced = (statement: string) =>
    pool.query(statement).then(
      () => undefined,
      (error: { code?: string }) => {
        if (error.code !== '23505' && error.code !== '42P07' && error.code !== '42701') throw error
      },
    )
  const schema = () =>
    (ready ??= raced(
      `CREATE TABLE IF NOT EXISTS ${table} (
        task_id text PRIMARY KEY, status text NOT NULL, status_message text, tool text NOT NULL,
        arguments text NOT NULL, call_id text NOT NULL, mcp_session text, result text,
        created_at text NOT NULL, last_updated_at text NOT NULL, ttl bigint,
        poll_interval integer NOT NULL, owner text NOT NULL, lease_until bigint NOT NULL,
        runs integer NOT NULL, input_requests text, input_responses text)`,
    )
      // A table of an earlier version gains the columns of input requests (Y6.23).
      .then(() =>
        raced(
          `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS input_requests text,
           ADD COLUMN IF NOT EXISTS input_responses text`,
        ),
      )
      .catch((error: unknown) => {
        ready = undefined
        throw error
      }))
  const query = async (text: string, values: readonly unknown[]) => {
    await schema()
    return (await pool.query(text, values)).rows
  }
  const one = (rows: Record<string, unknown>[]) => (rows[0] === undefined ? undefined : recordOf(rows[0]))

  return {
    async create(r) {
      await query(
        `INSERT INTO ${table} (task_id, status, status_message, tool, arguments, call_id, mcp_session,
          result, created_at, last_updated_at, ttl, poll_interval, owner, lease_until, runs,
          input_requests, input_responses)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [
          r.taskId,
          r.status,
          r.statusMessage ?? null,
          r.tool,
          r.arguments,
          r.callId,
          r.session ?? null,
          r.result ?? null,
          r.createdAt,
          r.lastUpdatedAt,
          r.ttl,
          r.pollInterval,
          r.owner,
          r.leaseUntil,
          r.runs,
          r.inputRequests ?? null,
          r.inputResponses ?? null,
        ],
      )
    },
    get: async (taskId) => one(await query(`SELECT * FROM ${table} WHERE task_id = $1`, [taskId])),
    async list(offset, limit) {
      const rows = await query(
        `SELECT * FROM ${table} ORDER BY created_at DESC, task_id LIMIT $1 OFFSET $2`,
        [limit, offset],
      )
      return rows.map(recordOf)
    },
    async move(taskId, change, at, owner) {
      const rows = await query(
        `UPDATE ${table} SET status = $2, status_message = $3, result = $4, last_updated_at = $5,
           input_requests = $7
         WHERE task_id = $1 AND status NOT IN ${TERMINAL_SQL} AND ($6::text IS NULL OR owner = $6)
         RETURNING *`,
        [
          taskId,
          change.status,
          change.statusMessage ?? null,
          change.result ?? null,
          at,
          owner ?? null,
          change.inputRequests ?? null,
        ],
      )
      return one(rows)
    },
    async renew(taskId, owner, leaseUntil) {
      const rows = await query(
        `UPDATE ${table} SET lease_until = $3
         WHERE task_id = $1 AND owner = $2 AND status NOT IN ${TERMINAL_SQL} RETURNING task_id`,
        [taskId, owner, leaseUntil],
      )
      return rows.length === 1
    },
    async claim(taskId, owner, now, leaseUntil) {
      const rows = await query(
        `UPDATE ${table} SET owner = $2, lease_until = $4, runs = runs + 1
         WHERE task_id = $1 AND lease_until < $3 AND status NOT IN ${TERMINAL_SQL} RETURNING *`,
        [taskId, owner, now, leaseUntil],
      )
      return one(rows)
    },
    async answer(taskId, responses) {
      // One statement: answers given at once through two instances both land, and an answer
      // stored first is kept (the right side of || wins).
      const rows = await query(
        `UPDATE ${table}
         SET input_responses = ($2::jsonb || COALESCE(input_responses, '{}')::jsonb)::text
         WHERE task_id = $1 AND status = 'input_required' RETURNING task_id`,
        [taskId, responses],
      )
      return rows.length === 1
    },
    async remove(taskId) {
      await query(`DELETE FROM ${table} WHERE task_id = $1`, [taskId])
    },
    async close() {
      if (owned) await pool.end()
    },
  }
}
