import type { ToolCallBlock } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { memoryStore, openSession, type Session } from '../src/index.js'

const T = { turn: 1, step: 1 }
const block = (id: string): ToolCallBlock => ({ type: 'tool-call', id, name: 'read', arguments: '{}' })
const call = (callId: string) => ({ ...T, callId, name: 'read', arguments: '{}' })
const ok = (callId: string) => ({
  ...T,
  callId,
  name: 'read',
  content: [{ type: 'text', text: 'ok' }],
  isError: false,
})

/** A session inside turn 1, step 1, whose latest assistant message calls `ids`. */
async function withCalls(...ids: string[]): Promise<Session> {
  const session = await openSession(memoryStore(), { id: 'v' })
  await session.append('turn/start', { turn: 1 })
  await session.append('step/start', T)
  await session.append('assistant/message', {
    ...T,
    content: [{ type: 'text', text: 'x' }, ...ids.map(block)],
  })
  return session
}

async function rejectsUnchanged(session: Session, attempt: Promise<unknown>, what: string): Promise<void> {
  const before = JSON.stringify(session.events())
  const error = await attempt.catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'INVARIANT', message: `invariant violated: ${what}` })
  expect(JSON.stringify(session.events())).toBe(before)
}

describe('V1.4 tool/call and tool/result', () => {
  it('V1.4: a tool/call for an id that is not a block of the latest assistant/message is rejected', async () => {
    const s = await withCalls('a')
    await rejectsUnchanged(
      s,
      s.append('tool/call', call('b')),
      `tool/call "b" is not a tool-call block of the turn's latest assistant/message`,
    )
  })

  it('V1.4: a tool/call for a block of an earlier assistant/message is rejected', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    await s.append('tool/result', ok('a'))
    await s.append('step/end', T)
    await s.append('step/start', { turn: 1, step: 2 })
    await s.append('assistant/message', { turn: 1, step: 2, content: [block('b')] })
    await rejectsUnchanged(
      s,
      s.append('tool/call', { ...call('a'), step: 2 }),
      `tool/call "a" is not a tool-call block of the turn's latest assistant/message`,
    )
  })

  it('V1.4: a second tool/call for the same id is rejected', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    await rejectsUnchanged(s, s.append('tool/call', call('a')), 'tool/call "a" was already called')
  })

  it('V1.4: a tool/result without an earlier tool/call, or a second one, is rejected', async () => {
    const s = await withCalls('a', 'b')
    await s.append('tool/call', call('a'))
    await rejectsUnchanged(
      s,
      s.append('tool/result', ok('b')),
      'tool/result "b" has no earlier tool/call in the turn',
    )
    await s.append('tool/result', ok('a'))
    await rejectsUnchanged(s, s.append('tool/result', ok('a')), 'tool/result "a" already has a result')
  })

  it('V1.4: a tool/result for a call of a previous turn is rejected', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    await s.append('tool/result', ok('a'))
    await s.append('turn/end', { turn: 1, reason: 'completed' })
    await s.append('turn/start', { turn: 2 })
    await rejectsUnchanged(
      s,
      s.append('tool/result', { ...ok('a'), turn: 2 }),
      'tool/result "a" has no earlier tool/call in the turn',
    )
    await rejectsUnchanged(
      s,
      s.append('tool/result', ok('a')),
      'tool/result names turn 1 but the latest turn is 2',
    )
  })

  it('V1.4: an assistant/message repeating a tool-call id is rejected, so every block can be answered once', async () => {
    const s = await withCalls()
    await rejectsUnchanged(
      s,
      s.append('assistant/message', { ...T, content: [block('a'), block('a')] }),
      'assistant/message repeats tool-call id "a"',
    )
  })

  it('V1.4: no user or assistant message, and no new turn, while calls of the latest assistant/message are unanswered', async () => {
    const s = await withCalls('a')
    await rejectsUnchanged(
      s,
      s.append('user/message', { ...T, message: { role: 'user', content: [] } }),
      'user/message while tool call "a" of the latest assistant/message has no tool/result',
    )
    await rejectsUnchanged(
      s,
      s.append('assistant/message', { ...T, content: [] }),
      'assistant/message while tool call "a" of the latest assistant/message has no tool/result',
    )
    await s.append('turn/end', { turn: 1, reason: 'error', message: 'scheduler failed' })
    await rejectsUnchanged(
      s,
      s.append('turn/start', { turn: 2 }),
      'turn/start while tool calls of turn 1 have no tool/result (repair the session first)',
    )
  })
})

