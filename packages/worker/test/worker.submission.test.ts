import type { Seq, SessionEvent, TurnEndReason } from '@tooltx/session'
import { markedMessage, planSubmission, RESUME_TEXT, turnQueue } from '@tooltx/worker'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

/** A log of whole turns: each holds the marked message of `id` (or an unmarked one) and ends with `reason`. */
function log(turns: readonly { id: string | undefined; reason: TurnEndReason }[]): SessionEvent[] {
  const events: SessionEvent[] = []
  const push = (event: Omit<SessionEvent, 'seq'>) =>
    events.push({ seq: (events.length + 1) as Seq, ...event } as SessionEvent)
  turns.forEach(({ id, reason }, i) => {
    const turn = i + 1
    push({ type: 'turn/start', data: { turn } })
    push({ type: 'step/start', data: { turn, step: 1 } })
    const message =
      id === undefined
        ? { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }
        : markedMessage({ id, session: 's', message: { role: 'user', content: [] } }, 'fresh')
    push({ type: 'user/message', data: { turn, step: 1, message } })
    push({ type: 'step/end', data: { turn, step: 1 } })
    push({ type: 'turn/end', data: { turn, reason } })
  })
  return events
}

const REASONS: TurnEndReason[] = ['completed', 'aborted', 'error', 'interrupted', 'limit']

describe('N2.3: submission marks and plans', () => {
  it('N2.3: a marked message carries { kind: "submission", id, plan }; a resume turn starts with RESUME_TEXT', () => {
    const submission = {
      id: 'u1',
      session: 's',
      message: { role: 'user' as const, content: [{ type: 'text' as const, text: 'do it' }] },
    }
    expect(markedMessage(submission, 'fresh')).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'do it' }],
      source: { kind: 'submission', id: 'u1', plan: 'fresh' },
    })
    expect(markedMessage(submission, 'resume')).toEqual({
      role: 'user',
      content: [{ type: 'text', text: RESUME_TEXT }],
      source: { kind: 'submission', id: 'u1', plan: 'resume' },
    })
  })

  it('N2.3: answered after a completed, error or limit turn; resume after only interrupted or aborted ones; fresh when absent', () => {
    const cases: { turns: Parameters<typeof log>[0]; plan: ReturnType<typeof planSubmission> }[] = [
      { turns: [], plan: 'fresh' },
      {
        turns: [
          { id: 'b', reason: 'completed' },
          { id: undefined, reason: 'completed' },
        ],
        plan: 'fresh',
      },
      { turns: [{ id: 'a', reason: 'interrupted' }], plan: 'resume' },
      {
        turns: [
          { id: 'a', reason: 'interrupted' },
          { id: 'a', reason: 'aborted' },
        ],
        plan: 'resume',
      },
      {
        turns: [
          { id: 'a', reason: 'interrupted' },
          { id: 'a', reason: 'completed' },
        ],
        plan: 'answered',
      },
      { turns: [{ id: 'a', reason: 'error' }], plan: 'answered' },
      { turns: [{ id: 'a', reason: 'limit' }], plan: 'answered' },
    ]
    for (const { turns, plan } of cases) expect(planSubmission(log(turns), 'a')).toBe(plan)
  })

  it('N2.3: for any log of whole turns the plan follows from the reasons of the turns holding the id', () => {
    const turn = fc.record({ id: fc.constantFrom('a', 'b', undefined), reason: fc.constantFrom(...REASONS) })
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 12 }), (turns) => {
        const reasons = turns.filter((t) => t.id === 'a').map((t) => t.reason)
        const expected =
          reasons.length === 0
            ? 'fresh'
            : reasons.some((r) => r !== 'interrupted' && r !== 'aborted')
              ? 'answered'
              : 'resume'
        expect(planSubmission(log(turns), 'a')).toBe(expected)
      }),
    )
  })
})

describe('N2.1: submit checks its input before touching the database', () => {
  // Nothing listens on port 1: a check that reached the database would fail differently.
  const queue = turnQueue({ connectionString: 'postgres://nobody@127.0.0.1:1/none' })

  it('N2.1: a bad session id, message or id throws INVALID_DEFINITION saying what was wrong', async () => {
    await expect(queue.submit('../etc', 'hi')).rejects.toMatchObject({ code: 'INVALID_DEFINITION' })
    await expect(queue.submit('s1', '  ')).rejects.toThrow('submit needs a non-empty message')
    await expect(queue.submit('s1', { role: 'assistant', content: [] } as never)).rejects.toThrow(
      'submit takes a string or a user message { role: "user", content: [...] }',
    )
    await expect(
      queue.submit('s1', { role: 'user', content: [{ type: 'text', text: 'x', at: new Date(0) }] } as never),
    ).rejects.toThrow('submit: the message is not lossless JSON')
    await expect(queue.submit('s1', 'hi', { id: 'not-a-uuid' })).rejects.toThrow(
      'submit: id must be a UUID, got "not-a-uuid"',
    )
  })

  it('N2.19: a continues that is not a UUID throws INVALID_DEFINITION before anything is queued', async () => {
    await expect(queue.submit('s1', 'hi', { continues: 'job-1' })).rejects.toMatchObject({
      code: 'INVALID_DEFINITION',
      message: 'submit: continues must be a UUID, got "job-1"',
    })
  })

  it('N2.1: a missing connection string or a bad queue name throws INVALID_DEFINITION at once', () => {
    expect(() => turnQueue({} as never)).toThrow('turnQueue needs { connectionString: "postgres://…" }')
    expect(() => turnQueue({ connectionString: 'postgres://x@127.0.0.1/db', name: 'a b' })).toThrow(
      'queue name must be 1-64 letters, digits, "_" or "-", got "a b"',
    )
  })

  it('N2.10: a maxWaitSeconds below 1 or a schema that is not a plain identifier throws INVALID_DEFINITION at once', () => {
    const connectionString = 'postgres://x@127.0.0.1/db'
    expect(() => turnQueue({ connectionString, maxWaitSeconds: 0.5 })).toThrow(
      'maxWaitSeconds must be a number >= 1, got 0.5',
    )
    expect(() => turnQueue({ connectionString, schema: 'jobs; DROP TABLE x' })).toThrow(
      'queue schema must be a letter or "_" then up to 62 letters, digits or "_", got "jobs; DROP TABLE x"',
    )
  })
})
