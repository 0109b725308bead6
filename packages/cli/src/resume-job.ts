import type { SessionEvent } from '@tooltx/session'
import { turnQueue, turnSubmission } from '@tooltx/worker'

/**
 * After `tooltx approve` decided the durable ask of turn `turn` in a PostgreSQL session that a
 * worker runs (N2.16): queues, on `queue` of `db`, the job that continues the submission whose
 * message that turn holds, so a worker resumes the turn and adds no message. Resolves with the
 * id of that submission (the worker reports the job under it), or `undefined` when no
 * submission started the turn (a `run` session, say): nothing is queued then.
 */
export async function queueResumeJob(
  db: string,
  queue: string | undefined,
  session: string,
  events: readonly SessionEvent[],
  turn: number,
): Promise<string | undefined> {
  const started = turnSubmission(events, turn)
  if (started === undefined) return undefined
  const turns = turnQueue({ connectionString: db, ...(queue === undefined ? {} : { name: queue }) })
  try {
    await turns.submit(session, started.message, { continues: started.id })
    return started.id
  } finally {
    await turns.close()
  }
}
