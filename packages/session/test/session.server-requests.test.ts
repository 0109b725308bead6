/** `server/request` (L1.10, L1.11): a server's request of the host, recorded in the open step and checked. */
import { describe, expect, it } from 'vitest'
import { memoryStore, openSession, type SamplingRequestData, type Session } from '../src/index.js'

const T = { turn: 1, step: 1 }
const SAMPLING: SamplingRequestData = {
  ...T,
  kind: 'sampling',
  server: 'docs',
  calls: ['c1'],
  messages: 1,
  characters: 5,
  last: 'user: hello',
  model: 'scripted',
  maxTokens: 20,
  outcome: 'answered',
  by: 'approver',
  reply: 'hi',
}

/** A session in turn 1 with step 1 open. */
async function inStep(): Promise<Session> {
  const session = await openSession(memoryStore(), { id: 'r' })
  await session.append('turn/start', { turn: 1 })
  await session.append('step/start', T)
  return session
}

async function refused(data: unknown, what: string): Promise<void> {
  const session = await inStep()
  const before = session.events().length
  await expect(session.append('server/request', data as SamplingRequestData)).rejects.toMatchObject({
    code: 'INVARIANT',
    message: `invariant violated: ${what}`,
  })
  expect(session.events()).toHaveLength(before)
}

describe('L1.10 server/request', () => {
  it('L1.10 a sampling and an elicitation record stand in the open step and derive no message', async () => {
    const session = await inStep()
    await session.append('server/request', SAMPLING)
    await session.append('server/request', {
      ...T,
      kind: 'elicitation',
      server: 'docs',
      calls: [],
      message: 'Deploy?',
      fields: ['confirm'],
      outcome: 'accept',
      by: 'handler',
      answered: ['confirm'],
    })
    expect(session.events().map((e) => e.type)).toEqual([
      'turn/start',
      'step/start',
      'server/request',
      'server/request',
    ])
    expect(session.history().length).toBe(0)
  })

  it('L1.11 the log refuses one outside the open step, of an unknown kind or outcome, or malformed', async () => {
    await refused({ ...SAMPLING, step: 2 }, 'server/request outside the open step')
    await refused(
      { ...SAMPLING, kind: 'roots' },
      'server/request kind must be "sampling" or "elicitation", got "roots"',
    )
    await refused({ ...SAMPLING, outcome: 'accept' }, 'server/request sampling outcome "accept" is unknown')
    await refused(
      { ...SAMPLING, by: 'someone' },
      'server/request needs { server, calls: [<call ids>], by: "policy" | "approver" | "handler" }',
    )
    const { reply: _, ...unanswered } = SAMPLING
    await refused(unanswered, 'server/request sampling carries a "reply" iff it was answered')
    await refused(
      { ...SAMPLING, maxTokens: -1 },
      'server/request sampling needs { messages, characters, last?, model, maxTokens }',
    )
    const elicitation = {
      ...T,
      kind: 'elicitation',
      server: 's',
      calls: [],
      message: 'm',
      fields: [],
      by: 'handler',
    }
    await refused(
      { ...elicitation, outcome: 'decline', answered: ['x'] },
      'server/request elicitation carries "answered" (field names) only when accepted',
    )
    await refused(
      { ...elicitation, outcome: 'accept', content: { password: 'x' } },
      "server/request elicitation never records the answer's values",
    )
    const closed = await openSession(memoryStore(), { id: 'c' })
    await closed.append('turn/start', { turn: 1 })
    await expect(closed.append('server/request', SAMPLING)).rejects.toMatchObject({ code: 'INVARIANT' })
  })
})
