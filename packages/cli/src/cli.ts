import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { DEFAULT_HOOK_TIMEOUT_MS as DEFAULT_AUDIT_HOOK_TIMEOUT_MS, DEFAULT_MODELS } from '@tooltx/agent'
import type { ToolMode } from '@tooltx/core'
import { DEFAULT_SQLITE_PATH } from '@tooltx/session'
import { type FlagSpec, type ParsedFlags, parseFlags } from './flags.js'
import { type Output, UsageError } from './output.js'

const DB_HELP = `  --db PATH|URL    the session database: a SQLite file (default ${DEFAULT_SQLITE_PATH})
                   or a PostgreSQL connection string (postgres://user@host:5432/db)`

const TOOLS_HELP = `  --tools FILE     offer the tools of your module instead of the workspace tools: its
                   default (or \`tools\`) export is an array of tool definitions, or a
                   function (runtime) => … that registers them and any policy; the
                   workspace's secrets and boundary guard still judges every call`

const HELP: Record<string, string> = {
  main: `tooltx — the tool runtime of an LLM agent

Usage: tooltx <command> [options]

Commands:
  demo             run a scripted agent over a sample workspace and save the session
  run "<task>"     run a task against a real model with the workspace tools or your own
  sessions         list saved sessions
  replay <id>      print the timeline of a saved session from its log
  view [id]        browse saved sessions in a web page, following live ones
  approvals        list the durable approvals waiting for a decision
  approve <s> <c>  approve (or --deny) call <c> of session <s>, waiting durably
  audit <id…>      decide the recorded calls again under a new policy and list the changes
  fork <id>        copy a session up to a seq or turn into a new session to continue
  mcp serve        serve the workspace tools, or your --tools module, to an MCP client
  worker           run turns from the PostgreSQL queue (any worker, any session)
  submit <s> "<m>" queue a message for session <s>; a worker answers it

Options:
  -h, --help       show this help
  --version        print the version of tooltx

Run \`tooltx <command> --help\` for the options of a command.

Exit status: 0 done, 1 a failure the message explains, 2 a usage error,
130 stopped by Ctrl-C, 141 stopped because stdout was closed.`,
  demo: `Usage: tooltx demo [options]

Runs a scripted agent over a copy of the bundled sample workspace with real tools (list,
read, grep, run checks, write a note): a parallel batch, a guard denial, an approval and a
timeout, shown live. At a terminal it asks you to approve the write; without one it
approves it itself and says so. Prints where the session was saved and how to replay it.

With --durable the write's approval is recorded in the session instead: the turn waits there,
this process exits, \`tooltx approve\` decides it from another command, and
\`tooltx demo --resume <id>\` finishes the turn.

Options:
${DB_HELP}
  --fast           stream the scripted replies without pauses
  --yes            approve the write without asking
  --durable        let the write's approval wait in the session for \`tooltx approve\`
  --resume ID      finish a durable demo session once its approval is decided
  -h, --help       show this help`,
  approvals: `Usage: tooltx approvals [options]

Lists every durable approval waiting for a decision, in every session: the session, the call,
the tool, when it expires, who may decide, the reason, the recorded arguments and their digest,
and the command that approves it. Never creates or changes the database.

Options:
${DB_HELP}
  -h, --help       show this help`,
  approve: `Usage: tooltx approve <session> <call-id> [options]

Prints the call's recorded arguments whole and their digest, then records a decision on its
durable approval: the call's turn then continues when an agent resumes the session
(\`tooltx demo --resume <id>\` for the demo). At a terminal it asks you to confirm the
arguments (y/N) before it approves; elsewhere an approval needs --digest, the digest of the
arguments you checked, and without it nothing is recorded (exit 2). The decision is bound to
that digest; a second decision, an expired approval, or a decider the agent does not allow is
refused. The session must not be held by a running writer.

Options:
  --deny           deny the call instead of approving it (needs no confirmation)
  --by NAME        who decides (default: <user>@<host>)
  --reason TEXT    why, recorded with the decision
  --digest HEX     the digest of the arguments you checked (printed by this command and by
                   \`tooltx approvals\`); refused if the recorded arguments differ
${DB_HELP}
  -h, --help       show this help`,
  run: `Usage: tooltx run "<task>" [options]

Runs one task against a real model with the workspace tools (or the tools of your --tools
module) and saves the session.

Options:
  --provider P     openai or anthropic (default: whichever key is set, OpenAI first)
  --model M        the model name (default ${DEFAULT_MODELS.openai} / ${DEFAULT_MODELS.anthropic})
  --base-url U     the provider's endpoint, such as an OpenAI-compatible server
                   (also OPENAI_BASE_URL / ANTHROPIC_BASE_URL); a local one (Ollama,
                   llama.cpp, vLLM) needs no key: --base-url http://127.0.0.1:11434/v1
  --mode M         native, code or both (default native)
  --workspace DIR  the directory the tools may touch (default: the current directory)
${TOOLS_HELP}
  --yes            approve every write (and every MCP call) without asking
  --mcp S          add an MCP server's tools, as mcp__<name>__<tool>: S is a command
                   (spawned, stdio) or an http(s) URL, optionally NAME=S; repeatable
  --session ID     continue this saved session (a fork, say) instead of starting one
  --timeout S      seconds a model request may go without an answer (default 120)
${DB_HELP}
  -h, --help       show this help

Writes and MCP calls ask for approval at a terminal ("Allow write_note? [y/N]"); without a terminal they
are refused unless --yes is given. Ctrl-C stops the run: the turn is saved as aborted and
the exit status is 130.

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.`,
  sessions: `Usage: tooltx sessions [options]

Lists the saved sessions, oldest first, with each one's final status (completed, aborted,
interrupted, error, or unfinished) and task. Never creates or changes the database.

Options:
${DB_HELP}
  -h, --help       show this help`,
  replay: `Usage: tooltx replay <id | latest | id-prefix> [options]

Prints a saved session's timeline from the log alone: turns, steps, each call with its card,
results and contexts. No tool runs, and the database is never created or changed. <id> may
be \`latest\` (the session created last) or the start of exactly one session id.

Options:
${DB_HELP}
  --follow         keep printing the session's events as they are written, until
                   Ctrl-C (a PostgreSQL database only: its appends notify readers)
  -h, --help       show this help`,
  view: `Usage: tooltx view [id | latest | id-prefix] [options]

Serves the saved sessions as a web page on this machine (127.0.0.1 only) and prints its URL:
every session, and each one's turns, steps and calls as cards, with filters and links to
events. A session still being written updates in place. Nothing is changed in the store, and
the page loads nothing from the network. Ctrl-C stops it.

Options:
  --db PATH        a SQLite database, a folder of .jsonl logs or postgres://… (default
                   ${DEFAULT_SQLITE_PATH}); PostgreSQL sessions update as they are appended
  --port N         the port (default: a free one)
  --open           open the page in the default browser
  -h, --help       show this help`,
  worker: `Usage: tooltx worker --db postgres://… [options]

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
  --yes            approve every write (without it writes are refused: nobody is asked)
  -h, --help       show this help

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL.`,
  submit: `Usage: tooltx submit <session> "<message>" --db postgres://…

Queues the message for session <session> (created if new) and prints the submission id once
the job is durable; a running \`tooltx worker\` answers it.

Options:
  --db URL         the PostgreSQL of the sessions and the queue (required)
  --queue NAME     the queue to put it on (default tooltx-turns)
  -h, --help       show this help`,
  audit: `Usage: tooltx audit <id…> --policy FILE [options]
       tooltx audit --all --policy FILE [options]

Decides every recorded call of the sessions again — model-direct calls and nested Code Mode
calls, their raw arguments parsed and validated against the tools' current schemas — with the
policy module's pre-execute hooks and guards, without running any tool and with no approver
(an ask is reported as "would ask"), and lists the calls whose decision would change:
session, call, tool, before → after, reason, then the totals. A policy that throws is that
call's policy failure. The same log and policy always print the same report.

The policy module's default export is a function that registers the policy on a runtime:
  export default (runtime) => { runtime.guard(…); runtime.onPreExecute(…) }

Options:
  --policy FILE    the policy module (required)
  --tools FILE     a module whose default export is an array of tool definitions, or a
                   function that registers them (default: the CLI's workspace tools)
  --all            every saved session
  --json           print every audited call and the totals as JSON
  --hook-timeout MS
                   how long the policy may take to decide one call (default
                   ${DEFAULT_AUDIT_HOOK_TIMEOUT_MS}); a call it does not decide in time is a policy
                   failure, and a policy that does not load in time a usage error
${DB_HELP}
  -h, --help       show this help

Exit status: 0 no decision would change, 1 some would (or a failure), 2 a usage error.`,
  fork: `Usage: tooltx fork <id> --at <seq | turn:N> [options]

Creates a new session holding the session's events up to seq <seq> (or through turn N),
repaired into a valid state as a crash would be (open calls answered, the turn closed). Its
first event names the source and the seq; the source is not changed. Continue the fork with
\`tooltx run --session <fork> "<task>"\`, with another model, mode or tools.

Options:
  --at POINT       a seq (0 keeps nothing) or turn:N (turns 1…N) (required)
  --id ID          the new session's id (default <id>.fork-<seq>)
${DB_HELP}
  -h, --help       show this help`,
}

