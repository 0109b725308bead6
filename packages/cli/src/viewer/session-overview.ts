import type { SessionEvent, SessionInfo } from '@tooltx/session'
import { openAsksStanding, type SessionStatus, summarizeSession } from '../display/session-summary.js'
import { plainTitle } from '../display/terminal-text.js'

/** How the sessions page shows a session's state (G3.1). */
export type OverviewStatus = SessionStatus | 'live' | 'waiting for approval' | 'approval expired' | 'damaged'

/** One row of the sessions page (G3.1). */
export interface SessionOverview extends SessionInfo {
  /** The first user message, or the id when there is none. */
  readonly title: string
  readonly turns: number
  readonly calls: number
  /** Failed calls, failed Code Mode sub-calls (G3.7) and submitted messages a worker gave up on (N2.12). */
  readonly failures: number
  readonly status: OverviewStatus
}

/**
 * The sessions-page row of a stored session (G3.1). An unfinished or suspended last turn shows
 * as `waiting for approval` while an approval asked has no decision and has not expired at `now`,
 * as `approval expired` when every such approval expired at `now` (`askStanding`, G3.12); else an
 * unfinished one as `live` when the store changed within `idleMs` of `now`, and a suspended one
 * (decided, not yet resumed) as `suspended`. Total for any event list a log holds.
 */
export function overviewOf(
  info: SessionInfo,
  events: readonly SessionEvent[],
  options: { now: number; idleMs: number },
): SessionOverview {
  const { task, status } = summarizeSession(events)
  let turns = 0
  let calls = 0
  let failures = 0
  for (const event of events) {
    if (event.type === 'turn/start') turns++
    else if (event.type === 'tool/call') calls++
    else if (event.type === 'tool/result' && event.data.isError) failures++
    else if (event.type === 'tool/code-dispatch' && event.data.isError) failures++
    else if (event.type === 'submission/failed') failures++
  }
  const recent = options.now - Date.parse(info.updated) < options.idleMs
  const open = status === 'unfinished' || status === 'suspended'
  const standing = open ? openAsksStanding(events, options.now) : undefined
  const shown: OverviewStatus = !open
    ? status
    : standing === 'waiting'
      ? 'waiting for approval'
      : standing === 'expired'
        ? 'approval expired'
        : status === 'unfinished' && recent
          ? 'live'
          : status
  return {
    ...info,
    title: task === undefined ? info.id : plainTitle(task),
    turns,
    calls,
    failures,
    status: shown,
  }
}

/** The row of a session whose log cannot be read: its damage as the title. */
export function damagedOverview(info: SessionInfo, damage: string): SessionOverview {
  return { ...info, title: damage, turns: 0, calls: 0, failures: 0, status: 'damaged' }
}
