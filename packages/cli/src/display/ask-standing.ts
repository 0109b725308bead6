/**
 * How an approval stands at a given time, and the words for it (K5.17): the one answer the
 * terminal's timeline, `tooltx approvals` and the viewer's page read. It imports nothing, so the
 * page runs the very same rule in the browser.
 */

/**
 * An approval that was asked: `decided` once a decision follows it in the log, `expired` when
 * nobody decided it and the time is at or after its `expiresAt` (a durable ask, F2.6: its call
 * is denied when the turn continues), else `waiting`.
 */
export type AskStanding = 'decided' | 'waiting' | 'expired'

/**
 * How an ask with expiry `expiresAt` (an ISO time; `undefined` for an ask that is not durable,
 * which never expires) stands at `now` (epoch ms), `decided` telling whether a decision
 * followed it. The log's rule (`isExpired`): expired from the very millisecond of `expiresAt`;
 * an `expiresAt` that is no time never expires. Total.
 */
export function askStanding(expiresAt: string | undefined, decided: boolean, now: number): AskStanding {
  if (decided) return 'decided'
  return expiresAt !== undefined && now >= Date.parse(expiresAt) ? 'expired' : 'waiting'
}

/** The longest wait a timer takes (`setTimeout`: 2^31 - 1 ms, about 24.8 days). */
const LONGEST_TIMER_MS = 2 ** 31 - 1

/**
 * Milliseconds from `now` until an ask with expiry `expiresAt` should be judged again (its
 * expiry is no event, so a timer must bring it): until it expires, at least 0 and at most the
 * longest wait a timer takes; `undefined` when it never expires.
 */
export function judgeAgainIn(expiresAt: string | undefined, now: number): number | undefined {
  const at = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt)
  return Number.isNaN(at) ? undefined : Math.min(LONGEST_TIMER_MS, Math.max(0, at - now))
}

/** `durable: waiting for approval until <expiresAt>`: a durable ask nobody decided yet (K5.1, G3.10). */
export function waitingWords(expiresAt: string): string {
  return `durable: waiting for approval until ${expiresAt}`
}

/** `expired <expiresAt>: nobody decided in time, so the call is denied`: an ask that expired undecided (K5.15). */
export function expiredWords(expiresAt: string): string {
  return `expired ${expiresAt}: nobody decided in time, so the call is denied`
}
