import type { SessionEvent } from '@tooltx/session'
import { counted } from '../display/counted.js'
import type { Output } from '../display/output.js'
import { recordedLookup } from '../display/presenters.js'
import { TimelineRenderer } from '../display/timeline.js'
import { STOPPED_EXIT_STATUS } from '../run-control.js'
import { existingSessions, resolveSession } from '../session-store.js'
import { cliDefinitions, renderSession } from '../session-timeline.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, DB_HELP, dbPath, usageError } from './flags.js'

/** `tooltx replay`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'replay',
  help: `Usage: tooltx replay <id | latest | id-prefix> [options]

Prints a saved session's timeline from the log alone: turns, steps, each call with its card,
results and contexts, and at the end each durable approval that expired with nobody deciding.
No tool runs, and the database is never created or changed. <id> may be \`latest\` (the
session created last) or the start of exactly one session id.

Options:
${DB_HELP}
  --follow         keep printing the session's events as they are written, and an
                   approval's expiry when it comes, until Ctrl-C (a PostgreSQL
                   database only: its appends notify readers)
  -h, --help       show this help`,
}

/**
 * Prints the timeline of a stored session from the log alone: turns, steps, every call with
 * its card, results and contexts (`renderSession`). `id` may be `latest` or the start of one
 * id. The database is read-only here and the tools are never run. A durable ask nobody decided
 * gets its expiry line once it expired (K5.18). With `follow` (a Postgres database only) it
 * then keeps printing the session's events as they are appended, and each expiry when it
 * comes, until Ctrl-C or SIGTERM (exit status 130) or until stdout closes (141). Resolves with
 * the exit status.
 */
export async function replayCommand(
  options: { db: string; id: string; follow?: boolean },
  out: Output,
): Promise<number> {
  const reader = existingSessions(options.db, `no session "${options.id}"`)
  try {
    if (options.follow === true && !('follow' in reader)) {
      throw usageError(
        USAGE,
        `--follow needs a PostgreSQL session database (--db postgres://…), whose appends notify readers; ${options.db} is a SQLite file`,
      )
    }
    const id = resolveSession(options.id, await reader.listSessions(), options.db)
    const events = (await reader.read(id)) ?? []
    out.line(`session ${id} (${counted(events.length, 'event')})`)
    out.line()
    if (options.follow !== true || !('follow' in reader)) {
      for (const line of renderSession(events)) out.line(line)
      return 0
    }
    // Following: one renderer for the whole session, whose cards come from the CLI's presenters
    // as the results seen so far record them (K3.7).
    const seen: SessionEvent[] = []
    const known = cliDefinitions()
    let lookup = recordedLookup(seen, known)
    const timeline = new TimelineRenderer((name) => lookup(name))
    // An ask's expiry is no event: a timer prints it when it comes, if nobody decided (K5.18).
    let expiry: NodeJS.Timeout | undefined
    const expire = (): void => {
      for (const line of timeline.expired(Date.now())) out.line(line)
      clearTimeout(expiry)
      const wait = timeline.nextExpiry(Date.now())
      // Unref'd: a timer never keeps the process up once following stopped.
      if (wait !== undefined) expiry = setTimeout(expire, wait).unref()
    }
    const print = (batch: readonly SessionEvent[]): void => {
      seen.push(...batch)
      lookup = recordedLookup(seen, known)
      for (const event of batch) for (const line of timeline.render(event)) out.line(line)
      expire()
    }
    print(events)
    return await new Promise<number>((resolve, reject) => {
      let stop: (() => Promise<void>) | undefined
      const finish = (settle: () => void): void => {
        clearTimeout(expiry)
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
        offClosed()
        void (stop?.() ?? Promise.resolve()).then(settle, settle)
      }
      const onSignal = (): void => finish(() => resolve(STOPPED_EXIT_STATUS.interrupted))
      const offClosed = out.onClosed(() => finish(() => resolve(STOPPED_EXIT_STATUS['output-closed'])))
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      reader
        .follow(id, events.length, print, (error) => finish(() => reject(error)))
        .then(
          (s) => {
            stop = s
          },
          (error: unknown) => finish(() => reject(error)),
        )
    })
  } finally {
    await reader.close()
  }
}

/** `tooltx replay <id>`: exactly one session. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db'], booleans: ['follow'] },
  async ({ values, positionals }, out) => {
    if (positionals.length !== 1) throw usageError(USAGE, 'replay needs exactly one session id')
    return await replayCommand(
      { db: dbPath(values.db), id: positionals[0]!, follow: values.follow === true },
      out,
    )
  },
)
