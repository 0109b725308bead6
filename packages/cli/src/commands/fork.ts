import { type ForkPoint, forkOrigin, forkSession } from '@tooltx/session'
import { counted } from '../display/counted.js'
import type { Output } from '../display/output.js'
import { continueHint, replayHint } from '../display/replay-hint.js'
import { openStore, storedSessionId } from '../session-store.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, DB_HELP, dbPath, defined, usageError } from './flags.js'

/** `tooltx fork`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'fork',
  help: `Usage: tooltx fork <id> --at <seq | turn:N> [options]

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

/** Options of the `fork` command. */
export interface ForkCommandOptions {
  db: string
  /** The source: an id, `latest` or the start of one id. */
  session: string
  /** `--at`: a seq or `turn:N`. */
  at: string
  /** `--id`: the new session's id. */
  id?: string
}

/** Parses `--at`: a seq (`12`) or a turn (`turn:3`); anything else is a usage error. */
export function parseForkPoint(text: string): ForkPoint {
  if (/^\d{1,15}$/.test(text)) return Number(text)
  const turn = /^turn:(\d{1,15})$/.exec(text)
  if (turn !== null) return { turn: Number(turn[1]) }
  throw usageError(USAGE, `--at must be a seq (such as 12) or turn:N (such as turn:1), got "${text}"`)
}

/**
 * Forks a stored session at a seq or turn into a new session of the same database (A2.1):
 * the source is only read, and the fork is repaired into a valid state. Prints the new id and
 * how to replay and continue it.
 */
export async function forkCommand(options: ForkCommandOptions, out: Output): Promise<string> {
  const at = parseForkPoint(options.at)
  const source = await storedSessionId(options.db, options.session, `cannot fork "${options.session}"`)
  const store = openStore(options.db, out)
  try {
    const fork = await forkSession(store, source, {
      at,
      ...(options.id === undefined ? {} : { id: options.id }),
    })
    const events = fork.events()
    await fork.close()
    out.line(
      `Forked ${source} at seq ${forkOrigin(events)?.at} into ${fork.id} (${counted(events.length, 'event')}).`,
    )
    out.line(`Replay it with:   ${replayHint(fork.id, options.db)}`)
    out.line(`Continue it with: ${continueHint(fork.id, options.db)}`)
    return fork.id
  } finally {
    await store.close()
  }
}

/** `tooltx fork <id> --at <point>`: one session and a point to cut it at. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'at', 'id'] },
  async ({ values, positionals }, out) => {
    if (positionals.length !== 1) throw usageError(USAGE, 'fork needs exactly one session id')
    if (values.at === undefined) throw usageError(USAGE, 'fork needs --at <seq | turn:N>')
    await forkCommand(
      { db: dbPath(values.db), session: positionals[0]!, at: values.at, ...defined({ id: values.id }) },
      out,
    )
    return 0
  },
)
