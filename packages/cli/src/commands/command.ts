import type { Output } from '../display/output.js'
import {
  type CommandUsage,
  dbPath,
  type FlagSpec,
  noPositionals,
  type ParsedFlags,
  parseFlags,
} from './flags.js'

/**
 * A command as `main` runs it: given the arguments after its name, the output and the
 * environment, it resolves to the exit status; a mistake the user can fix throws `UsageError`.
 */
export type Command = (args: string[], out: Output, env: NodeJS.ProcessEnv) => Promise<number>

/**
 * The command that parses `flags` (a parse error is a usage error), prints its help for
 * `-h`/`--help`, and otherwise calls `run` with the parsed flags and positionals.
 */
export function defineCommand<const S extends FlagSpec>(
  usage: CommandUsage,
  flags: S,
  run: (parsed: ParsedFlags<S>, out: Output, env: NodeJS.ProcessEnv) => Promise<number>,
): Command {
  return async (args, out, env) => {
    const parsed = parseFlags(args, flags, usage)
    if ((parsed.values as { help?: boolean }).help) {
      out.line(usage.help)
      return 0
    }
    return await run(parsed, out, env)
  }
}

/** A command that takes only `--db` and no arguments, and hands the database to `run` (exit 0). */
export function databaseCommand(
  usage: CommandUsage,
  run: (options: { db: string }, out: Output) => Promise<void>,
): Command {
  return defineCommand(usage, { strings: ['db'] }, async ({ values, positionals }, out) => {
    noPositionals(usage, positionals)
    await run({ db: dbPath(values.db) }, out)
    return 0
  })
}
