import { turnQueue } from '@tooltx/worker'
import type { Output } from '../display/output.js'

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
