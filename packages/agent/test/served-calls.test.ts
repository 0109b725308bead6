/** `servedCallRecorder`: calls from outside the loop recorded one turn each (Y3.5, Y1.15). */
import { servedCallRecorder } from '@tooltx/agent'
import type { ExecuteInput, ToolResult } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countedTool } from './counted-tool.js'

function setup() {
  const { runtime, runs } = countedTool({
    name: 'echo',
    description: 'echo',
    body: async (text) => {
      await new Promise((resolve) => setTimeout(resolve, text.length))
      return text
    },
  })
  const input = (callId: string, text: string): ExecuteInput => ({
    callId,
    name: 'echo',
    arguments: { text },
    signal: new AbortController().signal,
  })
  return { runtime, input, ran: runs }
}

const codeOf = (r: ToolResult) => (r.isError ? r.error.info.code : 'ok')

describe('Y3.5 servedCallRecorder', () => {
  it('Y3.5: concurrent calls are recorded as consecutive turns in arrival order, each call after its tool/call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        async (texts) => {
          const { runtime, input } = setup()
          const session = await openSession(memoryStore(), { id: 's', verify: true })
          const recorder = servedCallRecorder(session)
          const results = await Promise.all(
            texts.map((text, i) => recorder.run(input(`c${i}`, text), (x) => runtime.execute(x))),
          )
          expect(results.map(codeOf)).toEqual(texts.map(() => 'ok'))
          const calls = session.events().filter((e) => e.type === 'tool/call')
          expect(calls.map((e) => [e.data.turn, e.data.callId, e.data.arguments])).toEqual(
            texts.map((text, i) => [i + 1, `c${i}`, JSON.stringify({ text })]),
          )
          expect(
            session
              .events()
              .filter((e) => e.type === 'turn/end')
              .map((e) => e.data.reason),
          ).toEqual(texts.map(() => 'completed'))
          await session.close()
        },
      ),
      { numRuns: 20 },
    )
  })

  it('Y3.5: a call the log cannot take is not run and fails TOOL_NOT_STARTED', async () => {
    const { runtime, input, ran } = setup()
    const session = await openSession(memoryStore(), { id: 's' })
    const reported: unknown[] = []
    const recorder = servedCallRecorder(session, { reportError: (e) => reported.push(e) })
    await session.close()
    const result = await recorder.run(input('c1', 'x'), (x) => runtime.execute(x))
    expect(codeOf(result)).toBe('TOOL_NOT_STARTED')
    expect(result.isError && result.error.message).toMatch(
      /^tool call was not started: the session log could not record it \(.+\)$/,
    )
    expect(ran()).toBe(0)
    expect(reported.length).toBe(1)
  })

  it('Y3.5: after a write that lost a result, the call still answers and no later call runs', async () => {
    const { runtime, input, ran } = setup()
    const session = await openSession(memoryStore(), { id: 's' })
    const recorder = servedCallRecorder(session, { reportError: () => undefined })
    const first = await recorder.run(input('c1', 'x'), async (x) => {
      const result = await runtime.execute(x)
      await session.close()
      return result
    })
    expect(first.isError === false && first.value).toBe('x')
    const later = await recorder.run(input('c2', 'y'), (x) => runtime.execute(x))
    expect(codeOf(later)).toBe('TOOL_NOT_STARTED')
    expect(later.isError && later.error.message).toContain('an earlier write failed: ')
    expect(ran()).toBe(1)
  })

  it('Y1.15: close() refuses the calls not yet started and waits for the running one', async () => {
    const { runtime, input } = setup()
    const session = await openSession(memoryStore(), { id: 's' })
    const recorder = servedCallRecorder(session)
    const running = recorder.run(input('c1', 'abcdef'), (x) => runtime.execute(x))
    const waiting = recorder.run(input('c2', 'y'), (x) => runtime.execute(x))
    await new Promise((resolve) => setTimeout(resolve, 0))
    await recorder.close()
    expect(codeOf(await running)).toBe('ok')
    expect(codeOf(await waiting)).toBe('TOOL_NOT_STARTED')
    expect(session.events().at(-1)).toMatchObject({
      type: 'turn/end',
      data: { turn: 1, reason: 'completed' },
    })
  })
})
