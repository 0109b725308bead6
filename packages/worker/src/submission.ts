import { snapshotJson, type TextBlock, type UserMessage } from '@tooltx/core'
import { definitionError, errorMessage } from '@tooltx/core/internal'
import type { SessionEvent, TurnEndReason } from '@tooltx/session'

/** The `source.kind` a submitted user message carries in the session log (N2.3). */
export const SUBMISSION_KIND = 'submission'

/** One queued request: run the next turn of `session` with `message` (N2.1). */
export interface Submission {
  /** The submission's id: also the queue job's id, and the mark its user message carries. */
  readonly id: string
  readonly session: string
  readonly message: UserMessage
  /** Set on the job that continues the turn once the durable ask of `callId` expires (N2.20). */
  readonly expiry?: AskExpiry
}

/** A durable ask a job waits to see expire: its call and its `expiresAt` (an ISO time, F2.2). */
export interface AskExpiry {
  readonly callId: string
  readonly expiresAt: string
}

/**
 * What a worker does with a submission, judged from the session log as stored (N2.3):
 * `answered` — a turn that took its message ended `completed`, `error` or `limit`, so a
 * redelivered job does nothing; `resume` — that turn was cut short (`interrupted` by a crash,
 * `aborted` by a worker handing it back), or is still open (a crashed worker's, to be recovered
 * first, or one suspended on a durable approval), so the turn is continued; `fresh` — the
 * message is not in the log yet.
 */
export type SubmissionPlan = 'answered' | 'resume' | 'fresh'

const UNFINISHED: ReadonlySet<TurnEndReason> = new Set(['interrupted', 'aborted'])

/** The plan for submission `id` over a log, repaired or not: a logged message whose turn has no end yet is `resume`. */
export function planSubmission(events: readonly SessionEvent[], id: string): SubmissionPlan {
  const taken = new Set<number>()
  let plan: SubmissionPlan = 'fresh'
  for (const event of events) {
    if (event.type === 'user/message' && submissionOf(event.data.message) === id) {
      taken.add(event.data.turn)
      plan = 'resume'
    } else if (
      event.type === 'turn/end' &&
      taken.has(event.data.turn) &&
      !UNFINISHED.has(event.data.reason)
    ) {
      return 'answered'
    }
  }
  return plan
}

/** The submission id a logged user message carries, if it is a submitted one. */
export function submissionOf(message: UserMessage): string | undefined {
  const source = message.source as { kind?: unknown; id?: unknown } | undefined
  return source?.kind === SUBMISSION_KIND && typeof source.id === 'string' ? source.id : undefined
}

/**
 * The submission whose message started turn `turn` of a log — its id and its message's content
 * — or `undefined` when no submitted message is in that turn (a `run` session's turn, say).
 */
export function turnSubmission(
  events: readonly SessionEvent[],
  turn: number,
): { readonly id: string; readonly message: UserMessage } | undefined {
  for (const event of events) {
    if (event.type !== 'user/message' || event.data.turn !== turn) continue
    const id = submissionOf(event.data.message)
    if (id !== undefined) return { id, message: { role: 'user', content: event.data.message.content } }
  }
  return undefined
}

/** The user message a worker queues for a submission's turn: marked with its id (N2.3). */
export function markedMessage(submission: Submission, plan: 'fresh' | 'resume'): UserMessage {
  const content =
    plan === 'fresh' ? submission.message.content : [{ type: 'text', text: RESUME_TEXT } satisfies TextBlock]
  return { role: 'user', content, source: { kind: SUBMISSION_KIND, id: submission.id, plan } }
}

/** The text of the message that resumes a turn a crash or a shutdown cut short (N2.3). */
export const RESUME_TEXT =
  'The turn answering the message above was cut short (a worker stopped); continue it from where it stopped.'

/**
 * Checks and snapshots what `submit` was given: a non-empty string becomes a text message; a
 * user message `{ role: 'user', content: [...] }` of lossless JSON is copied. Throws
 * `INVALID_DEFINITION` saying what was wrong otherwise.
 */
export function userMessageOf(input: unknown): UserMessage {
  if (typeof input === 'string') {
    if (input.trim() === '') throw definitionError('submit needs a non-empty message')
    return { role: 'user', content: [{ type: 'text', text: input }] }
  }
  let snap: ReturnType<typeof snapshotJson>
  try {
    snap = snapshotJson(input, { root: 'message' })
  } catch (error) {
    throw definitionError(`submit: reading the message failed: ${errorMessage(error)}`)
  }
  if (!snap.ok)
    throw definitionError(`submit: the message is not lossless JSON: ${snap.reason}; pass plain data`)
  const copy = snap.value as { role?: unknown; content?: unknown; source?: unknown } | null
  if (copy === null || typeof copy !== 'object' || copy.role !== 'user' || !Array.isArray(copy.content)) {
    throw definitionError('submit takes a string or a user message { role: "user", content: [...] }')
  }
  return { role: 'user', content: copy.content as UserMessage['content'] }
}
