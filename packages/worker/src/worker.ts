import type { Agent, TurnOutcome } from '@tooltx/agent'
import { definitionError, errorMessage } from '@tooltx/core/internal'
import {
  isLeaseHeld,
  openSession,
  repairSession,
  type Session,
  type SessionStore,
  suspendedTurn,
} from '@tooltx/session'
import {
  expiredNote,
  expiryJob,
  expiryJobOfAppend,
  queueExpiryJob,
  sweepExpiryJobs,
  untilExpiry,
} from './ask-expiry.js'
import { markedMessage, planSubmission, type Submission, type SubmissionPlan } from './submission.js'
import type { Consumer, SubmissionAttempt, SubmissionWait, TurnQueue } from './turn-queue.js'
import { WriteGuard } from './write-guard.js'

/** Builds the agent that runs one turn over `session`; called once per job. */
export type AgentFactory = (session: Session) => Agent | Promise<Agent>

/** What a worker reports about each job it took (N2.2). */
export interface WorkerJobReport {
  readonly submission: string
  readonly session: string
  /** What the log said before the turn (`answered` jobs run nothing); absent when the session could not be opened. */
  readonly plan?: SubmissionPlan
  /**
   * `done`: the job completed; `waiting`: it goes back to the queue using no retry (the session
   * is busy, its turn waits for a person, the worker is stopping: N2.10); `handed-back`: it
   * failed and is retried; `failed`: it failed with no retry left and is given up, recorded in
   * the session as `submission/failed` when the session could be opened (N2.12).
   */
  readonly result: 'done' | 'waiting' | 'handed-back' | 'failed'
  /** Why a job waits or failed, or that a `done` job's turn is suspended on a durable approval (F2.12). */
  readonly reason?: string
}

/** Options of `createWorker` (N2.2). */
export interface WorkerOptions {
  /** Where the sessions live; shared by every worker (a PostgreSQL store in production). */
  store: SessionStore
  queue: TurnQueue
  agent: AgentFactory
  /** How many turns this worker runs at once, each on its own session (default 1). */
  concurrency?: number
  /** How long `stop()` lets running turns finish before aborting and handing them back (default 10 000 ms). */
  graceMs?: number
  /** Sees every job's result, for logs and metrics; must not throw. */
  onJob?: (report: WorkerJobReport) => void
}

/** A running worker: it takes jobs until `stop()`. */
export interface Worker {
  /** The number of jobs it is working on now. */
  readonly active: number
  /**
   * The start-up sweep (N2.27): resolves, never rejecting, with the number of sessions waiting
   * on an undecided expiring ask whose expiry job it made sure of.
   */
  readonly swept: Promise<number>
  /**
   * Graceful shutdown (N2.6): takes no new job, lets running turns finish for `graceMs`, then
   * aborts the rest, whose jobs go back to the queue (waiting, N2.10) and are resumed by another worker.
   * Resolves when every job it had is completed or put back. The queue stays open.
   */
  stop(): Promise<void>
}

/** Starts a worker that takes "run the next turn of session S" jobs from `queue` (N2.2). */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  const concurrency = options.concurrency ?? 1
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw definitionError(`createWorker: concurrency must be a positive integer, got ${String(concurrency)}`)
  }
  const graceMs = options.graceMs ?? 10_000
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw definitionError(`createWorker: graceMs must be a non-negative number, got ${String(graceMs)}`)
  }
  if (typeof options.agent !== 'function')
    throw definitionError('createWorker needs agent: (session) => Agent')
  const worker = new TurnWorker(options, graceMs, sweepExpiryJobs(options.store, options.queue))
  worker.consumer = await options.queue.consume((submission, attempt) => worker.run(submission, attempt), {
    concurrency,
  })
  return worker
}

class TurnWorker implements Worker {
  consumer: Consumer | undefined
  readonly #options: WorkerOptions
  readonly #graceMs: number
  #active = 0
  readonly #agents = new Set<Agent>()
  #stopping: Promise<void> | undefined
  /** `graceMs` has passed since `stop()`: every running turn is aborted. */
  #graceOver = false

  constructor(
    options: WorkerOptions,
    graceMs: number,
    readonly swept: Promise<number>,
  ) {
    this.#options = options
    this.#graceMs = graceMs
  }

  get active(): number {
    return this.#active
  }

