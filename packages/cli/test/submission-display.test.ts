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