describe('O2 durable result', () => {
  it('O2.1: tool/result keeps { turn, step, callId, name, content, isError, error?, meta? }', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    const data = { ...ok('a'), meta: { lines: 2 } }
    const event = await s.append('tool/result', data)
    expect(event.data).toEqual(data)
  })

  it('O2.2: error is present iff isError and is exactly { name, code }', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    const failed = { ...ok('a'), isError: true }
    await rejectsUnchanged(s, s.append('tool/result', failed), 'tool/result carries "error" iff isError')
    await rejectsUnchanged(
      s,
      s.append('tool/result', { ...ok('a'), error: { name: 'X', code: 'Y' } }),
      'tool/result carries "error" iff isError',
    )
    await rejectsUnchanged(
      s,
      s.append('tool/result', { ...failed, error: { name: 'X', code: 'Y', message: 'no' } as never }),
      'tool/result error must be exactly { name, code }',
    )
    const event = await s.append('tool/result', {
      ...failed,
      error: { name: 'ToolFailedError', code: 'TOOL_FAILED' },
    })
    expect(event.data.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
  })

  it('H1.3: tool/result keeps a provenance label, is replayed with it, and refuses one that is not a label', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    for (const bad of ['untrusted', { integrity: 'unknown' }, { integrity: 'trusted', confidential: 1 }]) {
      await rejectsUnchanged(
        s,
        s.append('tool/result', { ...ok('a'), provenance: bad } as never),
        "tool/result provenance must be { integrity: 'trusted' | 'untrusted', confidential?: boolean }",
      )
    }
    const label = { integrity: 'untrusted', confidential: true } as const
    const event = await s.append('tool/result', { ...ok('a'), provenance: label })
    expect(event.data.provenance).toEqual(label)
    const [replayed] = s.events().filter((e) => e.type === 'tool/result')
    expect(replayed?.type === 'tool/result' && replayed.data.provenance).toEqual(label)
  })

  it('O2.3: tool/result never stores the canonical value or additional contexts', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    for (const extra of [{ value: 1 }, { additionalContexts: [] }]) {
      await rejectsUnchanged(
        s,
        s.append('tool/result', { ...ok('a'), ...extra } as never),
        'tool/result never stores the value or additionalContexts',
      )
    }
  })

  it('O2.4: the derived tool message has only callId, content and isError; error and meta stay in the log', async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    await s.append('tool/result', {
      ...ok('a'),
      isError: true,
      error: { name: 'ToolFailedError', code: 'TOOL_FAILED' },
      meta: { card: 1 },
    })
    expect(s.messages().at(-1)).toEqual({
      role: 'tool',
      callId: 'a',
      content: [{ type: 'text', text: 'ok' }],
      isError: true,
    })
  })
})

describe('V1.7 a call and its result share the step of their tool-call block', () => {
  it("V1.7: a tool/result in a later step answering an earlier step's call is rejected", async () => {
    const s = await withCalls('a')
    await s.append('tool/call', call('a'))
    await s.append('step/end', T)
    await s.append('step/start', { turn: 1, step: 2 })
    await rejectsUnchanged(
      s,
      s.append('tool/result', { ...ok('a'), step: 2 }),
      'tool/result "a" names step 2 but its tool-call block is in step 1',
    )
  })

  it('V1.7: a tool/call naming another step than its tool-call block is rejected', async () => {
    const s = await withCalls('a')
    await rejectsUnchanged(
      s,
      s.append('tool/call', { ...call('a'), step: 2 }),
      'tool/call "a" names step 2 but its tool-call block is in step 1',
    )
    await s.append('tool/call', call('a'))
    await s.append('tool/result', ok('a'))
    expect(s.messages()).toHaveLength(2)
  })
})