  /** The job handler: resolves when the submission is answered or must wait, rejects when it failed. */
  async run(submission: Submission, attempt: SubmissionAttempt): Promise<SubmissionWait | undefined> {
    this.#active++
    try {
      return await this.#openAndRun(submission, attempt)
    } finally {
      this.#active--
    }
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      const timer = setTimeout(() => {
        this.#graceOver = true
        for (const agent of this.#agents) agent.abort()
      }, this.#graceMs)
      // The consumer fetches nothing more and resolves once the jobs it took are settled.
      await this.consumer?.stop()
      clearTimeout(timer)
      await this.swept
    })()
    return this.#stopping
  }

  async #openAndRun(submission: Submission, attempt: SubmissionAttempt): Promise<SubmissionWait | undefined> {
    // Opening takes the session's lease for this job's handle: it refuses while a live writer
    // or another handle — another job of this worker too — holds it (L14.6), and after a dead
    // holder it takes over (N2.4). The log is opened as stored: the agent recovers a crashed
    // turn by effect class, exactly as agent.resume() does (F1.4, N2.11). The job writes through
    // a guard that stops at its first failed write, so a turn whose write failed stays open
    // instead of ending `error` once the database is back (N2.13). An append that records an
    // expiring ask queues the ask's expiry job first (N2.26), so a worker that dies right after
    // leaves no suspended turn without one; when that fails, the job queues it again once the
    // turn has suspended, and fails when it still cannot (N2.20).
    let session: Session | undefined
    const guard = new WriteGuard(this.#options.store, async (batch) => {
      const expiring = session === undefined ? undefined : expiryJobOfAppend(session.events(), batch)
      if (expiring !== undefined)
        await queueExpiryJob(this.#options.queue, submission.session, expiring).catch(() => undefined)
    })
    try {
      session = await openSession(guard.store, { id: submission.session, repair: false })
    } catch (error) {
      if (isLeaseHeld(error))
        return this.#wait(submission, undefined, `the session is busy: ${errorMessage(error)}`)
      throw await this.#fail(
        submission,
        undefined,
        attempt,
        `the session could not be opened: ${errorMessage(error)}`,
        error,
      )
    }
    try {
      let plan = planSubmission(session.events(), submission.id)
      if (plan === 'answered') return this.#report(submission, plan, 'done')
      if (this.#stopping !== undefined) return this.#wait(submission, plan, 'the worker is stopping')
      const { expiry } = submission
      const early = expiry === undefined ? undefined : untilExpiry(session.events(), expiry, Date.now())
      if (expiry !== undefined && early !== undefined) {
        // The database's clock runs ahead of this one: the job waits until the ask expires here.
        const why = `the approval of "${expiry.callId}" expires at ${expiry.expiresAt}; the job continues the turn then`
        return this.#wait(submission, plan, why, early)
      }
      const job = { session, guard, attempt }
      let agent: Agent
      try {
        agent = await this.#options.agent(session)
      } catch (error) {
        const reason = `the agent factory threw: ${errorMessage(error)}`
        throw await this.#fail(submission, plan, attempt, reason, error, { session, guard })
      }
      this.#agents.add(agent)
      // An abort before the turn has started does nothing, so a turn that starts after the
      // grace period ended is aborted as soon as its turn/start is durable.
      const off = session.on((event) => {
        if (event.type === 'turn/start' && this.#graceOver) agent.abort()
      })
      let outcome: TurnOutcome
      try {
        // A turn suspended on a durable approval is resumed first (F2.12): it continues once
        // decided; while nobody has decided, the job is done once the log holds its message and
        // waits otherwise (N2.10).
        if (suspendedTurn(session.events()) !== undefined) {
          const resumed = await agent.resume()
          if (resumed?.reason === 'suspended') return await this.#suspended(submission, plan, job, resumed)
          plan = planSubmission(session.events(), submission.id)
          const note = expiry === undefined ? undefined : expiredNote(session.events(), expiry)
          if (plan === 'answered') return this.#report(submission, plan, 'done', note)
        }
        outcome = await agent.inject(markedMessage(submission, plan))
        if (outcome.reason === 'suspended') return await this.#suspended(submission, plan, job, outcome)
      } finally {
        off()
        this.#agents.delete(agent)
      }
      // The log decides, not the outcome: a turn whose end could not be made durable (the
      // database went away, the lease was taken) is not answered, and is retried.
      if (planSubmission(session.events(), submission.id) === 'answered')
        return this.#report(submission, plan, 'done')
      if (this.#stopping !== undefined)
        return this.#wait(submission, plan, 'the worker is stopping; its turn was aborted')
      // The first failed write is the cause; the loop may report a later write the guard refused.
      const error = guard.failed ? errorMessage(guard.failure) : outcome.error
      const why = error === undefined ? '' : `: ${error}`
      const reason = `the turn did not end durably (aborted, or its end was not written)${why}`
      throw await this.#fail(submission, plan, attempt, reason, undefined, { session, guard })
    } finally {
      await session.close().catch(() => {})
    }
  }

  /**
   * A job whose session's turn waits on a durable approval (F2.12): done when the log holds the
   * job's message (the resumed turn answers it), else it waits for the decision (N2.10). Either
   * way the job that continues the turn when the ask expires is queued first (N2.20: once per
   * ask, so every job that finds the turn waiting may queue it); when that fails, so does this job.
   */
  async #suspended(
    submission: Submission,
    plan: SubmissionPlan,
    job: { readonly session: Session; readonly guard: WriteGuard; readonly attempt: SubmissionAttempt },
    outcome: TurnOutcome,
  ): Promise<SubmissionWait | undefined> {
    const { session } = job
    const expiring = expiryJob(session.events())
    if (expiring !== undefined) {
      const { continues, message, expiry } = expiring
      try {
        await this.#options.queue.submit(session.id, message, { continues, expiry })
      } catch (error) {
        const reason = `the job that continues the turn when its approval expires could not be queued: ${errorMessage(error)}`
        throw await this.#fail(submission, plan, job.attempt, reason, error, job)
      }
    }
    const calls = (outcome.pending ?? []).map((p) => `"${p.callId}" (${p.name})`).join(', ')
    const why = `the turn waits for a decision on ${calls}; a job for the session after the decision resumes it`
    if (planSubmission(session.events(), submission.id) === 'fresh') return this.#wait(submission, plan, why)
    return this.#report(submission, plan, 'done', why)
  }

  /** The job goes back to the queue without using a retry (N2.10), for `afterMs` when given. */
  #wait(
    submission: Submission,
    plan: SubmissionPlan | undefined,
    reason: string,
    afterMs?: number,
  ): SubmissionWait {
    this.#report(submission, plan, 'waiting', reason)
    return afterMs === undefined ? { wait: reason } : { wait: reason, afterMs }
  }

  /**
   * The error the job fails with. On its final attempt the failure is recorded in the job's
   * session (when open) as `submission/failed` with the reason and the message, so `tooltx
   * sessions`, `replay` and `view` show what was never answered (N2.12); a crash repair is
   * appended first when the log ends mid-turn, so the event stands between turns. A handle
   * whose write failed writes nothing more and may hold a stale log (the write may have
   * landed), so the failure is then recorded on a fresh handle.
   */
  async #fail(
    submission: Submission,
    plan: SubmissionPlan | undefined,
    attempt: SubmissionAttempt,
    reason: string,
    cause?: unknown,
    job?: { readonly session: Session; readonly guard: WriteGuard },
  ): Promise<Error> {
    let why = reason
    if (attempt.final) {
      if (job === undefined) why += '; it could not be recorded in the session, which did not open'
      else {
        try {
          await this.#record(submission, reason, job.session, job.guard)
        } catch (error) {
          why += `; recording it in the session failed too: ${errorMessage(error)}`
        }
      }
    }
    this.#report(submission, plan, attempt.final ? 'failed' : 'handed-back', why)
    const fate = attempt.final ? 'failed for good, no retry left' : 'failed, to be retried'
    return new Error(`submission ${submission.id} of session "${submission.session}" ${fate}: ${why}`, {
      cause,
    })
  }

  /** Appends `submission/failed` (N2.12), after the crash repair of a turn left open. */
  async #record(submission: Submission, reason: string, session: Session, guard: WriteGuard): Promise<void> {
    let target = session
    if (guard.failed) {
      await session.close()
      target = await openSession(this.#options.store, { id: submission.session, repair: false })
    }
    try {
      if (suspendedTurn(target.events()) === undefined) await repairSession(target)
      const { id, message } = submission
      await target.append('submission/failed', { submission: id, reason, message })
    } finally {
      if (target !== session) await target.close()
    }
  }

  #report(
    submission: Submission,
    plan: SubmissionPlan | undefined,
    result: WorkerJobReport['result'],
    reason?: string,
  ): undefined {
    try {
      this.#options.onJob?.({
        submission: submission.id,
        session: submission.session,
        ...(plan === undefined ? {} : { plan }),
        result,
        ...(reason === undefined ? {} : { reason }),
      })
    } catch {}
    return undefined
  }
}
