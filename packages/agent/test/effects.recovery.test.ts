import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolRuntime, defineTool, idempotencyKey, type ToolEffect } from '@tooltx/core'
import {
  fileStore,
  memoryStore,
  type NewSessionEvent,
  openSession,
  type SessionStore,
  sqliteStore,
} from '@tooltx/session'
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent, scripted } from '../src/index.js'
import { calledTurn } from './loop-harness.js'

const STORES: Record<string, (dir: string) => SessionStore> = {
  memory: () => memoryStore(),
  file: (dir) => fileStore(join(dir, 'sessions')),
  sqlite: (dir) => sqliteStore(join(dir, 'sessions.db')),
}

/** Tools of each class that record what they were run with. */
function tools(runs: string[]) {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  const tool = (name: string, effect: ToolEffect | undefined) =>
    defineTool({
      name,
      description: name,
      parameters: { n: { type: 'number', required: true } },
      ...(effect === undefined ? {} : { effect }),
      async execute({ n }, exec) {
        runs.push(`${name} ${n} ${exec.idempotencyKey}`)
        if (name === 'pay') await exec.recordEffect({ payment: `p-${n}` })
        return { n }
      },
    })
  scope.register(tool('look', 'read'))
  scope.register(tool('put', 'idempotent'))
  scope.register(tool('send', undefined))
  scope.register(tool('refund', 'write'))
  scope.register(tool('pay', 'write'))
  return { runtime, scope }
}

const block = (id: string, name: string, n: number) =>
  ({ type: 'tool-call', id, name, arguments: JSON.stringify({ n }) }) as const

/** The log a process left when it died with four calls started and none answered. */
function interrupted(): NewSessionEvent[] {
  const where = { turn: 1, step: 1 }
  const blocks = [
    block('c1', 'look', 1),
    block('c2', 'put', 2),
    block('c3', 'send', 3),
    block('c4', 'refund', 4),
  ]
  return [
    ...calledTurn(blocks),
    { type: 'tool/effect', data: { ...where, callId: 'c4', name: 'refund', receipt: { refund: 're_4' } } },
  ]
}

describe('F1 effect-aware recovery in the loop', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  for (const [kind, makeStore] of Object.entries(STORES)) {
    it(`F1.4, F1.6: on resume a read and an idempotent call run again with the same key, a receipt answers its call, a write is unknown (${kind})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tooltx-recovery-'))
      dirs.push(dir)
      const store = makeStore(dir)
      const first = await openSession(store, { id: 's1' })
      await first.appendBatch(interrupted())
      await first.close()

      const session = await openSession(store, { id: 's1', repair: false })
      // Opened as stored: nothing was appended yet (F1.6).
      expect(
        session
          .events()
          .map((e) => e.type)
          .slice(-2),
      ).toEqual(['tool/call', 'tool/effect'])
      const runs: string[] = []
      const { runtime, scope } = tools(runs)
      const agent = createAgent({ runtime, scope, session, model: scripted([{ text: 'ok' }]) })
      await agent.resume()
      const key = (callId: string, n: number) => idempotencyKey({ scope: 's1', callId, arguments: { n } })
      expect(runs).toEqual([`look 1 ${key('c1', 1)}`, `put 2 ${key('c2', 2)}`])
      const tail = session.events().slice(interrupted().length)
      expect(
        tail.map((e) =>
          e.type === 'tool/result' ? `${e.data.callId} ${e.data.error?.code ?? 'ok'}` : e.type,
        ),
      ).toEqual([
        'c1 ok',
        'c2 ok',
        'c3 TOOL_OUTCOME_UNKNOWN',
        'c4 TOOL_EFFECT_RECORDED',
        'step/end',
        'turn/end',
      ])
      const recorded = tail.find((e) => e.type === 'tool/result' && e.data.callId === 'c4')!
      expect(recorded.data).toMatchObject({
        isError: true,
        error: { name: 'ToolEffectRecordedError', code: 'TOOL_EFFECT_RECORDED' },
        meta: { receipts: [{ refund: 're_4' }] },
        content: [
          {
            type: 'text',
            text: 'Error: the session ended before this tool call\'s result was recorded, but the call had already taken effect and recorded this receipt: {"refund":"re_4"}. Do not run it again for the same purpose; treat the effect as done and verify the external state if you need more than the receipt.',
          },
        ],
      })
      // A second resume has nothing left to do, and the next turn runs on the repaired log.
      await agent.resume()
      expect(session.events()).toHaveLength(interrupted().length + 6)
      expect(await agent.send('next')).toMatchObject({ reason: 'completed', text: 'ok' })
      await session.close()
      await store.close()
    })
  }

  it("F1.3: a receipt the body records is durable as tool/effect before the call's tool/result", async () => {
    const store = memoryStore()
    const session = await openSession(store, { id: 's2' })
    const runs: string[] = []
    const { runtime, scope } = tools(runs)
    const model = scripted([
      { toolCalls: [{ id: 'k1', name: 'pay', arguments: '{"n":7}' }] },
      { text: 'paid' },
    ])
    const agent = createAgent({ runtime, scope, session, model })
    await agent.send('pay')
    const types = session
      .events()
      .map((e) => (e.type === 'tool/effect' ? `effect ${JSON.stringify(e.data.receipt)}` : e.type))
    expect(types.slice(types.indexOf('tool/call'), types.indexOf('tool/call') + 3)).toEqual([
      'tool/call',
      'effect {"payment":"p-7"}',
      'tool/result',
    ])
    expect(runs).toEqual([`pay 7 ${idempotencyKey({ scope: 's2', callId: 'k1', arguments: { n: 7 } })}`])
  })

  it('F1.6: openSession refuses a repair option that is not a boolean', async () => {
    await expect(
      openSession(memoryStore(), { id: 's3', repair: 'no' as unknown as boolean }),
    ).rejects.toThrow('openSession repair must be a boolean when present')
  })
})