describe('V1.5 code-dispatch events', () => {
  const ids = { rootCallId: 'r', parentCallId: 'r', subCallId: 's1', name: 'read' }
  const start = { ...T, ...ids, arguments: { path: '/x' } }
  const settle = { ...T, ...ids, isError: false, content: [] }

  it('V1.5: code-dispatch events need non-empty root, parent and sub ids', async () => {
    const s = await withCalls()
    for (const key of ['rootCallId', 'parentCallId', 'subCallId']) {
      await rejectsUnchanged(
        s,
        s.append('tool/code-dispatch-start', { ...start, [key]: '' }),
        'tool/code-dispatch-start needs non-empty root, parent and sub call ids',
      )
    }
  })

  it('V1.5: code-dispatch events must fall inside an open turn', async () => {
    const s = await withCalls()
    await s.append('turn/end', { turn: 1, reason: 'completed' })
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch-start', start),
      'tool/code-dispatch-start outside an open turn',
    )
  })

  it('V1.5: a settle follows exactly one start of the same sub id, and a sub id keeps one root', async () => {
    const s = await withCalls()
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch', settle),
      'tool/code-dispatch "s1" has no tool/code-dispatch-start',
    )
    await s.append('tool/code-dispatch-start', start)
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch-start', start),
      'tool/code-dispatch-start "s1" was already started',
    )
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch', { ...settle, rootCallId: 'other' }),
      'sub call "s1" changes its root from "r" to "other"',
    )
    await s.append('tool/code-dispatch', settle)
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch', settle),
      'tool/code-dispatch "s1" was already settled',
    )
    expect(s.messages()).toHaveLength(1)
  })
})

describe('V1.8 nested code-dispatch events keep their root', () => {
  it('V1.8: a sub call whose parent is a sub call with another root is rejected', async () => {
    const s = await withCalls()
    const first = {
      ...T,
      rootCallId: 'r',
      parentCallId: 'r',
      subCallId: 'r:code:1',
      name: 'run_code',
      arguments: {},
    }
    await s.append('tool/code-dispatch-start', first)
    const nested = { ...first, parentCallId: 'r:code:1', subCallId: 'r:code:1:code:1', name: 'read' }
    await rejectsUnchanged(
      s,
      s.append('tool/code-dispatch-start', { ...nested, rootCallId: 'other' }),
      'sub call "r:code:1:code:1" names root "other" but its parent "r:code:1" has root "r"',
    )
    await s.append('tool/code-dispatch-start', nested)
    expect(s.events().at(-1)?.type).toBe('tool/code-dispatch-start')
  })
})

describe('V1.6 approvals', () => {
  it('V1.6: approval/decided must follow an undecided approval/asked for the same call id', async () => {
    const s = await withCalls('a')
    const asked = { ...T, callId: 'a', name: 'read', argumentsDigest: 'ff' }
    const decided = { ...asked, outcome: 'allowed-once' as const }
    await rejectsUnchanged(
      s,
      s.append('approval/decided', decided),
      'approval/decided for call "a" does not follow an undecided approval/asked',
    )
    await s.append('approval/asked', asked)
    await rejectsUnchanged(
      s,
      s.append('approval/asked', asked),
      'approval/asked for call "a" while its earlier request is undecided',
    )
    await rejectsUnchanged(
      s,
      s.append('approval/decided', { ...decided, outcome: 'maybe' as never }),
      'approval/decided outcome "maybe"',
    )
    await s.append('approval/decided', decided)
    await rejectsUnchanged(
      s,
      s.append('approval/decided', decided),
      'approval/decided for call "a" does not follow an undecided approval/asked',
    )
  })
})
