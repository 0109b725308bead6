/**
 * Y6.19: a call whose durable receipts include a resumable one (an MCP task it started, say) is
 * run again on resume with those receipts, whatever its effect class, instead of being answered
 * `TOOL_EFFECT_RECORDED`; a plain receipt keeps F1.4's answer.
 */
import { createToolRuntime, defineTool, type JsonValue, RESUMABLE_RECEIPT_KEY } from '@tooltx/core'
import { memoryStore, type NewSessionEvent, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, scripted } from '../src/index.js'
import { calledTurn } from './loop-harness.js'

const where = { turn: 1, step: 1 }
const block = (id: string, name: string) => ({ type: 'tool-call', id, name, arguments: '{}' }) as const

describe('Y6.19 resumable receipts on resume', () => {
  it('Y6.19: a write call with a resumable receipt runs again with its receipts; one with a plain receipt is TOOL_EFFECT_RECORDED', async () => {
    const resumable = { [RESUMABLE_RECEIPT_KEY]: true, job: 'j-1' }
    const log: NewSessionEvent[] = [
      ...calledTurn([block('c1', 'wait'), block('c2', 'wait')]),
      { type: 'tool/effect', data: { ...where, callId: 'c1', name: 'wait', receipt: resumable } },
      { type: 'tool/effect', data: { ...where, callId: 'c2', name: 'wait', receipt: { job: 'j-2' } } },
    ]
    const store = memoryStore()
    const first = await openSession(store, { id: 's' })
    await first.appendBatch(log)
    await first.close()

    const seen: (readonly JsonValue[])[] = []
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(
      defineTool({
        name: 'wait',
        description: 'Waits for a job (a write).',
        parameters: {},
        effect: 'write',
        execute(_args, run) {
          seen.push(run.receipts)
          return 'job done'
        },
      }),
    )
    const session = await openSession(store, { id: 's', repair: false })
    const agent = createAgent({ runtime, scope, session, model: scripted([{ text: 'ok' }]) })
    await agent.resume()
    expect(seen).toEqual([[resumable]])
    const results = session
      .events()
      .filter((e) => e.type === 'tool/result')
      .map((e) => `${e.data.callId} ${e.data.error?.code ?? 'ok'}`)
    expect(results).toEqual(['c1 ok', 'c2 TOOL_EFFECT_RECORDED'])
    await session.close()
    await store.close()
  })
})
