import { randomUUID } from 'node:crypto'
import type { UserMessage } from '@tooltx/core'
import { isLeaseHeld, type NewSessionEvent, openSession } from '@tooltx/session'
import { turnQueue } from '@tooltx/worker'
import type { Output } from '../display/output.js'
import { openStore } from '../session-store.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, defined, postgresUrl, usageError } from './flags.js'

/** `tooltx submit`: its help, printed by `--help`; a usage error points to it. */
const USAGE: CommandUsage = {
  name: 'submit',
  help: `Usage: tooltx submit <session> "<message>" --db postgres://…

Records the message in session <session> (created if new) as queued, so \`tooltx sessions\`,
\`tooltx replay --follow\` and \`tooltx view\` show it at once, queues it, and prints the
submission id once the job is durable; a running \`tooltx worker\` answers it.

Options:
  --db URL         the PostgreSQL of the sessions and the queue (required)
  --queue NAME     the queue to put it on (default tooltx-turns)
  -h, --help       show this help`,
}

/** Options of the `submit` command. */
export interface SubmitCommandOptions {
  session: string
  message: string
  /** The queue's name (default `tooltx-turns`). */
  queue?: string
  /** The `postgres://…` database of the queue. */
  db: string
}

/**
 * Records `message` in `session` as `submission/queued` (N2.15), creating the session when it is
 * new, then queues "run the next turn of `session` with `message`" for the workers under the
 * same id and prints it once the job is durable. A session a worker holds is not written to:
 * the queued message waits there for it all the same. A bad session id or an empty message
 * throws `INVALID_DEFINITION` before anything is recorded or queued.
 */
export async function submitCommand(options: SubmitCommandOptions, out: Output): Promise<void> {
  const queue = turnQueue({
    connectionString: options.db,
    ...(options.queue !== undefined ? { name: options.queue } : {}),
    reportError: (e) => out.error(String(e)),
  })
  try {
    const id = randomUUID()
    const message: UserMessage = { role: 'user', content: [{ type: 'text', text: options.message }] }
    const queued: NewSessionEvent = { type: 'submission/queued', data: { submission: id, message } }
    const recorded = await appendUnlessHeld(options.db, options.session, queued, out)
    try {
      await queue.submit(options.session, message, { id })
    } catch (error) {
      // The queue's failure is what the person needs to hear; recording it is a courtesy, so no
      // reader waits for a message no worker will take.
      const reason = `tooltx submit could not queue it: ${error instanceof Error ? error.message : String(error)}`
      const failed: NewSessionEvent = { type: 'submission/failed', data: { submission: id, reason, message } }
      if (recorded) await appendUnlessHeld(options.db, options.session, failed, out).catch(() => false)
      throw error
    }
    out.line(`submitted ${id} to session ${options.session}; a worker runs it (tooltx worker --db …)`)
  } finally {
    await queue.close()
  }
}

/**
 * Appends `event` to `session` of `db`, creating the session when new; resolves `false` without
 * writing when a worker holds the session (its lease is live): taking the lease would fence
 * that worker's turn.
 */
async function appendUnlessHeld(
  db: string,
  session: string,
  event: NewSessionEvent,
  out: Output,
): Promise<boolean> {
  const store = openStore(db, out)
  try {
    const log = await openSession(store, { id: session, repair: false }).catch((error: unknown) => {
      if (isLeaseHeld(error)) return undefined
      throw error
    })
    if (log === undefined) return false
    await log.appendBatch([event])
    await log.close()
    return true
  } finally {
    await store.close()
  }
}

/** `tooltx submit <session> "<message>"`: both, and a PostgreSQL `--db`. */
export const command: Command = defineCommand(
  USAGE,
  { strings: ['db', 'queue'] },
  async ({ values, positionals }, out) => {
    const [session, ...words] = positionals
    const message = words.join(' ').trim()
    if (session === undefined || message === '')
      throw usageError(USAGE, 'submit needs a session id and a message')
    const db = postgresUrl(USAGE, values.db)
    await submitCommand({ session, message, db, ...defined({ queue: values.queue }) }, out)
    return 0
  },
)