const MODES: readonly string[] = ['native', 'code', 'both']

const PROVIDERS: readonly string[] = ['openai', 'anthropic']

/** The version in the CLI's package.json. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

/** The flags `run` and `worker` take a value for to build their agent (and `--yes`). */
const AGENT_STRING_FLAGS = ['provider', 'model', 'base-url', 'mode', 'workspace', 'tools'] as const

/** A command as `main` runs it: given its name, its arguments, the output and the environment. */
type Command = (name: string, args: string[], out: Output, env: NodeJS.ProcessEnv) => Promise<number>

/**
 * A command taking the flags of `spec`: it prints its help for `--help`, and otherwise calls `run`
 * with the parsed flags and positionals; `run` resolves to the exit code.
 */
function command<const S extends FlagSpec>(
  spec: S,
  run: (parsed: ParsedFlags<S>, out: Output, env: NodeJS.ProcessEnv) => Promise<number>,
): Command {
  return async (name, args, out, env) => {
    const parsed = parseFlags(args, spec, HELP[name])
    if ((parsed.values as { help?: boolean }).help) return help(out, name)
    return await run(parsed, out, env)
  }
}

/** A command that takes only `--db` and no arguments, and hands the database to its module. */
function databaseCommand(
  name: string,
  load: () => Promise<(options: { db: string }, out: Output) => Promise<void>>,
): Command {
  return command({ strings: ['db'] }, async ({ values, positionals }, out) => {
    noPositionals(name, positionals)
    const run = await load()
    await run({ db: dbPath(values.db) }, out)
    return 0
  })
}

