import { hostname, userInfo } from 'node:os'
import { decideApproval, pendingApprovals } from '@tooltx/agent'
import { openSession, type Session, type SessionEvent } from '@tooltx/session'
import { argumentLines, reasonLines } from '../display/approval-arguments.js'
import { type Output, UsageError } from '../display/output.js'
import { suspendedResumeHint } from '../display/replay-hint.js'
import { terminalSafe } from '../display/terminal-text.js'
import { queueResumeJob } from '../resume-job.js'
import { isPostgres, openStore, storedSessionId } from '../session-store.js'
import { recordedArguments } from './approvals.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, DB_HELP, dbPath, defined, usageError } from './flags.js'

/** `tooltx approve`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'approve',
  help: `Usage: tooltx approve <session> <call-id> [options]

Prints the call's recorded arguments whole and their digest, then records a decision on its
durable approval: the call's turn then continues when the session is resumed
(\`tooltx demo --resume <id>\` for the demo, \`tooltx run --session <id> --approvals durable\`
for a run); on PostgreSQL it queues the job that lets a worker resume a submission's turn. At a terminal it asks you to confirm the
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
  --queue NAME     on PostgreSQL, the queue of the job that resumes a worker's turn
                   (default tooltx-turns)
${DB_HELP}
  -h, --help       show this help`,
}

/** Options of the `approve` command. */
export interface ApproveOptions {
  db: string
  /** The session: an id, `latest`, or the start of one id. */
  session: string
  callId: string
  /** `--deny`: record a denial instead of an approval. */
  deny: boolean
  /** Who decides; default `<user>@<host>`. */
  by?: string
  reason?: string
  /**
   * The digest of the arguments the decider checked. Without it an approval is confirmed at the
   * terminal (K5.7), and is a usage error where there is none (K5.8).
   */
  digest?: string
  /** `--queue`: where the job that resumes a worker's session goes (default `tooltx-turns`, N2.16). */
  queue?: string
}

