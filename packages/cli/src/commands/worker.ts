import { createAgent } from '@tooltx/agent'
import type { ToolMode } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { postgresStore } from '@tooltx/session'
import { createWorker, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import type { Output } from '../output.js'
import { fixedApprover, openToolset } from '../toolset.js'
import { AGENT_SYSTEM_PROMPT, chooseModel, type ModelChoice, toolsLine } from './run.js'

/** Options of the `worker` command, from flags and the environment. */
export interface WorkerCommandOptions extends ModelChoice {
  /** The queue's name (default `tooltx-turns`). */
  queue?: string
  /** The `postgres://…` database of the sessions and the queue. */
  db: string
  concurrency: number
  /** Seconds before the job of a worker that died is handed to another (the queue's visibility timeout). */
  visibilityTimeout: number
  /** Seconds a stopping worker lets running turns finish before handing them back. */
  grace: number
  mode: ToolMode
  workspace: string
  /** `--tools`: the user's tools module, offered instead of the workspace tools (K6.1). */
  tools?: string
  /** Approve every write; without it writes are refused (a worker has no one to ask). */
  yes: boolean
}

/**
 * Runs a worker until SIGTERM or SIGINT: takes turns from the queue in `db`, runs each with
 * the workspace tools (or the `--tools` module's) and the chosen model, prints one line per
 * job. On a signal it takes no new job, lets running turns finish for `grace` seconds, hands
 * back the rest, and returns 0.
 */
export async function workerCommand(options: WorkerCommandOptions, out: Output): Promise<number> {
  const model = chooseModel(options)
  const reportError = (error: unknown) =>
    out.error(`tooltx worker: ${error instanceof Error ? error.message : String(error)}`)
  const { runtime, scope, names } = await openToolset({
    root: options.workspace,
    mode: options.mode,
    reportError,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  })
  const store = postgresStore(options.db)
  const queue = turnQueue({
    connectionString: options.db,
    ...(options.queue !== undefined ? { name: options.queue } : {}),
    visibilityTimeoutSeconds: options.visibilityTimeout,
    reportError,
  })
  // Code Mode programs run in the QuickJS sandbox; native mode never starts it.
  const sandbox = options.mode === 'native' ? undefined : quickjsRuntime()
  const approver = fixedApprover(options.yes ? 'allowed-once' : 'rejected')
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'))
    process.once('SIGINT', () => resolve('SIGINT'))
  })
  try {
    const worker = await createWorker({
      store,
      queue,
      concurrency: options.concurrency,
      graceMs: options.grace * 1000,
      agent: (session) =>
        createAgent({
          runtime,
          scope,
          session,
          model,
          approver,
          system: AGENT_SYSTEM_PROMPT,
          ...(sandbox ? { codeRuntime: sandbox } : {}),
        }),
      onJob: (report) => out.line(jobLine(report)),
    })
    out.line(
      `tooltx worker ${process.pid} — ${model.name}, mode ${options.mode}, concurrency ${options.concurrency}, ` +
        `database ${redacted(options.db)}; SIGTERM or Ctrl-C stops it`,
    )
    if (options.tools !== undefined) out.line(toolsLine(options.tools, names))
    const signal = await stopped
    out.line(
      `${signal}: taking no new turns; running turns get ${options.grace}s to finish, then go back to the queue`,
    )
    await worker.stop()
  } finally {
    await queue.close()
    await sandbox?.close()
    await store.close()
  }
  out.line('worker stopped')
  return 0
}

/** One job's line: `job <submission> <session>: <result> (<plan>)[ — reason]`. */
function jobLine(report: WorkerJobReport): string {
  const plan = report.plan === undefined ? '' : ` (${report.plan})`
  const reason = report.reason === undefined ? '' : ` — ${report.reason}`
  return `job ${report.submission} ${report.session}: ${report.result}${plan}${reason}`
}

/** `db` with any password replaced by `***`, for printing. */
export function redacted(db: string): string {
  try {
    const url = new URL(db)
    if (url.password !== '') url.password = '***'
    return url.toString()
  } catch {
    return db
  }
}