/**
 * The commands `main` dispatches to by name (`mcp serve` parses its own flags). Each loads its
 * module when it runs, so a command starts without loading the others' dependencies (a
 * restarted worker need not load the MCP SDK or QuickJS).
 */
const COMMANDS: Readonly<Record<string, Command>> = {
  demo: command(
    { strings: ['db', 'resume'], booleans: ['fast', 'yes', 'durable'] },
    async ({ values, positionals }, out) => {
      noPositionals('demo', positionals)
      if (values.resume !== undefined && (values.durable === true || values.yes === true))
        throw new UsageError(
          `--resume continues a durable demo: it takes no --durable or --yes\n\n${HELP.demo}`,
          2,
        )
      if (values.durable === true && values.yes === true)
        throw new UsageError(`--durable and --yes contradict each other: pick one\n\n${HELP.demo}`, 2)
      const { demoCommand } = await import('./commands/demo.js')
      const demo = await demoCommand(
        {
          db: dbPath(values.db),
          fast: values.fast === true,
          yes: values.yes === true,
          durable: values.durable === true,
          ...defined({ resume: values.resume }),
        },
        out,
      )
      return demo.exitStatus
    },
  ),
  approvals: databaseCommand(
    'approvals',
    async () => (await import('./commands/approvals.js')).approvalsCommand,
  ),
  approve: command(
    { strings: ['db', 'by', 'reason', 'digest'], booleans: ['deny'] },
    async ({ values, positionals }, out) => {
      if (positionals.length !== 2)
        throw new UsageError(`approve needs a session id and a call id\n\n${HELP.approve}`, 2)
      const { approveCommand } = await import('./commands/approve.js')
      return await approveCommand(
        {
          db: dbPath(values.db),
          session: positionals[0]!,
          callId: positionals[1]!,
          deny: values.deny === true,
          ...defined({ by: values.by, reason: values.reason, digest: values.digest }),
        },
        out,
      )
    },
  ),
  run: command(
    { strings: ['db', ...AGENT_STRING_FLAGS, 'session', 'timeout'], repeatable: ['mcp'], booleans: ['yes'] },
    async ({ values, positionals }, out, env) => {
      const mcp =
        values.mcp === undefined ? [] : (await import('./commands/run-mcp.js')).mcpServerSpecs(values.mcp)
      const task = positionals.join(' ').trim()
      if (task === '')
        throw new UsageError(`run needs a task, e.g. tooltx run "summarise the TODOs"\n\n${HELP.run}`, 2)
      const { runCommand } = await import('./commands/run.js')
      const outcome = await runCommand(
        {
          task,
          db: dbPath(values.db),
          ...agentFlags('run', values),
          yes: values.yes === true,
          mcp,
          ...(values.timeout === undefined
            ? {}
            : { timeoutSeconds: count('run', '--timeout', values.timeout, 0) }),
          ...defined({ session: values.session }),
          env,
        },
        out,
      )
      return outcome.exitStatus
    },
  ),
  sessions: databaseCommand('sessions', async () => (await import('./commands/sessions.js')).sessionsCommand),
  replay: command({ strings: ['db'], booleans: ['follow'] }, async ({ values, positionals }, out) => {
    if (positionals.length !== 1)
      throw new UsageError(`replay needs exactly one session id\n\n${HELP.replay}`, 2)
    const { replayCommand } = await import('./commands/replay.js')
    return await replayCommand(
      { db: dbPath(values.db), id: positionals[0]!, follow: values.follow === true },
      out,
    )
  }),
  view: command({ strings: ['db', 'port'], booleans: ['open'] }, async ({ values, positionals }, out) => {
    if (positionals.length > 1)
      throw new UsageError(
        `view takes at most one session id, got "${positionals.join(' ')}"\n\n${HELP.view}`,
        2,
      )
    const port = values.port === undefined ? 0 : Number(values.port)
    if (!/^\d{1,5}$/.test(values.port ?? '0') || port > 65_535)
      throw new UsageError(`--port must be a number from 0 to 65535, got "${values.port}"\n\n${HELP.view}`, 2)
    const { viewCommand } = await import('./commands/view.js')
    return await viewCommand(
      { db: dbPath(values.db), ...defined({ id: positionals[0] }), port, open: values.open === true },
      out,
    )
  }),
  audit: command(
    { strings: ['db', 'policy', 'tools', 'hook-timeout'], booleans: ['all', 'json'] },
    async ({ values, positionals }, out) => {
      if (values.policy === undefined || values.policy === '')
        throw new UsageError(`audit needs --policy FILE\n\n${HELP.audit}`, 2)
      if ((values.all === true) === positionals.length > 0)
        throw new UsageError(`audit needs session ids or --all (not both)\n\n${HELP.audit}`, 2)
      const { auditCommand } = await import('./commands/audit.js')
      return await auditCommand(
        {
          db: dbPath(values.db),
          sessions: positionals,
          all: values.all === true,
          policy: values.policy,
          ...defined({ tools: values.tools }),
          json: values.json === true,
          hookTimeoutMs: count(
            'audit',
            '--hook-timeout',
            values['hook-timeout'],
            DEFAULT_AUDIT_HOOK_TIMEOUT_MS,
          ),
        },
        out,
      )
    },
  ),
  worker: command(
    {
      strings: ['db', 'queue', 'concurrency', 'visibility-timeout', 'grace', ...AGENT_STRING_FLAGS],
      booleans: ['yes'],
    },
    async ({ values, positionals }, out, env) => {
      noPositionals('worker', positionals)
      const { workerCommand } = await import('./commands/worker.js')
      return await workerCommand(
        {
          db: postgresUrl('worker', values.db),
          ...defined({ queue: values.queue }),
          concurrency: count('worker', '--concurrency', values.concurrency, 1),
          visibilityTimeout: count('worker', '--visibility-timeout', values['visibility-timeout'], 300),
          grace: count('worker', '--grace', values.grace, 10, 0),
          ...agentFlags('worker', values),
          yes: values.yes === true,
          env,
        },
        out,
      )
    },
  ),
  submit: command({ strings: ['db', 'queue'] }, async ({ values, positionals }, out) => {
    const [session, ...words] = positionals
    const message = words.join(' ').trim()
    if (session === undefined || message === '') {
      throw new UsageError(`submit needs a session id and a message\n\n${HELP.submit}`, 2)
    }
    const db = postgresUrl('submit', values.db)
    const { submitCommand } = await import('./commands/submit.js')
    await submitCommand({ session, message, db, ...defined({ queue: values.queue }) }, out)
    return 0
  }),
  fork: command({ strings: ['db', 'at', 'id'] }, async ({ values, positionals }, out) => {
    if (positionals.length !== 1) throw new UsageError(`fork needs exactly one session id\n\n${HELP.fork}`, 2)
    if (values.at === undefined) throw new UsageError(`fork needs --at <seq | turn:N>\n\n${HELP.fork}`, 2)
    const { forkCommand } = await import('./commands/fork.js')
    await forkCommand(
      { db: dbPath(values.db), session: positionals[0]!, at: values.at, ...defined({ id: values.id }) },
      out,
    )
    return 0
  }),
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and returns the exit code. Every
 * failure the user can fix is printed as one clear message; nothing throws out of here.
 */
export async function main(
  argv: string[],
  out: Output,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      out.line(HELP.main)
      return command === undefined ? 2 : 0
    }
    if (command === '--version') {
      out.line(`tooltx ${version()}`)
      return 0
    }
    if (command === 'mcp') {
      const { MCP_SERVE_HELP, mcpServeCommand } = await import('./commands/mcp-serve.js')
      if (rest[0] !== 'serve') throw new UsageError(`mcp needs a subcommand: serve\n\n${MCP_SERVE_HELP}`, 2)
      return await mcpServeCommand(rest.slice(1), out, env)
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
    if (run === undefined) throw new UsageError(`unknown command "${command}"\n\n${HELP.main}`, 2)
    return await run(command, rest, out, env)
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(`tooltx: ${error.message}`)
      return error.exitCode
    }
    out.error(`tooltx: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}

/** `values` without its `undefined` members: the options a command passes only when given. */
function defined<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const present: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) if (value !== undefined) present[key] = value
  return present as { [K in keyof T]?: Exclude<T[K], undefined> }
}

/** The checked agent flags: provider, model, endpoint, mode, workspace folder and tools module. */
function agentFlags(
  command: string,
  values: {
    provider?: string
    model?: string
    'base-url'?: string
    mode?: string
    workspace?: string
    tools?: string
  },
): {
  provider?: string
  model?: string
  baseUrl?: string
  mode: ToolMode
  workspace: string
  tools?: string
} {
  const mode = values.mode ?? 'native'
  if (!MODES.includes(mode))
    throw new UsageError(`--mode must be native, code or both, got "${mode}"\n\n${HELP[command]}`, 2)
  if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) {
    throw new UsageError(
      `--provider must be openai or anthropic, got "${values.provider}"\n\n${HELP[command]}`,
      2,
    )
  }
  const workspace = path.resolve(values.workspace ?? '.')
  if (!statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(
      `--workspace ${workspace} is not a directory; pass the folder the tools may touch`,
      2,
    )
  }
  return {
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    mode: mode as ToolMode,
    workspace,
    ...(values.tools !== undefined ? { tools: values.tools } : {}),
  }
}

/** `--db` of a command that needs PostgreSQL: workers share sessions and the queue through it. */
function postgresUrl(command: string, value: string | undefined): string {
  if (value === undefined || !/^postgres(ql)?:\/\//.test(value)) {
    throw new UsageError(
      `${command} needs --db postgres://user:password@host:port/database (workers share sessions and the queue through PostgreSQL), got ${value === undefined ? 'no --db' : `"${value}"`}\n\n${HELP[command]}`,
      2,
    )
  }
  return value
}

/** A whole-number flag (`min` or more), or `fallback` when absent. */
function count(command: string, flag: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min) {
    throw new UsageError(
      `${flag} must be a whole number of at least ${min}, got "${value}"\n\n${HELP[command]}`,
      2,
    )
  }
  return n
}

function help(out: Output, command: string): number {
  out.line(HELP[command])
  return 0
}

function noPositionals(command: string, positionals: string[]): void {
  if (positionals.length > 0) {
    throw new UsageError(
      `${command} takes no arguments, got "${positionals.join(' ')}"\n\n${HELP[command]}`,
      2,
    )
  }
}

function dbPath(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : DEFAULT_SQLITE_PATH
}
