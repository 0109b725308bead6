import { randomUUID } from 'node:crypto'
import { definitionError, errorMessage, type UserMessage } from '@tooltx/core'
import { assertSessionId } from '@tooltx/session'
import PgBoss from 'pg-boss'
import { type Submission, userMessageOf } from './submission.js'
import { retryTransient } from './transient-retry.js'

/** Options of `turnQueue` (N2.1). */
export interface TurnQueueOptions {
  /** `postgres://…` of the database the queue lives in: the same PostgreSQL as the sessions. */
  connectionString: string
  /** The pg-boss queue name (default `tooltx-turns`). */
  name?: string
  /** The schema pg-boss keeps its tables in (default `pgboss`). */
  schema?: string
  /**
   * Seconds a worker may hold a job before the queue hands it to another worker (default 300).
   * This and the retry settings are the queue's: set by whoever creates it and by every
   * consumer that starts (the last one wins); a job keeps those in force when it was submitted.
   * A worker that dies mid-turn is replaced this long after it took the job (N2.4); a turn
   * that runs longer is safe (the session's lease refuses the second worker until the first
   * is done, N2.5) but is retried needlessly, so pick a value above your longest turn.
   */
  visibilityTimeoutSeconds?: number
  /** Seconds before a job handed back (lease held, worker stopping) is offered again (default 1). */
  retryDelaySeconds?: number
  /** How many times a job is offered again before it is failed for good (default 100). */
  retryLimit?: number
  /** How often an idle worker asks for a job, in seconds (default 0.5, pg-boss's minimum). */
  pollingIntervalSeconds?: number
  /**
   * How often the queue looks for jobs past their visibility timeout, in seconds (default: a
   * fifth of the visibility timeout, between 1 and 5).
   */
  maintenanceIntervalSeconds?: number
  /** Connections the queue may open (default 4: each fetch, completion and maintenance query is short). */
  poolSize?: number
  /** Where the queue's background errors go (default `console.error`). */
  reportError?: (error: unknown) => void
}

/** Options of `queue.submit`. */
export interface SubmitOptions {
  /** A UUID of your own, so submitting the same request twice queues it once (default: a new UUID). */
  id?: string
}

/** Runs one submission; resolving completes the job, rejecting hands it back for a retry. */
export type SubmissionHandler = (submission: Submission) => Promise<void>

/** A consumer started by `queue.consume`. */
export interface Consumer {
  /** Asks for no more jobs and resolves once every job it took is completed or failed. */
  stop(): Promise<void>
}

/** A job queue of turns on PostgreSQL (pg-boss): `submit` enqueues, workers `consume`. */
export interface TurnQueue {
  /**
   * Enqueues "run the next turn of session `sessionId` with `message`" and resolves with the
   * submission id once the job is durable. `message` is a string or a user message. Throws
   * `INVALID_DEFINITION` for a bad session id, message or id; nothing is queued then.
   */
  submit(sessionId: string, message: string | UserMessage, options?: SubmitOptions): Promise<string>
  /**
   * Runs `handler` on up to `concurrency` jobs at a time until the consumer is stopped: a job
   * whose handler resolves is completed, one whose handler rejects is failed (and retried
   * after `retryDelaySeconds` while its retries last).
   */
  consume(handler: SubmissionHandler, options: { concurrency: number }): Promise<Consumer>
  /** How many submissions are not answered yet: queued, waiting for a retry, or being worked on. */
  pending(): Promise<number>
  /** Closes the connection pool; stop consumers first. */
  close(): Promise<void>
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,64}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The job's data: what `submit` stored. */
interface JobData {
  session: string
  message: UserMessage
}

/**
 * A turn queue on PostgreSQL through pg-boss. Nothing connects until the first `submit`,
 * `consume` or `pending`, which creates pg-boss's schema and the queue if they are missing.
 * Throws `INVALID_DEFINITION` for a missing connection string or a bad queue name.
 */
