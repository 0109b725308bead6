/** The session events the session and SQLite-driver benchmarks append, and where they start. */
import { type NewSessionEvent, openSession, type Session, type SessionStore } from '@tooltx/session'

/** A user message of turn 1, step 1, numbered `i` (about the size of a deferred context line). */
export const message = (i: number): NewSessionEvent => ({
  type: 'user/message',
  data: {
    turn: 1,
    step: 1,
    message: {
      role: 'user',
      content: [{ type: 'text', text: `a typical deferred context line number ${i}` }],
    },
  },
})

/** A session inside turn 1, step 1, where user messages can be appended without end. */
export async function openStep(store: SessionStore, id: string): Promise<Session> {
  const session = await openSession(store, { id })
  await session.appendBatch([
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: { turn: 1, step: 1 } },
  ])
  return session
}
