/**
 * L5.5, F2.7: a durable write that fails while a suspended turn is continued ends the run, and
 * every caller's promise settles, also when the call it fails for is one the resumed step no
 * longer offers and that recovery runs again to answer `UNKNOWN_TOOL` (T4.5, T4.7).
 */

import { memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'
import { block, effectTools } from './counted-tool.js'
import { crashingStore } from './crash-store.js'

/** `look` (read) and `log` (write) run freely; `pay` (write) asks. */
const tools = () =>
  effectTools([
    ['look', 'read'],
    ['log', 'write'],
    ['pay', 'write'],
  ] as const)

/** `promise`, or a rejection saying it hung. */
const settles = <T>(promise: Promise<T>): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not settle in 2 s')), 2000)),
  ])

/**
 * A turn that called `pay` twice (narrowed to `log` and `pay`) and suspended on the first,
 * decided `allowed-once`, then reopened by a process that offers no `pay` (so the rebuilt step
 * keeps both calls out, T4.7) and whose `at`-th append and every later one fail (the resumed
 * turn makes four: `turn/resumed`, c1's result, c2's result, then more).
 */
async function decidedThenCrashing(at: number) {
  const t = tools()
  const store = memoryStore()
  const prepareStep = () => ({ tools: ['log', 'pay'] })
  const session = await openSession(store, { id: 's' })
  const first = createAgent({
    ...t,
    session,
    model: scripted([{ toolCalls: [block('c1', 'pay', 1), block('c2', 'pay', 2)] }]),
    approvals: 'durable',
    prepareStep,
    maxParallelToolCalls: 1,
  })
  expect(await first.send('pay')).toMatchObject({ reason: 'suspended' })
  const digest = pendingApprovals(session)[0]!.argumentsDigest
  await decideApproval(session, 'c1', { decision: 'allowed-once', by: 'ann', digest })
  await session.close()
  const crashing = crashingStore(store, { at, written: false })
  const reopened = await openSession(crashing.store, { id: 's', repair: false })
  const agent = createAgent({
    ...effectTools([
      ['look', 'read'],
      ['log', 'write'],
    ]),
    session: reopened,
    model: scripted([{ toolCalls: [block('c3', 'look', 3)] }, { text: 'done' }]),
    approvals: 'durable',
    prepareStep,
    maxParallelToolCalls: 1,
  })
  return { agent, crashing }
}

describe('L5.5, F2.7 a failed write while a suspended turn continues', () => {
  it.each([1, 2, 3, 4])(
    'L5.5, F2.7: send() on a decided suspended turn settles when the process dies at append %i, also in the recovery of a kept-out call',
    async (at) => {
      const { agent, crashing } = await decidedThenCrashing(at)
      const outcome = await settles(agent.send('go'))
      expect(crashing.crashed()).toBe(true)
      expect(outcome).toMatchObject({ reason: 'error', error: `injected crash at durable write ${at}` })
      await expect(settles(agent.whenIdle())).rejects.toThrow(`injected crash at durable write ${at}`)
    },
  )

  it.each([1, 2, 3, 4])(
    'L5.5, F2.7: resume() and a later resume() settle when the process dies at append %i',
    async (at) => {
      const { agent } = await decidedThenCrashing(at)
      const first = await settles(
        agent.resume().then(
          (o) => o,
          (e: unknown) => e,
        ),
      )
      expect(first).toBeDefined()
      // The turn failed, so the next resume recovers it; its first append fails at once.
      await expect(settles(agent.resume())).rejects.toThrow(`injected crash at durable write ${at}`)
    },
  )
})
