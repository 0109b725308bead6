import type { ProvenanceLabel } from '@tooltx/core'
import type { SessionEvent } from '@tooltx/session'
import { askStanding, expiredWords, judgeAgainIn, waitingWords } from './ask-standing.js'
import { callBody, resultBody } from './card-text.js'
import { type DefinitionLookup, type DisplayEntry, SessionDisplay } from './session-display.js'
import { terminalSafe } from './terminal-text.js'

/**
 * `lines` each under `prefix`; a line holding newlines (a message, a note) keeps its later lines
 * indented too, by `hanging` more (K2.28), so nothing of an entry starts at the left margin.
 */
function indent(prefix: string, lines: readonly string[], hanging = ''): string[] {
  return lines.flatMap((line) =>
    line.split('\n').map((part, i) => `${prefix}${i === 0 ? '' : hanging}${part}`),
  )
}

/** How much deeper the later lines of a message or note stand than its first (K2.28). */
export const HANGING = '  '

/** ` [untrusted]`, ` [untrusted, confidential]`, ` [confidential]` or nothing for a result's label (H1.6). */
function labelText(label: ProvenanceLabel | undefined): string {
  if (label === undefined) return ''
  const marks = [
    label.integrity === 'untrusted' ? 'untrusted' : '',
    label.confidential === true ? 'confidential' : '',
  ]
  const shown = marks.filter((mark) => mark !== '')
  return shown.length === 0 ? '' : ` [${shown.join(', ')}]`
}

/** The timeline lines of one display entry (G1.1): the terminal's rendering of the shared model. */
function entryLines(entry: DisplayEntry): string[] {
  switch (entry.kind) {
    case 'note':
      return entry.what === 'fork' || entry.what.startsWith('submission-')
        ? indent('', [entry.text], HANGING)
        : indent('    ', [entry.text], HANGING)
    case 'turn-start':
      return [`── turn ${entry.turn} ──`]
    case 'step-start':
      return [`  step ${entry.step}`]
    case 'message': {
      const label =
        entry.role === 'context'
          ? `context from ${entry.source}`
          : entry.role === 'user'
            ? 'user'
            : 'assistant'
      const reasoning = indent('    ', entry.reasoning ?? [])
      return entry.text === ''
        ? reasoning
        : [...reasoning, ...indent('    ', [`${label}: ${entry.text}`], HANGING)]
    }
    case 'call':
      return [`    ▶ ${entry.title}`, ...indent('        ', callBody(entry.view))]
    case 'result': {
      const mark = entry.isError ? `✗ ${entry.name} failed (${entry.code})` : `✓ ${entry.name}`
      return [`    ${mark}${labelText(entry.provenance)}`, ...indent('        ', resultBody(entry.view))]
    }
    case 'approval':
      if (entry.phase === 'asked') {
        const waits = entry.expiresAt === undefined ? '' : ` (${waitingWords(entry.expiresAt)})`
        // A reason on more lines (a write's diff, K2.15) keeps its lines under the first, indented.
        const [said, ...more] = (entry.reason ?? '').split('\n')
        return [
          `    ? approval asked for ${entry.name}${said ? `: ${said}` : ''}${waits}`,
          ...indent('        ', more),
        ]
      }
      return [
        `    ? approval for ${entry.name}: ${entry.outcome}${entry.by === undefined ? '' : ` by ${entry.by}`}${entry.reason && entry.by !== undefined ? ` (${entry.reason})` : ''}`,
      ]
    case 'sub-call':
      return [`      ↳ ${entry.name} (${entry.subCallId})`]
    case 'sub-result':
      return [`      ↳ ${entry.name} ${entry.isError ? `failed (${entry.code})` : 'done'}`]
    case 'turn-end':
      return [`── turn ${entry.turn} ${entry.reason}${entry.message ? `: ${entry.message}` : ''} ──`]
  }
}

/**
 * Turns session events into timeline lines, one event at a time. Live display and replay
 * use the same renderer, so a replayed timeline shows exactly the cards shown live (U1.8);
 * both print the entries of the display model `tooltx view` renders (G1.1). It also keeps the
 * durable asks nobody decided yet, whose expiry is no event: `expired` prints it (K5.18).
 */
export class TimelineRenderer {
  readonly #display: SessionDisplay
  /** The durable asks without a decision (or an expiry line) yet, by call id. */
  readonly #open = new Map<string, { readonly name: string; readonly expiresAt: string }>()

  constructor(lookup: DefinitionLookup) {
    this.#display = new SessionDisplay(lookup)
  }

  /**
   * The lines for one event (possibly none), safe to print: control characters from the model,
   * a tool or the log are shown escaped (K1.4). Never throws: cards fall back (U1.7).
   */
  render(event: SessionEvent): string[] {
    const entry = this.#display.add(event)
    if (entry?.kind === 'approval') {
      if (entry.phase === 'decided') this.#open.delete(entry.callId)
      else if (entry.expiresAt !== undefined)
        this.#open.set(entry.callId, { name: entry.name, expiresAt: entry.expiresAt })
    }
    return entry === undefined ? [] : entryLines(entry).map(terminalSafe)
  }

  /**
   * One line for each durable ask rendered so far that nobody decided and that expired at `now`
   * (`askStanding`), each ask once: `? approval for <tool> expired <ISO>: nobody decided in time,
   * so the call is denied` (K5.15's words). A decision rendered later prints as usual.
   */
  expired(now: number): string[] {
    const lines: string[] = []
    for (const [callId, ask] of this.#open) {
      if (askStanding(ask.expiresAt, false, now) !== 'expired') continue
      this.#open.delete(callId)
      lines.push(terminalSafe(`    ? approval for ${ask.name} ${expiredWords(ask.expiresAt)}`))
    }
    return lines
  }

  /**
   * Milliseconds from `now` until `expired` should be asked again (`judgeAgainIn` of the open
   * durable ask that expires first), or `undefined` when none will expire.
   */
  nextExpiry(now: number): number | undefined {
    const waits = [...this.#open.values()].flatMap((ask) => judgeAgainIn(ask.expiresAt, now) ?? [])
    return waits.length === 0 ? undefined : Math.min(...waits)
  }
}
