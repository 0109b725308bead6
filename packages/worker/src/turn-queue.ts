import { createHash, randomUUID } from 'node:crypto'
import type { UserMessage } from '@tooltx/core'
import { definitionError, errorMessage } from '@tooltx/core/internal'
import { assertSessionId } from '@tooltx/session'
import PgBoss from 'pg-boss'
import { type AskExpiry, type Submission, userMessageOf } from './submission.js'
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
  /** Seconds before a failed job (the agent factory threw, the database was unreachable) is offered again (default 1). */
  retryDelaySeconds?: number
  /** How many times a failed job is offered again before it is failed for good (default 100). */
  retryLimit?: number
  /**
   * The longest a job that waits (its session busy, or waiting for a person) sleeps before it
   * is offered again, in seconds (default 60; at least 1). A wait uses no retry (N2.10): it sleeps
   * a tenth of the job's age, between `retryDelaySeconds` and this.
   */
  maxWaitSeconds?: number
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
  /**
   * The id of an earlier submission of the session whose turn this job continues — one
   * suspended on a durable approval, queued once it is decided (N2.16): the job runs as that
   * submission, so it resumes the turn and adds no message while the log holds that
   * submission's (`message` is then its message, in case the log does not).
   */
  continues?: string
  /**
   * Makes the job that continues `continues` once its turn's durable ask of `expiry.callId`
   * expires (N2.20): it is not offered before `expiry.expiresAt`, and its id is derived from
   * the session, the submission and the ask (unless `id` is given), so queueing it again for
   * the same ask queues nothing. Needs `continues`.
   */
  expiry?: AskExpiry
}

/** A handler's answer that its submission cannot run yet and must wait, using no retry (N2.10). */
export interface SubmissionWait {
  /** Why it waits, e.g. the session's turn waits for a decision. */
  readonly wait: string
  /** Offer it again after this many milliseconds, instead of after a tenth of its age (N2.20). */
  readonly afterMs?: number
}

/** What a handler learns about the job it runs. */
export interface SubmissionAttempt {
  /** True when the job has no retry left: if the handler rejects now, the job is failed for good. */
  readonly final: boolean
}

/**
 * Runs one submission: resolving with `undefined` completes the job, with a `SubmissionWait`
 * puts it back to be offered again later without using a retry, and rejecting fails it (a
 * retry after `retryDelaySeconds` while its retries last).
 */
