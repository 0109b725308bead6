import path from 'node:path'
import {
  type ApprovalsOption,
  anthropic,
  createAgent,
  DEFAULT_MODELS,
  type ModelAdapter,
  type ModelRetry,
  openaiCompatible,
  type PendingApproval,
  type TurnOutcome,
} from '@tooltx/agent'
import type { ToolMode } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { DEFAULT_SQLITE_PATH, openSession, suspendedTurn } from '@tooltx/session'
import { cliApprover } from '../approvals.js'
import { counted } from '../display/counted.js'
import { watchSession } from '../display/live-progress.js'
import { ModelProgress } from '../display/model-progress.js'
import { type Output, UsageError } from '../display/output.js'
import { liveLookup } from '../display/presenters.js'
import { approvalsHint, approveHint, replayHint, runResumeHint } from '../display/replay-hint.js'
import { suspendedNote } from '../display/suspended-note.js'
import { terminalElicitor, terminalForms, timelineLog } from '../mcp-prompts.js'
import { WatchedModel } from '../model-watch.js'
import type { ProviderVars } from '../provider-errors.js'
import { RunControl, STOP_NOTES, STOPPED_EXIT_STATUS } from '../run-control.js'
import { openStore, storedSessionId } from '../session-store.js'
import { openToolset } from '../toolset.js'
import { type Command, defineCommand } from './command.js'
import {
  AGENT_STRING_FLAGS,
  agentFlags,
  type CommandUsage,
  count,
  DB_HELP,
  dbPath,
  defined,
  durableFlag,
  TOOLS_HELP,
  usageError,
} from './flags.js'
import { connectRunServers, type McpServerSpec, mcpServerSpecs } from './run-mcp.js'
import { runAuthorization } from './run-mcp-auth.js'

/** Where the stderr of each server `--mcp` spawns is kept (K2.31): the CLI's own folder, `.tooltx/`. */
const MCP_LOGS = path.resolve(path.dirname(DEFAULT_SQLITE_PATH))

/** `tooltx run`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'run',
  help: `Usage: tooltx run "<task>" [options]

Runs one task against a real model with the workspace tools (list_files, read_file, grep,
edit_file, write_file, shell) or the tools of your --tools module, and saves the session.

Options:
  --provider P     openai or anthropic (default: whichever key is set, OpenAI first)
  --model M        the model name (default ${DEFAULT_MODELS.openai} / ${DEFAULT_MODELS.anthropic})
  --base-url U     the provider's endpoint, such as an OpenAI-compatible server
                   (also OPENAI_BASE_URL / ANTHROPIC_BASE_URL); a local one (Ollama,
                   llama.cpp, vLLM) needs no key: --base-url http://127.0.0.1:11434/v1
  --mode M         native, code or both (default native)
  --workspace DIR  the directory the tools may touch (default: the current directory)
${TOOLS_HELP}
  --yes            approve every write, edit, command (and MCP call) without asking
  --approvals durable
                   let each ask wait in the session instead: the turn suspends, this
                   process exits 0 and prints the \`tooltx approve\` command; once decided,
                   \`tooltx run --session <id> --approvals durable\` (no task) finishes it;
                   nobody deciding, the ask expires and that command goes on without the call
  --approval-expiry S
                   with --approvals durable: seconds an ask waits before it expires (default 86400)
  --allow-shell C  run shell commands that are C or start with "C " without asking, when
                   they hold no shell syntax (; | & $ \` > quotes globs); repeatable
  --mcp S          add an MCP server's tools, as mcp__<name>__<tool>: S is a command
                   (spawned, stdio) or an http(s) URL, optionally NAME=S; repeatable.
                   A URL server that asks for OAuth prints a URL to authorize at (and
                   opens it at a terminal); tokens are kept in ~/.config/tooltx/mcp-oauth.json
  --session ID     continue this saved session (a fork, say) instead of starting one
  --timeout S      seconds a model request may go without an answer (default 120)
${DB_HELP}
  -h, --help       show this help

Writes, edits (shown as the diff against the file as it is now), shell commands and MCP
calls ask for approval at a terminal ("Allow write_file? [y/N]"); without a terminal they
are refused unless --yes is given. A file changed after its diff was shown is not written. Ctrl-C stops the run: the turn is saved as aborted and
the exit status is 130.

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.`,
}

/** Options of the `run` command, from flags and the environment. */
export interface RunOptions {
  task: string
  db: string
  provider?: string
  model?: string
  baseUrl?: string
  mode: ToolMode
  workspace: string
  /** Approve every write without asking. */
  yes: boolean
  /** `--tools`: the user's tools module, offered instead of the workspace tools (K6.1). */
  tools?: string
  /** `--allow-shell`: commands these rules allow run without asking (K2.19). */
  allowShell?: readonly string[]
  /** MCP servers whose tools join the run (`--mcp`, Y4). */
  mcp?: readonly McpServerSpec[]
  /** `--timeout`: seconds a model request may go without an answer; default 120 (K2.11). */
  timeoutSeconds?: number
  /** `--approvals durable [--approval-expiry S]`: asks wait in the session for `tooltx approve` (K5.10, K5.14). */
  approvals?: ApprovalsOption
  /** `--session`: continue this stored session (a fork, say) instead of starting a new one (A2.2). */
  session?: string
  env: NodeJS.ProcessEnv
}