/** `<user>@<host>` of this process, the default decider. */
function whoami(): string {
  try {
    return `${userInfo().username}@${hostname()}`
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}@${hostname()}`
  }
}

/**
 * Decides one durable approval (K5.3): prints the call's recorded arguments whole and their
 * digest, then records the decision with `decideApproval` under the session's lease (F2.5) and says how
 * the turn continues. An approval without `digest` is put to the person at the terminal
 * (`Approve <tool> with these arguments? [y/N]`; anything but y or yes records nothing, exit 1)
 * and is a usage error without one (exit 2, nothing recorded), so no one approves arguments they
 * were not shown (K5.7, K5.8). Every refusal — no such approval, a digest that does not match, a
 * decider not allowed, an expired approval, an earlier decision, a live writer holding the
 * session — is one message and exit status 1, with nothing recorded but the expiry. Resolves
 * with the exit status.
 */
export async function approveCommand(options: ApproveOptions, out: Output): Promise<number> {
  const id = await storedSessionId(options.db, options.session, 'approve')
  const store = openStore(options.db, out)
  let decided: Decided
  try {
    const session = await openSession(store, { id })
    try {
      decided = await decideOne(session, id, options, out)
    } finally {
      await session.close()
    }
  } finally {
    await store.close()
  }
  // The session is closed first, so the worker that takes the job finds it free.
  const job =
    isPostgres(options.db) && decided.turn !== undefined
      ? await queueResumeJob(options.db, options.queue, id, decided.events, decided.turn)
      : undefined
  // An expired ask is refused, but its expiry is recorded (F2.6): the turn can go on now.
  if (decided.expired !== undefined) out.error(`tooltx: ${decided.expired}`)
  out.line(
    job === undefined
      ? `The turn continues when the session is resumed: ${suspendedResumeHint(id, options.db)}`
      : `Queued a job on ${options.queue ?? 'tooltx-turns'} that continues submission ${job}: a worker (tooltx worker --db …) resumes the turn.`,
  )
  return decided.expired === undefined ? 0 : 1
}

/**
 * What `decideOne` did: the log it read, the turn of the decided ask, and the refusal message
 * when the ask had expired and this command recorded the expiry instead of the decision.
 */
interface Decided {
  readonly events: readonly SessionEvent[]
  readonly turn: number | undefined
  readonly expired?: string
}

/**
 * Shows the call waiting in `session` (id `id`), gets the confirmation K5.7 asks for, and
 * records the decision, or the expiry of an ask that expired meanwhile (K5.16).
 */
async function decideOne(
  session: Session,
  id: string,
  options: ApproveOptions,
  out: Output,
): Promise<Decided> {
  const events = session.events()
  const wait = pendingApprovals(events).find((pending) => pending.callId === options.callId)
  let digest = options.digest
  if (wait !== undefined) {
    out.line(terminalSafe(`${wait.name} (call ${wait.callId}) in ${id}`))
    const raw = recordedArguments(events, wait.callId)
    for (const line of reasonLines(wait.reason)) out.line(terminalSafe(`    ${line}`))
    const shown = argumentLines(raw, { digest: wait.argumentsDigest })
    for (const line of shown) out.line(terminalSafe(`    ${line}`))
    out.line(`    digest: ${wait.argumentsDigest}`)
    // An expired ask is not put to the person: it can only be recorded expired (F2.6).
    if (digest === undefined && !options.deny && !wait.expired) {
      if (!(await confirmed(out, wait.name))) {
        throw new UsageError(
          `you did not confirm, so nothing was recorded; to refuse the call, run the command again with --deny`,
        )
      }
      digest = wait.argumentsDigest
    }
  }
  const by = options.by ?? whoami()
  let decided: Awaited<ReturnType<typeof decideApproval>>
  const seen = session.events().length
  try {
    decided = await decideApproval(session, options.callId, {
      decision: options.deny ? 'denied' : 'allowed-once',
      by,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      // A denial needs no confirmation: refusing what one did not check harms no one.
      digest: digest ?? wait?.argumentsDigest ?? '-',
    })
  } catch (error) {
    // Only a refusal that recorded the expiry lets the turn go on; any other records nothing.
    const last = session.events().at(-1)
    const expired =
      session.events().length > seen && last?.type === 'approval/decided' && last.data.outcome === 'expired'
    if (!expired) throw error
    return { events, turn: wait?.turn, expired: (error as Error).message }
  }
  const verb = decided.outcome === 'allowed-once' ? 'approved' : 'denied'
  out.line(terminalSafe(`${verb} ${decided.name} (call ${decided.callId}) in ${id}, by ${by}`))
  return { events, turn: wait?.turn }
}

/**
 * Whether the person at the terminal confirms approving `tool` with the arguments just shown
 * (`y` or `yes`); without a terminal a usage error saying to pass `--digest`.
 */
async function confirmed(out: Output, tool: string): Promise<boolean> {
  if (out.prompt === undefined) {
    throw new UsageError(
      'approve is not at a terminal, so it cannot ask you to confirm the arguments above, and nothing was recorded; ' +
        'check them, then approve exactly them with --digest <the digest above>',
      2,
    )
  }
  const answer = await out.prompt.ask(
    `Approve ${tool} with these arguments? [y/N] `,
    new AbortController().signal,
  )
  return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer)
}

/** `tooltx approve <session> <call-id>`: both ids are needed. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'by', 'reason', 'digest', 'queue'], booleans: ['deny'] },
  async ({ values, positionals }, out) => {
    if (positionals.length !== 2) throw usageError(USAGE, 'approve needs a session id and a call id')
    return await approveCommand(
      {
        db: dbPath(values.db),
        session: positionals[0]!,
        callId: positionals[1]!,
        deny: values.deny === true,
        ...defined({ by: values.by, reason: values.reason, digest: values.digest, queue: values.queue }),
      },
      out,
    )
  },
)
