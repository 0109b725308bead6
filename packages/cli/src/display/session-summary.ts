import type { UserMessage } from '@tooltx/core'
import {
  forkOrigin,
  type SessionEvent,
  type SessionForkData,
  suspendedTurn,
  type TurnEndReason,
} from '@tooltx/session'
import { askStanding } from './ask-standing.js'

/**
 * True iff a logged user message is the user's own words: one with no `source`, or the message a
 * worker logs for a submission it takes fresh (`source` `{ kind: 'submission', plan: 'fresh' }`,
 * N2.3, N2.14). A tool's deferred context and a worker's resume note are not.
 */
export function fromUser(message: UserMessage): boolean {
  const source = message.source as { kind?: unknown; plan?: unknown } | undefined
  return source === undefined || (source.kind === 'submission' && source.plan === 'fresh')
}

/**
 * How a session stands: its last turn's ending, `suspended` while that turn waits on a durable
 * approval (F2.3), `unfinished` while it has no end otherwise, `empty` before any turn; `queued`
 * instead of an ending (or of `empty`) while a message `tooltx submit` recorded is taken by no
 * worker yet (N2.15).
 */
export type SessionStatus = TurnEndReason | 'suspended' | 'unfinished' | 'empty' | 'queued'

/** What `tooltx sessions` shows of a session beyond its row. */
export interface SessionSummary {
  /** The text of the first user message (not a tool's context), or `undefined` when there is none. */
  readonly task: string | undefined
  readonly status: SessionStatus
  /** The session and seq it was forked from (A2.3), `undefined` for a session that is not a fork. */
  readonly forkedFrom: SessionForkData | undefined
  /** How many submitted messages a worker gave up on, never answered (`submission/failed`, N2.12). */
  readonly failedSubmissions: number
}

/** The task, status, lineage and failed submissions of a session's events. Total for any event list a log holds. */
export function summarizeSession(events: readonly SessionEvent[]): SessionSummary {
  let task: string | undefined
  let status: SessionStatus = 'empty'
  let failedSubmissions = 0
  // Submissions recorded as queued (N2.15) that no worker has taken or given up on yet.
  const waiting = new Set<string>()
  for (const event of events) {
    if (event.type === 'submission/failed') {
      failedSubmissions++
      waiting.delete(event.data.submission)
    }
    if (event.type === 'turn/start') status = 'unfinished'
    if (event.type === 'turn/end') status = event.data.reason
    const message =
      event.type === 'submission/queued' || (event.type === 'user/message' && fromUser(event.data.message))
        ? event.data.message
        : undefined
    if (event.type === 'submission/queued') waiting.add(event.data.submission)
    if (event.type === 'user/message') waiting.delete(submissionOf(event.data.message) ?? '')
    if (task === undefined && message !== undefined) task = textOf(message)
  }
  if (status === 'unfinished' && suspendedTurn(events) !== undefined) status = 'suspended'
  if (waiting.size > 0 && status !== 'unfinished' && status !== 'suspended') status = 'queued'
  return { task, status, forkedFrom: forkOrigin(events), failedSubmissions }
}

/** The id of the submission a logged user message answers, when a worker logged it for one (N2.3). */
function submissionOf(message: UserMessage): string | undefined {
  const source = message.source as { kind?: unknown; id?: unknown } | undefined
  return source?.kind === 'submission' && typeof source.id === 'string' ? source.id : undefined
}

/** A message's text on one line as a title: its text blocks, and `[<type>]` for any other block. */
function textOf(message: UserMessage): string {
  return message.content
    .map((block) =>
      block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type}]`,
    )
    .join(' ')
}

/**
 * How the undecided asks of a log stand at `now` (K5.17): `waiting` while any of them waits,
 * `expired` when each of them expired undecided, `undefined` when every ask was decided.
 */
export function openAsksStanding(
  events: readonly SessionEvent[],
  now: number,
): 'waiting' | 'expired' | undefined {
  // The asks without a decision, by call id, with their expiry when durable.
  const asked = new Map<string, string | undefined>()
  for (const event of events) {
    if (event.type === 'approval/asked') asked.set(event.data.callId, event.data.expiresAt)
    else if (event.type === 'approval/decided') asked.delete(event.data.callId)
  }
  const standings = new Set([...asked.values()].map((expiresAt) => askStanding(expiresAt, false, now)))
  return standings.has('waiting') ? 'waiting' : standings.has('expired') ? 'expired' : undefined
}
