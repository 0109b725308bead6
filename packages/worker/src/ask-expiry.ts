import type { UserMessage } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import { isExpired, type SessionEvent, type SessionStore, suspendedTurn } from '@tooltx/session'
import { type AskExpiry, turnSubmission } from './submission.js'
import type { TurnQueue } from './turn-queue.js'

/** What `queue.submit` needs to queue the job that continues a turn when its ask expires (N2.20). */
export interface ExpiryJob {
  /** The submission whose turn waits: the job runs as it. */
  readonly continues: string
  /** That submission's message, in case the log does not hold it. */
  readonly message: UserMessage
  readonly expiry: AskExpiry
}

/**
 * The expiry job of a log whose latest turn is suspended on a durable ask nobody has decided,
 * in a turn a submission started (N2.20); `undefined` for any other log — no suspended turn, a
 * decided ask (its decision's own job continues it), or a turn no submission started.
 */
export function expiryJob(events: readonly SessionEvent[]): ExpiryJob | undefined {
  const suspended = suspendedTurn(events)
  if (suspended === undefined || suspended.decided !== undefined) return undefined
  const started = turnSubmission(events, suspended.turn)
  const { callId, expiresAt } = suspended.asked
  if (started === undefined || expiresAt === undefined) return undefined
  return { continues: started.id, message: started.message, expiry: { callId, expiresAt } }
}

/** Queues `job`, the expiry job of session `session` (N2.20); queueing it again changes nothing. */
export function queueExpiryJob(queue: Pick<TurnQueue, 'submit'>, session: string, job: ExpiryJob) {
  return queue.submit(session, job.message, { continues: job.continues, expiry: job.expiry })
}

/**
 * The expiry job a job's append brings about (N2.26): when `batch`, appended after `logged`,
 * records a durable ask with an expiry that suspends a turn a submission started, that ask's
 * job; else `undefined`.
 */
export function expiryJobOfAppend(
  logged: readonly SessionEvent[],
  batch: readonly SessionEvent[],
): ExpiryJob | undefined {
  const asks = batch.some((event) => event.type === 'approval/asked' && event.data.expiresAt !== undefined)
  return asks ? expiryJob([...logged, ...batch]) : undefined
}

/**
 * A worker's start-up sweep (N2.27): every session the queue has a job of whose latest turn
 * waits on an undecided durable ask with an expiry, in a turn a submission started, gets its
 * expiry job (queued once per ask, so a job already there is left as it is). Resolves with the
 * number of such sessions; a session that cannot be read or whose job cannot be queued is a
 * process warning, and the sweep goes on.
 */
export async function sweepExpiryJobs(
  store: SessionStore,
  queue: Pick<TurnQueue, 'submit' | 'sessions'>,
): Promise<number> {
  let ensured = 0
  const warn = (what: string, error: unknown) =>
    process.emitWarning(`tooltx worker: the start-up sweep of expiring asks ${what}: ${errorMessage(error)}`)
  let sessions: readonly string[]
  try {
    sessions = await queue.sessions()
  } catch (error) {
    warn('could not list the sessions', error)
    return 0
  }
  for (const id of sessions) {
    try {
      const job = expiryJob(await store.load(id))
      if (job === undefined) continue
      await queueExpiryJob(queue, id, job)
      ensured++
    } catch (error) {
      warn(`skipped session "${id}"`, error)
    }
  }
  return ensured
}

/**
 * Milliseconds until the ask an expiry job waits for expires, when the log's turn still waits
 * on it undecided and it has not expired at `now` (the job came early: the database's clock
 * runs ahead of this one); `undefined` when the job can go on.
 */
export function untilExpiry(
  events: readonly SessionEvent[],
  expiry: AskExpiry,
  now: number,
): number | undefined {
  const suspended = suspendedTurn(events)
  if (suspended === undefined || suspended.decided !== undefined) return undefined
  const { asked } = suspended
  if (asked.callId !== expiry.callId || isExpired(asked, now)) return undefined
  return Date.parse(asked.expiresAt ?? '') - now
}

/**
 * What a job that waited for an ask's expiry reports once its turn went on: that the ask
 * expired with nobody deciding and the call was denied, when the log records that; else
 * `undefined` (someone decided first).
 */
export function expiredNote(events: readonly SessionEvent[], expiry: AskExpiry): string | undefined {
  const decided = events.findLast(
    (event) => event.type === 'approval/decided' && event.data.callId === expiry.callId,
  )
  if (decided?.type !== 'approval/decided' || decided.data.outcome !== 'expired') return undefined
  const { callId, name } = decided.data
  return `the approval of "${callId}" (${name}) expired at ${expiry.expiresAt} with nobody deciding: the call was denied and the turn went on`
}
