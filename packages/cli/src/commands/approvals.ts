import { type PendingApproval, pendingApprovals } from '@tooltx/agent'
import type { SessionEvent } from '@tooltx/session'
import { turnSubmission } from '@tooltx/worker'
import { argumentLines, reasonLines } from '../display/approval-arguments.js'
import { expiredWords } from '../display/ask-standing.js'
import { counted } from '../display/counted.js'
import type { Output } from '../display/output.js'
import { approveHint, suspendedResumeHint } from '../display/replay-hint.js'
import { terminalSafe } from '../display/terminal-text.js'
import { dbLabel, existingSessions, isPostgres } from '../session-store.js'
import { type Command, databaseCommand } from './command.js'
import { type CommandUsage, DB_HELP } from './flags.js'

/** `tooltx approvals`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'approvals',
  help: `Usage: tooltx approvals [options]

Lists every durable approval waiting for a decision, in every session: the session, the call,
the tool, when it expires, who may decide, the reason, the recorded arguments and their digest,
and the command that approves it; then each ask that expired with nobody deciding (its call is
denied) and how its turn continues. Never creates or changes the database.

Options:
${DB_HELP}
  -h, --help       show this help`,
}

/** The raw arguments of call `callId` as its `tool/call` recorded them (`''` when the log has none). */
export function recordedArguments(events: readonly SessionEvent[], callId: string): string {
  const call = events.findLast((event) => event.type === 'tool/call' && event.data.callId === callId)
  return call?.type === 'tool/call' ? call.data.arguments : ''
}

/** How long until `expiresAt`, in words (`in 23 h 59 min`). */
function remaining(wait: PendingApproval, now: number): string {
  const minutes = Math.max(0, Math.floor((Date.parse(wait.expiresAt) - now) / 60_000))
  return minutes >= 60 ? `in ${Math.floor(minutes / 60)} h ${minutes % 60} min` : `in ${minutes} min`
}

/**
 * Lists the durable approvals waiting for a decision in every session of the database (K5.2):
 * per approval its session, call, tool, expiry, who may decide, the reason, the recorded
 * arguments (whole, or their start and end with how to see them whole: K5.6) and the command
 * that approves it; an ask that expired undecided is listed apart, without an approve command,
 * with how its turn continues (K5.15). Reads the database read-only; a session whose
 * log cannot be read is named with the damage and the rest are still listed.
 */
export async function approvalsCommand(options: { db: string }, out: Output): Promise<void> {
  const reader = existingSessions(options.db, 'approvals')
  const now = Date.now()
  let waiting = 0
  let expired = 0
  try {
    for (const info of await reader.listSessions()) {
      let events: readonly SessionEvent[]
      try {
        events = (await reader.read(info.id)) ?? []
      } catch (error) {
        out.error(`tooltx: session ${info.id} could not be read: ${(error as Error).message}`)
        continue
      }
      for (const wait of pendingApprovals(events, { now })) {
        if (wait.expired) {
          expired++
          expiredEntry(out, info.id, wait, events, options.db)
          continue
        }
        waiting++
        out.line(
          terminalSafe(
            `${info.id}  call ${wait.callId}  ${wait.name}  expires ${wait.expiresAt} (${remaining(wait, now)})`,
          ),
        )
        for (const line of reasonLines(wait.reason)) out.line(terminalSafe(`    ${line}`))
        if (wait.deciders !== undefined) out.line(terminalSafe(`    may decide: ${wait.deciders.join(', ')}`))
        const approve = approveHint(info.id, wait.callId, options.db)
        const shown = argumentLines(recordedArguments(events, wait.callId), {
          digest: wait.argumentsDigest,
          whole: `run ${approve}: it prints them whole and records nothing unless you confirm`,
        })
        for (const line of shown) out.line(terminalSafe(`    ${line}`))
        out.line(`    digest: ${wait.argumentsDigest}`)
        out.line(terminalSafe(`    approve: ${approve}   (or add --deny)`))
      }
    }
  } finally {
    await reader.close()
  }
  if (expired > 0)
    out.line(`${counted(expired, 'approval')} expired with nobody deciding: denied when the turn continues`)
  out.line(
    waiting === 0
      ? `no approvals are waiting in ${dbLabel(options.db)}`
      : `${counted(waiting, 'approval')} waiting in ${dbLabel(options.db)}`,
  )
}

/**
 * An ask that expired undecided (K5.15): no longer waiting, and no approve command, since a
 * decision would be refused; what happens to the call and how its turn continues instead.
 */
function expiredEntry(
  out: Output,
  id: string,
  wait: PendingApproval,
  events: readonly SessionEvent[],
  db: string,
): void {
  const head = `${id}  call ${wait.callId}  ${wait.name}  ${expiredWords(wait.expiresAt)}`
  out.line(terminalSafe(head))
  for (const line of reasonLines(wait.reason)) out.line(terminalSafe(`    ${line}`))
  const byWorker = isPostgres(db) && turnSubmission(events, wait.turn) !== undefined
  const how = byWorker
    ? 'a worker takes the job queued for the expiry (tooltx worker --db …)'
    : suspendedResumeHint(id, db)
  out.line(terminalSafe(`    the turn continues without it: ${how}`))
}

/** `tooltx approvals`: takes only `--db`. */
export const command: Command = databaseCommand(USAGE, approvalsCommand)
