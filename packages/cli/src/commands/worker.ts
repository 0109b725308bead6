import { type ApprovalsOption, createAgent, DEFAULT_MODELS } from '@tooltx/agent'
import type { ToolMode } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { postgresStore } from '@tooltx/session'
import { createWorker, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import type { Output } from '../display/output.js'
import { fixedApprover, openToolset } from '../toolset.js'
import { type Command, defineCommand } from './command.js'
import {
  AGENT_STRING_FLAGS,
  agentFlags,
  type CommandUsage,
  count,
  defined,
  durableFlag,
  noPositionals,
  postgresUrl,
  TOOLS_HELP,
} from './flags.js'
import { AGENT_SYSTEM_PROMPT, chooseModel, type ModelChoice, toolsLine } from './run.js'

/** `tooltx worker`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'worker',
  help: `Usage: tooltx worker --db postgres://… [options]

Takes "run the next turn of session S" jobs from the queue in PostgreSQL and runs each with
the workspace tools (or your --tools module's) and a real model, one line per job. Start as
many as you like on any machines that reach the database: each turn runs on exactly one
worker under the session's lease, and the turn of a worker that dies is resumed by another after the visibility timeout.
SIGTERM or Ctrl-C stops it gracefully: no new turns, running ones get --grace seconds to
finish, the rest go back to the queue.

Options:
  --db URL         the PostgreSQL of the sessions and the queue (required)
  --queue NAME     the queue to take turns from (default tooltx-turns)
  --concurrency N  turns this worker runs at once (default 1)
  --visibility-timeout S
                   seconds before a dead worker's turn is handed to another (default 300)
  --grace S        seconds a stopping worker lets running turns finish (default 10)
  --provider P     openai or anthropic (default: whichever key is set, OpenAI first)
  --model M        the model name (default ${DEFAULT_MODELS.openai} / ${DEFAULT_MODELS.anthropic})
  --base-url U     the provider's endpoint (also OPENAI_BASE_URL / ANTHROPIC_BASE_URL);
                   a local OpenAI-compatible server needs no key
  --mode M         native, code or both (default native)
  --workspace DIR  the directory the tools may touch (default: the current directory)
${TOOLS_HELP}
  --yes            approve every write, edit and shell command (without it they are
                   refused: nobody is asked)
  --approvals durable
                   let each ask wait in the session: the job is done, \`tooltx approvals\`
                   lists it, \`tooltx approve\` decides it and queues the job that resumes it;
                   nobody deciding, it expires and a worker continues the turn without the call
  --approval-expiry S
                   with --approvals durable: seconds an ask waits before it expires (default 86400)
  -h, --help       show this help

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.`,
}

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
  /** `--approvals durable [--approval-expiry S]`: asks wait in the session for `tooltx approve` (N2.16, K5.14). */
  approvals?: ApprovalsOption
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
  const { runtime, scope, names, bindResumedAsk } = await openToolset({
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
      agent: (session) => {
        bindResumedAsk(session.events())
        return createAgent({
          runtime,
          scope,
          session,
          model,
          ...(options.approvals ? { approvals: options.approvals } : { approver }),
          system: AGENT_SYSTEM_PROMPT,
          ...(sandbox ? { codeRuntime: sandbox } : {}),
        })
      },
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

/** `tooltx worker`: a PostgreSQL `--db`, whole-number limits and the agent flags. */
export const command: Command = defineCommand(
  USAGE,
  {
    strings: [
      'db',
      'queue',
      'concurrency',
      'visibility-timeout',
      'grace',
      'approvals',
      'approval-expiry',
      ...AGENT_STRING_FLAGS,
    ],
    booleans: ['yes'],
  },
  async ({ values, positionals }, out, env) => {
    noPositionals(USAGE, positionals)
    return await workerCommand(
      {
        db: postgresUrl(USAGE, values.db),
        ...defined({ queue: values.queue }),
        concurrency: count(USAGE, '--concurrency', values.concurrency, 1),
        visibilityTimeout: count(USAGE, '--visibility-timeout', values['visibility-timeout'], 300),
        grace: count(USAGE, '--grace', values.grace, 10, 0),
        ...agentFlags(USAGE, values),
        yes: values.yes === true,
        ...defined({ approvals: durableFlag(USAGE, values) }),
        env,
      },
      out,
    )
  },
)
