import { turnQueue } from '@tooltx/worker'
import type { Output } from '../display/output.js'
import { type Command, defineCommand } from './command.js'
import { type CommandUsage, defined, postgresUrl, usageError } from './flags.js'

/** `tooltx submit`: its help, printed by `--help` and after each usage error. */
const USAGE: CommandUsage = {
  name: 'submit',
  help: `Usage: tooltx submit <session> "<message>" --db postgres://…

Queues the message for session <session> (created if new) and prints the submission id once
the job is durable; a running \`tooltx worker\` answers it.

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
 * Queues "run the next turn of `session` with `message`" for the workers and prints the
 * submission id once the job is durable. A bad session id or an empty message throws
 * `INVALID_DEFINITION` before anything is queued.
 */
export async function submitCommand(options: SubmitCommandOptions, out: Output): Promise<void> {
  const queue = turnQueue({
    connectionString: options.db,
    ...(options.queue !== undefined ? { name: options.queue } : {}),
    reportError: (e) => out.error(String(e)),
  })
  try {
    const id = await queue.submit(options.session, options.message)
    out.line(`submitted ${id} to session ${options.session}; a worker runs it (tooltx worker --db …)`)
  } finally {
    await queue.close()
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
