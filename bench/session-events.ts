/** The session events the session and SQLite-driver benchmarks append, and where they start. */
import { type NewSessionEvent, openSession, type Session, type SessionStore } from '@tooltx/session'
import { userMessageEvent } from '../packages/session/test/user-message.js'

/** A user message of turn 1, step 1, numbered `i` (about the size of a deferred context line). */
export const message = (i: number): NewSessionEvent =>
  userMessageEvent(`a typical deferred context line number ${i}`)

/** A session inside turn 1, step 1, where user messages can be appended without end. */
export async function openStep(store: SessionStore, id: string): Promise<Session> {
  const session = await openSession(store, { id })
  await session.appendBatch([
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: { turn: 1, step: 1 } },
  ])
  return session
}

/**
 * A session of `store` holding one closed turn of `size` events: its step's user messages
 * (`event(i)`, `message` by default) appended in batches of 1000.
 */
export async function closedTurn(
  store: SessionStore,
  id: string,
  size: number,
  event: (i: number) => NewSessionEvent = message,
): Promise<Session> {
  const session = await openStep(store, id)
  const body = size - 4
  for (let i = 0; i < body; i += 1000) {
    await session.appendBatch(Array.from({ length: Math.min(1000, body - i) }, (_, k) => event(i + k)))
  }
  await session.appendBatch([
    { type: 'step/end', data: { turn: 1, step: 1 } },
    { type: 'turn/end', data: { turn: 1, reason: 'completed' } },
  ])
  return session
}