/** The flags and environment that pick a model, shared by `run` and `worker`. */
export type ModelChoice = Pick<RunOptions, 'provider' | 'model' | 'baseUrl' | 'env'>

/** Each provider's adapter and the environment variables of its key and endpoint. */
const PROVIDERS = {
  openai: {
    keyVar: 'OPENAI_API_KEY',
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultUrl: 'https://api.openai.com/v1',
    adapter: openaiCompatible,
  },
  anthropic: {
    keyVar: 'ANTHROPIC_API_KEY',
    baseUrlVar: 'ANTHROPIC_BASE_URL',
    defaultUrl: 'https://api.anthropic.com',
    adapter: anthropic,
  },
} as const

/**
 * What the OpenAI-compatible adapter sends as its key when a base URL is given without one (K6.4):
 * local servers (Ollama, llama.cpp, vLLM) ask for no key and accept any `Authorization` header.
 */
export const NO_KEY = 'no-key'

/** A chosen model: its adapter and the URL its requests go to. */
export interface ChosenModel {
  adapter: ModelAdapter
  url: string
  /** The environment variables of the provider's key and base URL. */
  vars: ProviderVars
}

/**
 * Chooses the provider and builds its adapter; says exactly what to set when a key is missing.
 * An OpenAI-compatible base URL (`--base-url` or `OPENAI_BASE_URL`) needs no key (K6.4).
 */
export function chooseModel(options: ModelChoice): ModelAdapter {
  return chosenModel(options).adapter
}

/**
 * `chooseModel`, with the URL the adapter sends its requests to (the provider's default without
 * a base URL); `onRetry` is told of each automatic retry (L12.7).
 */
export function chosenModel(options: ModelChoice, onRetry?: (retry: ModelRetry) => void): ChosenModel {
  const { env } = options
  const local = options.baseUrl ?? env.OPENAI_BASE_URL
  const provider =
    options.provider ??
    (env.OPENAI_API_KEY ? 'openai' : env.ANTHROPIC_API_KEY ? 'anthropic' : local ? 'openai' : undefined)
  if (provider === undefined) {
    throw new UsageError(
      'no model configured: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL for a compatible server) ' +
        'or ANTHROPIC_API_KEY, pass --base-url with a local OpenAI-compatible server (Ollama, llama.cpp, vLLM), ' +
        'or pass --provider with the matching key in the environment',
    )
  }
  if (!Object.hasOwn(PROVIDERS, provider))
    throw new UsageError(`unknown --provider "${provider}"; use openai or anthropic`)
  const known = provider as keyof typeof PROVIDERS
  const { keyVar, baseUrlVar, defaultUrl, adapter } = PROVIDERS[known]
  const baseURL = options.baseUrl ?? env[baseUrlVar]
  const apiKey = env[keyVar] || (known === 'openai' && baseURL ? NO_KEY : undefined)
  if (!apiKey) throw new UsageError(`--provider ${provider} needs ${keyVar} in the environment`)
  const built = adapter({
    apiKey,
    model: options.model ?? DEFAULT_MODELS[known],
    ...(baseURL ? { baseURL } : {}),
    ...(onRetry === undefined ? {} : { onRetry }),
  })
  return { adapter: built, url: baseURL || defaultUrl, vars: { keyVar, baseUrlVar } }
}

/** What `run` says on stderr of an automatic retry (K2.13): `HTTP 500, retrying in 2 s, 2 of 3`. */
export function retryNote({ status, delayMs, attempt, attempts }: ModelRetry): string {
  return `HTTP ${status}, retrying in ${Math.round(delayMs / 100) / 10} s, ${attempt} of ${attempts}`
}

