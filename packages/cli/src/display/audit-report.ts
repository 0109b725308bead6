import type { AuditDecision, AuditedCall, SessionAudit } from '@tooltx/agent'
import { counted } from './counted.js'

/** The audit of one stored session, as `tooltx audit` reports it. */
export interface AuditedSession {
  readonly id: string
  readonly audit: SessionAudit
}

/** The totals line's numbers (A1.3). */
export interface AuditTotals {
  readonly sessions: number
  readonly calls: number
  readonly changed: number
  readonly unchanged: number
  /** Calls the log holds no decision for (`before` is `unknown`). */
  readonly notComparable: number
  /** Calls the new policy fails on (`after` is `policy-failed`). */
  readonly policyFailures: number
}

/** Counts the calls of `sessions` by how their decision compares. */
export function auditTotals(sessions: readonly AuditedSession[]): AuditTotals {
  const calls = sessions.flatMap((s) => s.audit.calls)
  const changed = calls.filter((c) => c.changed).length
  const notComparable = calls.filter((c) => c.before.kind === 'unknown').length
  return {
    sessions: sessions.length,
    calls: calls.length,
    changed,
    unchanged: calls.length - changed - notComparable,
    notComparable,
    policyFailures: calls.filter((c) => c.after.kind === 'policy-failed').length,
  }
}

/** `root › sub` for a nested Code Mode call, the call id for any other. */
function callLabel(call: AuditedCall): string {
  return call.rootCallId === undefined ? call.callId : `${call.rootCallId} › ${call.callId}`
}

/** The reason a changed row shows: the new decision's, else what the old one said. */
function rowReason(before: AuditDecision, after: AuditDecision): string {
  if (after.reason !== undefined) return after.reason
  return before.reason === undefined ? '' : `was: ${before.reason}`
}

/** `kind` as the table shows it: an ask is what the runtime would do, not what a person said. */
function label(decision: AuditDecision): string {
  return decision.kind === 'ask' ? 'would ask' : decision.kind
}

/**
 * The report `tooltx audit` prints (A1.2): a table of the calls whose decision would change
 * (session, call, tool, before → after, reason), in session order and seq order, then the
 * totals. Only the audits' data goes in, so the same audits give the same lines.
 */
export function auditTable(sessions: readonly AuditedSession[]): string[] {
  const rows = sessions.flatMap((s) =>
    s.audit.calls
      .filter((c) => c.changed)
      .map((c) => [
        s.id,
        callLabel(c),
        c.name,
        `${label(c.before)} → ${label(c.after)}`,
        rowReason(c.before, c.after),
      ]),
  )
  const lines: string[] = []
  if (rows.length === 0) lines.push('no decision would change')
  else {
    const header = ['session', 'call', 'tool', 'before → after', 'reason']
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
    const format = (row: string[]) =>
      row
        .map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell))
        .join('  ')
        .trimEnd()
    lines.push(format(header), ...rows.map(format))
  }
  const t = auditTotals(sessions)
  lines.push(
    '',
    `${counted(t.calls, 'call')} in ${counted(t.sessions, 'session')}: ${t.changed} would change, ${t.unchanged} unchanged, ` +
      `${t.notComparable} without a recorded decision, ${counted(t.policyFailures, 'policy failure')}`,
  )
  return lines
}

/** The `--json` document (A1.3): every audited call of every session, and the totals. */
export function auditJson(sessions: readonly AuditedSession[]): string {
  const document = {
    sessions: sessions.map((s) => ({ id: s.id, calls: s.audit.calls })),
    totals: auditTotals(sessions),
  }
  return JSON.stringify(document, null, 2)
}
