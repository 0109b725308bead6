import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_MODELS } from '@tooltx/agent'
import type { Mode } from '@tooltx/core'
import { DEFAULT_SQLITE_PATH } from '@tooltx/session'
import { demoCommand } from './commands/demo.js'
import { MCP_SERVE_HELP, mcpServeCommand } from './commands/mcp-serve.js'
import { replayCommand } from './commands/replay.js'
import { runCommand } from './commands/run.js'
import { sessionsCommand } from './commands/sessions.js'
import { type Output, UsageError } from './output.js'

const DB_HELP = `  --db PATH|URL    the session database: a SQLite file (default ${DEFAULT_SQLITE_PATH})
                   or a PostgreSQL connection string (postgres://user@host:5432/db)`

const HELP: Record<string, string> = {
  main: `tooltx — the tool runtime of an LLM agent

Usage: tooltx <command> [options]

Commands:
  demo             run a scripted agent over a sample workspace and save the session
  run "<task>"     run a task against a real model with the workspace tools
  sessions         list saved sessions
  replay <id>      print the timeline of a saved session from its log
  mcp serve        serve the workspace tools to an MCP client (stdio, or --http)

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

Options:
${DB_HELP}
  --fast           stream the scripted replies without pauses
  --yes            approve the write without asking
  -h, --help       show this help`,
  run: `Usage: tooltx run "<task>" [options]

Runs one task against a real model with the workspace tools and saves the session.

Options:
  --provider P     openai or anthropic (default: whichever key is set, OpenAI first)
  --model M        the model name (default ${DEFAULT_MODELS.openai} / ${DEFAULT_MODELS.anthropic})
  --base-url U     the provider's endpoint, such as an OpenAI-compatible server
                   (also OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
  --mode M         native, code or both (default native)
  --workspace DIR  the directory the tools may touch (default: the current directory)
  --yes            approve every write without asking
${DB_HELP}
  -h, --help       show this help

Writes ask for approval at a terminal ("Allow write_note? [y/N]"); without a terminal they
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

const HELP_FLAG = { type: 'boolean', short: 'h' } as const

/** Runs a `parseArgs` call, turning its errors into a usage error with the command's help. */
function parsed<T>(command: string, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${HELP[command]}`, 2)
  }
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
    switch (command) {
      case 'demo': {
        const { values, positionals } = parsed('demo', () =>
          parseArgs({
            args: rest,
            allowPositionals: true,
            options: {
              db: { type: 'string' },
              fast: { type: 'boolean' },
              yes: { type: 'boolean' },
              help: HELP_FLAG,
            },
          }),
        )
        if (values.help) return help(out, 'demo')
        noPositionals('demo', positionals)
        const demo = await demoCommand(
          { db: dbPath(values.db), fast: values.fast === true, yes: values.yes === true },
          out,
        )
        return demo.exitStatus
      }
      case 'run': {
        const { values, positionals } = parsed('run', () =>
          parseArgs({
            args: rest,
            allowPositionals: true,
            options: {
              db: { type: 'string' },
              provider: { type: 'string' },
              model: { type: 'string' },
              'base-url': { type: 'string' },
              mode: { type: 'string' },
              workspace: { type: 'string' },
              yes: { type: 'boolean' },
              help: HELP_FLAG,
            },
          }),
        )
        if (values.help) return help(out, 'run')
        const task = positionals.join(' ').trim()
        if (task === '')
          throw new UsageError(`run needs a task, e.g. tooltx run "summarise the TODOs"\n\n${HELP.run}`, 2)
        const mode = values.mode ?? 'native'
        if (!MODES.includes(mode))
          throw new UsageError(`--mode must be native, code or both, got "${mode}"\n\n${HELP.run}`, 2)
        if (values.provider !== undefined && !PROVIDERS.includes(values.provider)) {
          throw new UsageError(
            `--provider must be openai or anthropic, got "${values.provider}"\n\n${HELP.run}`,
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
        const outcome = await runCommand(
          {
            task,
            db: dbPath(values.db),
            ...(typeof values.provider === 'string' ? { provider: values.provider } : {}),
            ...(typeof values.model === 'string' ? { model: values.model } : {}),
            ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
            mode: mode as Mode,
            workspace,
            yes: values.yes === true,
            env,
          },
          out,
        )
        return outcome.exitStatus
      }
      case 'sessions': {
        const { values, positionals } = parsed('sessions', () =>
          parseArgs({
            args: rest,
            allowPositionals: true,
            options: { db: { type: 'string' }, help: HELP_FLAG },
          }),
        )
        if (values.help) return help(out, 'sessions')
        noPositionals('sessions', positionals)
        await sessionsCommand({ db: dbPath(values.db) }, out)
        return 0
      }
      case 'replay': {
        const { values, positionals } = parsed('replay', () =>
          parseArgs({
            args: rest,
            allowPositionals: true,
            options: { db: { type: 'string' }, follow: { type: 'boolean' }, help: HELP_FLAG },
          }),
        )
        if (values.help) return help(out, 'replay')
        if (positionals.length !== 1)
          throw new UsageError(`replay needs exactly one session id\n\n${HELP.replay}`, 2)
        return await replayCommand(
          { db: dbPath(values.db), id: positionals[0]!, follow: values.follow === true },
          out,
        )
      }
      case 'mcp':
        if (rest[0] !== 'serve') throw new UsageError(`mcp needs a subcommand: serve\n\n${MCP_SERVE_HELP}`, 2)
        return await mcpServeCommand(rest.slice(1), out, env)
      default:
        throw new UsageError(`unknown command "${command}"\n\n${HELP.main}`, 2)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(`tooltx: ${error.message}`)
      return error.exitCode
    }
    out.error(`tooltx: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
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
