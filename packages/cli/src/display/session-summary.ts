import type { UserMessage } from '@tooltx/core'
import {
  forkOrigin,
  type SessionEvent,
  type SessionForkData,
  suspendedTurn,
  type TurnEndReason,
} from '@tooltx/session'

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
 * approval (F2.3), `unfinished` while it has no end otherwise, `empty` before any turn.
 */
export type SessionStatus = TurnEndReason | 'suspended' | 'unfinished' | 'empty'

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
  for (const event of events) {
    if (event.type === 'submission/failed') failedSubmissions++
    if (event.type === 'turn/start') status = 'unfinished'
    if (event.type === 'turn/end') status = event.data.reason
    if (task === undefined && event.type === 'user/message' && fromUser(event.data.message)) {
      task = event.data.message.content
        .map((block) =>
          block.type === 'text' && typeof block.text === 'string' ? block.text : `[${block.type}]`,
        )
        .join(' ')
    }
  }
  if (status === 'unfinished' && suspendedTurn(events) !== undefined) status = 'suspended'
  return { task, status, forkedFrom: forkOrigin(events), failedSubmissions }
}
