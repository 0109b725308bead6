import type { Agent, TurnOutcome } from '@tooltx/agent'
import { definitionError, errorMessage } from '@tooltx/core'
import { openSession, type Session, type SessionStore, suspendedTurn } from '@tooltx/session'
import {
  isLogged,
  markedMessage,
  planSubmission,
  type Submission,
  type SubmissionPlan,
} from './submission.js'
import type { Consumer, TurnQueue } from './turn-queue.js'

/** Builds the agent that runs one turn over `session`; called once per job. */
export type AgentFactory = (session: Session) => Agent | Promise<Agent>

/** What a worker reports about each job it took (N2.2). */
export interface WorkerJobReport {
  readonly submission: string
  readonly session: string
  /** What the log said before the turn (`answered` jobs run nothing); absent when the session could not be opened. */
  readonly plan?: SubmissionPlan
  /** `done`: the job completed; `handed-back`: it goes back to the queue (lease held, stopping, not answered). */
  readonly result: 'done' | 'handed-back'
  /** Why a job was handed back, or that a `done` job's turn is suspended on a durable approval (F2.12). */
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
   * Graceful shutdown (N2.6): takes no new job, lets running turns finish for `graceMs`, then
   * aborts the rest, whose jobs go back to the queue and are resumed by another worker.
   * Resolves when every job it had is completed or handed back. The queue stays open.
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
  const worker = new TurnWorker(options, graceMs)
  worker.consumer = await options.queue.consume((submission) => worker.run(submission), { concurrency })
  return worker
}

class TurnWorker implements Worker {
  consumer: Consumer | undefined
  readonly #options: WorkerOptions
  readonly #graceMs: number
  #active = 0
  /** Sessions a job of this worker has open: its slots share one store, hence one lease. */
  readonly #open = new Set<string>()
  readonly #agents = new Set<Agent>()
  #stopping: Promise<void> | undefined
  /** `graceMs` has passed since `stop()`: every running turn is aborted. */
  #graceOver = false

  constructor(options: WorkerOptions, graceMs: number) {
    this.#options = options
    this.#graceMs = graceMs
  }

  get active(): number {
    return this.#active
  }

  /** The job handler: resolves when the submission is answered, rejects to hand it back. */
  async run(submission: Submission): Promise<void> {
    this.#active++
    try {
      await this.#turn(submission)
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
    })()
    return this.#stopping
  }

  async #turn(submission: Submission): Promise<void> {
    // The lease keeps other workers out, but this worker's slots share its store and so its
    // lease: a second job of a session it is running must wait its turn like anyone else's.
    if (this.#open.has(submission.session)) {
      throw this.#handBack(submission, undefined, 'another job of this session runs in this worker')
    }
    this.#open.add(submission.session)
    try {
      await this.#openAndRun(submission)
    } finally {
      this.#open.delete(submission.session)
    }
  }

  async #openAndRun(submission: Submission): Promise<void> {
    // Opening takes the session's lease: it refuses while a live writer holds it, and after
    // a dead holder it takes over and repairs the cut-short turn (N2.4, N2.5).
    let session: Session
    try {
      session = await openSession(this.#options.store, { id: submission.session })
    } catch (error) {
      throw this.#handBack(
        submission,
        undefined,
        `the session could not be opened: ${errorMessage(error)}`,
        error,
      )
    }
    try {
      let plan = planSubmission(session.events(), submission.id)
      if (plan === 'answered') return this.#report(submission, plan, 'done')
      if (this.#stopping !== undefined) throw this.#handBack(submission, plan, 'the worker is stopping')
      let agent: Agent
      try {
        agent = await this.#options.agent(session)
      } catch (error) {
        throw this.#handBack(submission, plan, `the agent factory threw: ${errorMessage(error)}`, error)
      }
      this.#agents.add(agent)
      // An abort before the turn has started does nothing, so a turn that starts after the
      // grace period ended is aborted as soon as its turn/start is durable.
      const off = session.on((event) => {
        if (event.type === 'turn/start' && this.#graceOver) agent.abort()
      })
      try {
        // A turn suspended on a durable approval is resumed first (F2.12): it continues once
        // decided, and while nobody has decided the job ends once the log holds its message.
        if (suspendedTurn(session.events()) !== undefined) {
          const resumed = await agent.resume()
          if (resumed?.reason === 'suspended') return this.#suspended(submission, plan, session, resumed)
          plan = planSubmission(session.events(), submission.id)
          if (plan === 'answered') return this.#report(submission, plan, 'done')
        }
        const outcome = await agent.inject(markedMessage(submission, plan))
        if (outcome.reason === 'suspended') return this.#suspended(submission, plan, session, outcome)
      } finally {
        off()
        this.#agents.delete(agent)
      }
      // The log decides, not the outcome: a turn whose end could not be made durable (the
      // database went away, the lease was taken) is not answered, and is retried.
      if (planSubmission(session.events(), submission.id) !== 'answered') {
        throw this.#handBack(
          submission,
          plan,
          'the turn did not end durably (aborted, or its end was not written)',
        )
      }
      this.#report(submission, plan, 'done')
    } finally {
      await session.close().catch(() => {})
    }
  }

  /**
   * A job whose session's turn waits on a durable approval (F2.12): done when the log holds the
   * job's message (the resumed turn answers it), else handed back to wait for the decision.
   */
  #suspended(submission: Submission, plan: SubmissionPlan, session: Session, outcome: TurnOutcome): void {
    const calls = (outcome.pending ?? []).map((p) => `"${p.callId}" (${p.name})`).join(', ')
    const why = `the turn waits for a decision on ${calls}; a job for the session after the decision resumes it`
    if (!isLogged(session.events(), submission.id)) throw this.#handBack(submission, plan, why)
    this.#report(submission, plan, 'done', why)
  }

  #handBack(
    submission: Submission,
    plan: SubmissionPlan | undefined,
    reason: string,
    cause?: unknown,
  ): Error {
    this.#report(submission, plan, 'handed-back', reason)
    return new Error(
      `submission ${submission.id} of session "${submission.session}" handed back: ${reason}`,
      {
        cause,
      },
    )
  }

  #report(
    submission: Submission,
    plan: SubmissionPlan | undefined,
    result: WorkerJobReport['result'],
    reason?: string,
  ): void {
    try {
      this.#options.onJob?.({
        submission: submission.id,
        session: submission.session,
        ...(plan === undefined ? {} : { plan }),
        result,
        ...(reason === undefined ? {} : { reason }),
      })
    } catch {}
  }
}