/** The default of `--timeout`: seconds a model request may go without an answer (K2.11). */
export const DEFAULT_TIMEOUT_SECONDS = 120

/** The header line of a run or worker with `--tools` (K6.1): where the tools come from, and their names. */
export function toolsLine(file: string, names: readonly string[]): string {
  return `tools of ${path.resolve(file)}: ${names.join(', ')}`
}

/**
 * The header line of a run with the general workspace tools (K2.20): their names and what is
 * asked: `tools: <names>; writes, edits and shell commands are asked about`, naming the
 * `--allow-shell` rules that let commands run unasked, or saying `--yes` approves them all.
 */
export function workspaceToolsLine(
  names: readonly string[],
  allowShell: readonly string[],
  yes: boolean,
): string {
  const asked = yes
    ? '--yes approves writes, edits and shell commands'
    : `writes, edits and shell commands are asked about${
        allowShell.length === 0
          ? ''
          : ` (commands allowed: ${allowShell.map((rule) => `"${rule}"`).join(', ')})`
      }`
  return `tools: ${names.join(', ')}; ${asked}`
}

/** The system prompt of the agent `run` and `worker` build. */
export const AGENT_SYSTEM_PROMPT =
  'You are a careful engineering assistant. Use the tools to inspect the workspace before answering.'
/** The id of a new run's session. */
function freshRunId(): string {
  return `run-${new Date().toISOString().replace(/[:.]/g, '-')}`
}

/** What a finished `run` reports: the session it saved and the exit status. */
export interface RunOutcome {
  id: string
  exitStatus: number
}

/**
 * Runs one task against a real model with the workspace tools (or the `--tools` module's),
 * recording a new session or, with `session`, continuing a stored one (A2.2). Writes and the
 * module's asks are asked about at a terminal and refused, with a note on how to allow them, without one.
 * Ctrl-C, a closed stdout, SIGTERM or SIGHUP aborts the turn (recorded as aborted, running
 * checks killed) and gives exit status 130, 141, 143 or 129; a turn that ends in an error
 * throws after saving.
 */
