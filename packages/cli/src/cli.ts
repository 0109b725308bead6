import { readFileSync } from 'node:fs'
import type { Command } from './commands/command.js'
import { type Output, seeHelp, UsageError } from './display/output.js'

/** The help of `tooltx` itself; each command owns its own. */
const HELP = `tooltx — the tool runtime of an LLM agent

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
130 stopped by Ctrl-C, 141 stopped because stdout was closed.`

/** The version in the CLI's package.json. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

/**
 * The commands `main` dispatches to by name, each loading its module when it runs, so a command
 * starts without loading the others' dependencies (a restarted worker need not load the MCP SDK
 * or QuickJS). Each module exports its `command`: its help, its flags and their checks.
 */
const COMMANDS: Readonly<Record<string, () => Promise<{ command: Command }>>> = {
  demo: () => import('./commands/demo.js'),
  approvals: () => import('./commands/approvals.js'),
  approve: () => import('./commands/approve.js'),
  run: () => import('./commands/run.js'),
  sessions: () => import('./commands/sessions.js'),
  replay: () => import('./commands/replay.js'),
  view: () => import('./commands/view.js'),
  audit: () => import('./commands/audit.js'),
  worker: () => import('./commands/worker.js'),
  submit: () => import('./commands/submit.js'),
  fork: () => import('./commands/fork.js'),
  mcp: () => import('./commands/mcp-serve.js'),
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
      out.line(HELP)
      return command === undefined ? 2 : 0
    }
    if (command === '--version') {
      out.line(`tooltx ${version()}`)
      return 0
    }
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
    if (load === undefined) throw new UsageError(`unknown command "${command}"\n${seeHelp()}`, 2)
    return await (await load()).command(rest, out, env)
  } catch (error) {
    if (error instanceof UsageError) {
      out.error(`tooltx: ${error.message}`)
      return error.exitCode
    }
    out.error(`tooltx: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}