export type SubmissionHandler = (
  submission: Submission,
  attempt: SubmissionAttempt,
) => Promise<SubmissionWait | undefined>

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
   * whose handler resolves is completed, or put back to wait when it resolves with a
   * `SubmissionWait`; one whose handler rejects is failed (and retried after `retryDelaySeconds`
   * while its retries last).
   */
  consume(handler: SubmissionHandler, options: { concurrency: number }): Promise<Consumer>
  /**
   * How many submissions are not answered yet: queued, waiting (N2.10) or for a retry, or being
   * worked on. The jobs that wait for an ask's expiry (N2.20) are not counted.
   */
  pending(): Promise<number>
  /**
   * The sessions this queue has a job of, in any state, as long as pg-boss keeps the job (a
   * finished one until its retention deletes it): the sessions its workers serve (N2.27).
   */
  sessions(): Promise<readonly string[]>
  /** Closes the connection pool; stop consumers first. */
  close(): Promise<void>
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,64}$/
/** A PostgreSQL identifier that needs no quoting, so the wait statement can name the schema. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The job's data: what `submit` stored. */
interface JobData {
  session: string
  message: UserMessage
  /** The submission the job runs as, when it continues an earlier one (N2.16); else the job's own id. */
  continues?: string
  /** The durable ask whose expiry the job waits for (N2.20). */
  expiry?: AskExpiry
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
  const schema = options.schema ?? 'pgboss'
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw definitionError(
      `queue schema must be a letter or "_" then up to 62 letters, digits or "_", got ${JSON.stringify(schema)}`,
    )
  }
  const maxWaitSeconds = options.maxWaitSeconds ?? 60
  if (!Number.isFinite(maxWaitSeconds) || maxWaitSeconds < 1) {
    throw definitionError(`maxWaitSeconds must be a number >= 1, got ${String(maxWaitSeconds)}`)
  }
  const boss = new PgBoss({
    connectionString: options.connectionString,
    schema,
    max: options.poolSize ?? 4,
    maintenanceIntervalSeconds:
      options.maintenanceIntervalSeconds ??
      Math.min(5, Math.max(1, Math.floor(visibilityTimeoutSeconds / 5))),
    // Cron schedules are not used: no clock monitor.
    schedule: false,
    application_name: 'tooltx-worker',
  })
  boss.on('error', reportError)
  const retryDelay = options.retryDelaySeconds ?? 1
  const settings = {
    name,
    expireInSeconds: visibilityTimeoutSeconds,
    retryDelay,
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
      const { continues, expiry } = submitOptions
      if (continues !== undefined) {
        if (!UUID.test(continues))
          throw definitionError(`submit: continues must be a UUID, got ${JSON.stringify(continues)}`)
        data.continues = continues
      }
      if (expiry !== undefined) data.expiry = checkedExpiry(expiry, continues)
      const id =
        submitOptions.id ??
        (data.expiry && data.continues ? expiryJobId(sessionId, data.expiry, data.continues) : randomUUID())
      if (!UUID.test(id)) throw definitionError(`submit: id must be a UUID, got ${JSON.stringify(id)}`)
      await start()
      // A null id means a job with this id exists already: the same submission, queued once.
      await boss.send(name, data, {
        id,
        ...(data.expiry === undefined ? {} : { startAfter: new Date(data.expiry.expiresAt) }),
      })
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
          const [job] = await boss
            .fetch<JobData>(name, { batchSize: 1, includeMetadata: true })
            .catch((error: unknown) => {
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
      const settle = async (job: PgBoss.JobWithMetadata<JobData>, run: SubmissionHandler): Promise<void> => {
        let failure: unknown
        let wait: SubmissionWait | undefined
        try {
          const { session, message, continues, expiry } = job.data
          const submission = { id: continues ?? job.id, session, message, ...(expiry ? { expiry } : {}) }
          wait = await run(submission, { final: job.retryCount >= job.retryLimit })
        } catch (error) {
          failure = error
        }
        try {
          if (failure !== undefined) await boss.fail(name, job.id, { message: errorMessage(failure) })
          else if (wait !== undefined) await putBack(job.id, wait.afterMs)
          else await boss.complete(name, job.id)
        } catch (error) {
          // The job is left active: the visibility timeout hands it out again.
          reportError(error)
        }
      }
      // pg-boss counts a retry when it hands out a job that was started before, so a wait
      // clears the start: the job is offered again after its sleep as if new, its retries
      // untouched (N2.10), and kept past pg-boss's removal of jobs never fetched (keep_until).
      const putBack = async (id: string, afterMs: number | undefined): Promise<void> => {
        const after = afterMs === undefined ? null : Math.max(0, afterMs) / 1000
        await boss.getDb().executeSql(waitSql(schema), [name, id, retryDelay, maxWaitSeconds, after])
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
      // An expiry job (N2.20) is no submission: it continues one that was already handled.
      const sql = `SELECT count(*) AS count FROM ${schema}.job WHERE name = $1 AND state < 'completed' AND NOT data ? 'expiry'`
      const result = await boss.getDb().executeSql(sql, [name])
      return Number(result.rows[0]?.count ?? 0)
    },
    async sessions() {
      await start()
      const sql = `SELECT DISTINCT data->>'session' AS session FROM ${schema}.job WHERE name = $1`
      const result = await boss.getDb().executeSql(sql, [name])
      return result.rows.map((row: { session: string }) => row.session)
    },
    async close() {
      if (started === undefined) return
      await started.catch(() => {})
      await boss.stop({ graceful: false })
    },
  }
}

/**
 * Puts active job $2 of queue $1 back to `created`, not started, offered again after $5 seconds
 * when given, else after a tenth of its age clamped to [$3, $4] seconds; the age of a job that
 * waits for an ask's expiry counts from that expiry, when it became due (N2.20). Written against
 * pg-boss 10's job table (the version `@tooltx/worker` pins); the wait tests in
 * packages/worker/test guard it.
 */
function waitSql(schema: string): string {
  const due = `GREATEST(created_on, COALESCE((data->'expiry'->>'expiresAt')::timestamptz, created_on))`
  return `UPDATE ${schema}.job SET state = 'created', started_on = NULL,
  start_after = now() + COALESCE($5::float8, LEAST($4::float8, GREATEST($3::float8, extract(epoch FROM now() - ${due}) / 10))) * interval '1 second',
  keep_until = GREATEST(keep_until, now() + interval '1 day' + $4::float8 * interval '1 second')
WHERE name = $1 AND id = $2 AND state = 'active'`
}

/** Checks `submit`'s `expiry` (N2.20); throws `INVALID_DEFINITION` saying what was wrong. */
function checkedExpiry(expiry: AskExpiry, continues: string | undefined): AskExpiry {
  const { callId, expiresAt } = (expiry ?? {}) as Partial<AskExpiry>
  if (
    typeof callId !== 'string' ||
    callId === '' ||
    typeof expiresAt !== 'string' ||
    Number.isNaN(Date.parse(expiresAt))
  ) {
    throw definitionError(
      `submit: expiry must be { callId: "<call id>", expiresAt: "<ISO time>" }, got ${JSON.stringify(expiry)}`,
    )
  }
  if (continues === undefined)
    throw definitionError('submit: expiry needs continues, the submission whose turn the ask waits in')
  return { callId, expiresAt }
}

/** The id of the job that waits for one ask's expiry: the same for the same session, submission and ask. */
function expiryJobId(session: string, expiry: AskExpiry, continues: string): string {
  const hex = createHash('sha256')
    .update(['expiry', session, continues, expiry.callId, expiry.expiresAt].join('\0'))
    .digest('hex')
  // A version-8 (custom) UUID, RFC 9562: the version nibble 8, the variant bits 10.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
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