export async function runCommand(options: RunOptions, out: Output): Promise<RunOutcome> {
  const chosen = chosenModel(options, (retry) => out.error(`tooltx: ${retryNote(retry)}`))
  const progress = new ModelProgress(out, chosen.adapter.name)
  const model = new WatchedModel(chosen.adapter, {
    url: chosen.url,
    vars: chosen.vars,
    timeoutMs: (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    observer: progress,
  })
  const { runtime, scope, workspace, names, bindResumedAsk } = await openToolset({
    root: options.workspace,
    mode: options.mode,
    reportError: (e) => out.error(String(e)),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    allowShell: options.allowShell ?? [],
  })
  const id =
    options.session === undefined
      ? freshRunId()
      : await storedSessionId(options.db, options.session, `no session "${options.session}" to continue`)
  const store = openStore(options.db, out)
  const session = await openSession(store, { id })
  // Ctrl-C at a server's question stops the run as at an approval prompt.
  const interrupt = () => control.interrupt()
  // Code Mode programs run in the QuickJS sandbox; native mode never starts it.
  const sandbox = options.mode === 'native' ? undefined : quickjsRuntime()
  const control = new RunControl(out, () => agent.abort())
  const agent = createAgent({
    runtime,
    scope,
    session,
    model,
    ...(sandbox ? { codeRuntime: sandbox } : {}),
    ...(options.approvals
      ? { approvals: options.approvals }
      : {
          approver: cliApprover({
            out,
            lookup: liveLookup(runtime.view(scope)),
            yes: options.yes,
            unattended: 'refuse',
            onInterrupt: interrupt,
          }),
        }),
    // A tool body's own form is asked at the terminal like a server's question (K2.32).
    onElicit: terminalForms(out, interrupt),
    system: AGENT_SYSTEM_PROMPT,
  })
  // The servers' questions and requests for a completion are answered through the agent, which
  // records each in the session (Y4.12).
  const person = {
    onElicit: agent.elicitor({ answer: terminalElicitor(out, interrupt) }),
    onSample: agent.sampler(),
    onLog: timelineLog(out),
  }
  const servers = await connectRunServers(
    options.mcp ?? [],
    runtime,
    scope,
    workspace.root,
    MCP_LOGS,
    person,
    (spec) => runAuthorization(spec.name, out, options.env),
  ).catch(async (error) => {
    control.dispose()
    await sandbox?.close()
    await session.close()
    await store.close()
    throw error
  })
  out.line(`tooltx run — ${model.name}, mode ${options.mode}, workspace ${options.workspace}`)
  out.line(
    options.tools === undefined
      ? workspaceToolsLine(names, options.allowShell ?? [], options.yes)
      : toolsLine(options.tools, names),
  )
  for (const { name, tools, skipped, log } of servers.imported) {
    const left =
      skipped === 0
        ? ''
        : ` (${skipped} left out: their names collide, or their schemas do not compile or hold patterns RE2 cannot run)`
    const said = log === undefined ? '' : `; its stderr goes to ${path.relative('.', log)}`
    out.line(`MCP server "${name}": ${counted(tools, 'tool')} as mcp__${name}__<tool>${left}${said}`)
  }
  const stop = watchSession(session, runtime, scope, out, [], progress)
  let outcome: TurnOutcome | undefined
  bindResumedAsk(session.events())
  try {
    if (options.task !== '') {
      agent.send(options.task)
      outcome = await agent.whenIdle()
    } else if (suspendedTurn(session.events()) !== undefined) outcome = await agent.resume()
    else throw new UsageError(`session "${id}" has no turn waiting for an approval; give run a task`)
  } finally {
    control.dispose()
    stop()
    await servers.close()
    await sandbox?.close()
    await session.close()
    await store.close()
  }
  const end = session.events().findLast((event) => event.type === 'turn/end')
  if (outcome?.reason === 'suspended') return suspendedRun(id, options, outcome.pending ?? [], out)
  out.line()
  out.line(`Session saved as ${id} in ${options.db}. Replay it with: ${replayHint(id, options.db)}`)
  if (control.reason !== undefined) {
    out.error(`tooltx: ${STOP_NOTES[control.reason]}; the turn was recorded as aborted`)
    return { id, exitStatus: STOPPED_EXIT_STATUS[control.reason] }
  }
  if (end?.type === 'turn/end' && end.data.reason === 'error') {
    if (model.timedOut !== undefined) throw new UsageError(model.timedOut)
    throw new UsageError(`the run failed: ${end.data.message ?? 'unknown error'}`)
  }
  return { id, exitStatus: 0 }
}

/**
 * A run whose turn waits for durable approvals (K5.10, K5.11): a new ask says what waits and
 * the commands that decide it and finish the turn, exit 0; a resume that finds the ask still
 * undecided says so, exit 1.
 */
function suspendedRun(
  id: string,
  options: RunOptions,
  pending: readonly PendingApproval[],
  out: Output,
): RunOutcome {
  const resume = runResumeHint(id, options.db)
  if (options.task !== '') {
    suspendedNote(out, { id, db: options.db }, pending, resume)
    out.line(`See the change it waits on with: ${approvalsHint(options.db)}`)
    return { id, exitStatus: 0 }
  }
  const waiting = pending.map((p) => `${p.name} (call ${p.callId})`).join(', ')
  const approve = approveHint(id, pending[0]?.callId ?? '<call-id>', options.db)
  out.error(
    `tooltx: the turn still waits for a decision on ${waiting}; decide it with ${approve}, then run ${resume} again`,
  )
  return { id, exitStatus: 1 }
}

/** `tooltx run "<task>"`: checks the `--mcp` servers, the task and the agent flags, then runs it. */
export const command: Command = defineCommand(
  USAGE,
  {
    strings: ['db', ...AGENT_STRING_FLAGS, 'session', 'timeout', 'approvals', 'approval-expiry'],
    repeatable: ['mcp', 'allow-shell'],
    booleans: ['yes'],
  },
  async ({ values, positionals }, out, env) => {
    const mcp = values.mcp === undefined ? [] : mcpServerSpecs(values.mcp)
    const task = positionals.join(' ').trim()
    const approvals = durableFlag(USAGE, values)
    // A suspended turn is finished by a run on its session without a task (K5.11).
    if (task === '' && !(approvals !== undefined && values.session !== undefined))
      throw usageError(USAGE, 'run needs a task, e.g. tooltx run "summarise the TODOs"')
    const outcome = await runCommand(
      {
        task,
        db: dbPath(values.db),
        ...agentFlags(USAGE, values),
        yes: values.yes === true,
        ...defined({ approvals }),
        mcp,
        allowShell: values['allow-shell'] ?? [],
        ...(values.timeout === undefined
          ? {}
          : { timeoutSeconds: count(USAGE, '--timeout', values.timeout, 0) }),
        ...defined({ session: values.session }),
        env,
      },
      out,
    )
    return outcome.exitStatus
  },
)