export function turnQueue(options: TurnQueueOptions): TurnQueue {
  if (typeof options?.connectionString !== 'string' || options.connectionString === '') {
    throw definitionError('turnQueue needs { connectionString: "postgres://…" }')
  }
  const name = options.name ?? 'tooltx-turns'
  if (typeof name !== 'string' || !QUEUE_NAME.test(name)) {
    throw definitionError(`queue name must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(name)}`)
  }
  const reportError = options.reportError ?? console.error
  const visibilityTimeoutSeconds = options.visibilityTimeoutSeconds ?? 300
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema: options.schema ?? 'pgboss',
    max: options.poolSize ?? 4,
    maintenanceIntervalSeconds:
      options.maintenanceIntervalSeconds ??
      Math.min(5, Math.max(1, Math.floor(visibilityTimeoutSeconds / 5))),
    // Cron schedules are not used: no clock monitor.
    schedule: false,
    application_name: 'tooltx-worker',
  })
  boss.on('error', reportError)
  const settings = {
    name,
    expireInSeconds: visibilityTimeoutSeconds,
    retryDelay: options.retryDelaySeconds ?? 1,
    retryLimit: options.retryLimit ?? 100,
    retryBackoff: false,
  }
  let started: Promise<void> | undefined
  const start = (): Promise<void> => {
    started ??= (async () => {
      await boss.start()
      await retryTransient(() => boss.createQueue(name, settings))
    })()
    return started
  }
  return {
    async submit(sessionId, message, submitOptions = {}) {
      assertSessionId(sessionId)
      const data: JobData = { session: sessionId, message: userMessageOf(message) }
      const id = submitOptions.id ?? randomUUID()
      if (!UUID.test(id)) throw definitionError(`submit: id must be a UUID, got ${JSON.stringify(id)}`)
      await start()
      // A null id means a job with this id exists already: the same submission, queued once.
      await boss.send(name, data, { id })
      return id
    },
    async consume(handler, { concurrency }) {
      if (!Number.isInteger(concurrency) || concurrency < 1) {
        throw definitionError(`concurrency must be a positive integer, got ${String(concurrency)}`)
      }
      await start()
      // A job takes the queue's settings when it is inserted, and the queue keeps those of
      // whoever created it: a consumer puts its own in force, since a visibility timeout and
      // retries are the workers' to choose.
      await retryTransient(() => boss.updateQueue(name, settings))
      const pollMs = (options.pollingIntervalSeconds ?? 0.5) * 1000
      const stopping = new AbortController()
      // One loop per slot: fetch one job, run it, complete or fail it, fetch the next. The
      // loops settle the job themselves so `stop` can wait until every job is settled.
      const slot = async (): Promise<void> => {
        while (!stopping.signal.aborted) {
          const [job] = await boss.fetch<JobData>(name, { batchSize: 1 }).catch((error: unknown) => {
            reportError(error)
            return []
          })
          if (job === undefined) {
            await idle(pollMs, stopping.signal)
            continue
          }
          await settle(job, handler)
        }
      }
      const settle = async (job: PgBoss.Job<JobData>, run: SubmissionHandler): Promise<void> => {
        let failure: unknown
        try {
          await run({ id: job.id, session: job.data.session, message: job.data.message })
        } catch (error) {
          failure = error
        }
        try {
          if (failure === undefined) await boss.complete(name, job.id)
          else await boss.fail(name, job.id, { message: errorMessage(failure) })
        } catch (error) {
          // The job is left active: the visibility timeout hands it out again.
          reportError(error)
        }
      }
      const loops = Array.from({ length: concurrency }, slot)
      return {
        async stop() {
          stopping.abort()
          await Promise.all(loops)
        },
      }
    },
    async pending() {
      await start()
      return (await boss.getQueueSize(name, { before: 'completed' })) ?? 0
    },
    async close() {
      if (started === undefined) return
      await started.catch(() => {})
      await boss.stop({ graceful: false })
    },
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function idle(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
