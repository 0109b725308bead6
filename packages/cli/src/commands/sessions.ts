import type { SessionReader } from '@tooltx/session'
import { counted } from '../display/counted.js'
import type { Output } from '../display/output.js'
import { openAsksStanding, type SessionSummary, summarizeSession } from '../display/session-summary.js'
import { plainTitle } from '../display/terminal-text.js'
import { dbLabel, openSessions } from '../session-store.js'
import { type Command, databaseCommand } from './command.js'
import { type CommandUsage, DB_HELP } from './flags.js'

/** `tooltx sessions`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'sessions',
  help: `Usage: tooltx sessions [options]

Lists the saved sessions, oldest first, with each one's final status (completed, aborted,
interrupted, error, limit, suspended, unfinished, empty or queued) and task; a suspended one
says whether its approval is waiting or expired. Never creates or changes the database.

Options:
${DB_HELP}
  -h, --help       show this help`,
}

const TASK_CHARS = 60

/** `text` on one line (control characters and runs of white space as one space), at most `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = [...plainTitle(text)]
  return flat.length <= max ? flat.join('') : `${flat.slice(0, max - 1).join('')}…`
}

/** `(forked from <source> at seq <at>) ` for a fork (A2.3), `''` for any other session. */
function lineage(about: SessionSummary): string {
  const origin = about.forkedFrom
  return origin === undefined ? '' : `(forked from ${origin.source} at seq ${origin.at}) `
}

/** `(<n> submitted message(s) failed: see replay) ` when a worker gave up on some (N2.12), else `''`. */
function failed(about: SessionSummary): string {
  const n = about.failedSubmissions
  return n === 0 ? '' : `(${counted(n, 'submitted message')} failed: see replay) `
}

/** What a suspended session waits for (K5.19): `(waiting for approval) `, `(approval expired) `, else `''`. */
function waitingOn(about: Row): string {
  if (about.status !== 'suspended' || about.asks === undefined) return ''
  return about.asks === 'waiting' ? '(waiting for approval) ' : '(approval expired) '
}

/** A session's summary and how its undecided asks stand now. */
type Row = SessionSummary & { asks: 'waiting' | 'expired' | undefined }

/** A session's row; a session whose rows are damaged is listed with the damage instead. */
async function summary(reader: SessionReader, id: string): Promise<Row | { damaged: string }> {
  try {
    const events = (await reader.read(id)) ?? []
    return { ...summarizeSession(events), asks: openAsksStanding(events, Date.now()) }
  } catch (error) {
    return { damaged: (error as Error).message }
  }
}

/**
 * Lists the sessions stored in the database, oldest first: id, events, last update, final
 * status, and task (after the count of failed submissions and the lineage of a fork). Reads the database read-only; a missing database is reported, not created.
 */
export async function sessionsCommand(options: { db: string }, out: Output): Promise<void> {
  const reader = openSessions(options.db)
  try {
    const sessions = (await reader?.listSessions()) ?? []
    if (sessions.length === 0) {
      out.line(`no sessions in ${dbLabel(options.db)} yet; run \`tooltx demo\` to make one`)
      return
    }
    out.line(
      `${'id'.padEnd(40)} ${'events'.padStart(6)}  ${'updated'.padEnd(24)}  ${'status'.padEnd(11)} task`,
    )
    for (const info of sessions) {
      const about = await summary(reader!, info.id)
      // The damage is shown in full: it names the seq to repair.
      const [status, task] =
        'damaged' in about
          ? ['damaged', about.damaged]
          : [
              about.status,
              `${waitingOn(about)}${failed(about)}${lineage(about)}${oneLine(about.task ?? '', TASK_CHARS)}`,
            ]
      out.line(
        `${info.id.padEnd(40)} ${String(info.events).padStart(6)}  ${info.updated.padEnd(24)}  ${status.padEnd(11)} ${task}`.trimEnd(),
      )
    }
  } finally {
    await reader?.close()
  }
}

/** `tooltx sessions`: takes only `--db`. */
export const command: Command = databaseCommand(USAGE, sessionsCommand)
