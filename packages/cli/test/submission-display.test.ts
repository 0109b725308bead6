/**
 * N2.14: a submitted message, as a worker logs it (N2.3), is shown as the user's own message —
 * in `replay`'s timeline, in the viewer's entries and as the session's title — while a worker's
 * resume note stays marked as context.
 */
import type { NewSessionEvent } from '@tooltx/session'
import { RESUME_TEXT } from '@tooltx/worker'
import { describe, expect, it } from 'vitest'
import { displaySession } from '../src/display/session-display.js'
import { summarizeSession } from '../src/display/session-summary.js'
import { renderSession } from '../src/session-timeline.js'
import { numbered } from './viewer-fixtures.js'

const SUBMISSION = '6f1c1d2e-0000-4000-8000-000000000001'

function submittedTurns() {
  const turn = (n: number, text: string, plan: 'fresh' | 'resume', reason: 'interrupted' | 'completed') => {
    const at = { turn: n, step: 1 }
    return [
      { type: 'turn/start', data: { turn: n } },
      { type: 'step/start', data: at },
      {
        type: 'user/message',
        data: {
          ...at,
          message: {
            role: 'user',
            content: [{ type: 'text', text }],
            source: { kind: 'submission', id: SUBMISSION, plan },
          },
        },
      },
      { type: 'step/end', data: at },
      { type: 'turn/end', data: { turn: n, reason } },
    ] as NewSessionEvent[]
  }
  return numbered([
    ...turn(1, 'summarise the open issues', 'fresh', 'interrupted'),
    ...turn(2, RESUME_TEXT, 'resume', 'completed'),
  ])
}

describe('N2.14 a submitted message is the user’s', () => {
  it('N2.14: replay prints the submitted message as the user’s, the viewer shows it with role user, and it is the session’s title; the resume note stays context', () => {
    const events = submittedTurns()
    const lines = renderSession(events)
    expect(lines.some((line) => line.includes('user: summarise the open issues'))).toBe(true)
    expect(lines.some((line) => line.includes('context from submission'))).toBe(true)
    expect(lines.filter((line) => line.includes('summarise the open issues'))).toHaveLength(1)
    const messages = displaySession(events, () => undefined).filter((entry) => entry.kind === 'message')
    expect(messages.map((entry) => [entry.role, entry.role === 'user' ? entry.text : entry.source])).toEqual([
      ['user', 'summarise the open issues'],
      ['context', 'submission'],
    ])
    expect(summarizeSession(events).task).toBe('summarise the open issues')
  })
})

describe('N2.15 a queued submission', () => {
  const message = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })
  const queued = (submission: string, text: string): NewSessionEvent => ({
    type: 'submission/queued',
    data: { submission, message: message(text) },
  })

  it('N2.15: a session whose recorded submission no worker took is queued and titled by it; taken, it is its turn; given up, it is not queued', () => {
    const waiting = numbered([queued(SUBMISSION, 'summarise the open issues')])
    expect(summarizeSession(waiting)).toMatchObject({ status: 'queued', task: 'summarise the open issues' })
    expect(renderSession(waiting)).toContain(
      `queued: "summarise the open issues" (submission ${SUBMISSION}); a worker answers it`,
    )
    const taken = numbered([queued(SUBMISSION, 'summarise the open issues'), ...submittedTurns().slice(0, 3)])
    expect(summarizeSession(taken)).toMatchObject({ status: 'unfinished', task: 'summarise the open issues' })
    const answered = numbered([queued(SUBMISSION, 'summarise the open issues'), ...submittedTurns()])
    expect(summarizeSession(answered).status).toBe('completed')
    const next = numbered([...submittedTurns(), queued('6f1c1d2e-0000-4000-8000-000000000002', 'and then?')])
    expect(summarizeSession(next)).toMatchObject({ status: 'queued', task: 'summarise the open issues' })
    const failed = numbered([
      queued(SUBMISSION, 'x'),
      {
        type: 'submission/failed',
        data: { submission: SUBMISSION, reason: 'no retry left', message: message('x') },
      },
    ])
    expect(summarizeSession(failed)).toMatchObject({ status: 'empty', failedSubmissions: 1 })
  })
})
