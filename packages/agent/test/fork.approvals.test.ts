/**
 * A2.6: a fork of a session with durable approvals is closed like a repaired crash, at every cut
 * point: nothing the source ran is run again, and no approval is left pending.
 */
import { createToolRuntime, defineTool } from '@tooltx/core'
import {
  forkSession,
  memoryStore,
  openSession,
  type SessionEvent,
  type SessionStore,
  suspendedTurn,
} from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'

/** `pay` (a write that records a receipt) asks for approval; `runs` notes every body run. */
function payTools() {
  const runs: string[] = []
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(
    defineTool({
      name: 'pay',
      description: 'pay',
      effect: 'write',
      parameters: { n: { type: 'number', required: true } },
      execute: async ({ n }, exec) => {
        runs.push(`pay ${n}`)
        await exec.recordEffect({ payment: n })
        return { n }
      },
    }),
  )
  runtime.onPreExecute(async (exec, next) => (exec.name === 'pay' ? { kind: 'ask' } : next()))
  return { runtime, scope, runs }
}

const pay = (id: string, n: number) => ({ id, name: 'pay', arguments: JSON.stringify({ n }) })

/**
 * The source: turn 1 pays 1 (approved, run, receipt recorded), turn 2 asks to pay 2 (denied).
 * Every step is a separate process: the agent that suspends is not the one that resumes.
 */
async function source(store: SessionStore) {
  const t = payTools()
  const session = await openSession(store, { id: 'src' })
  const agent = (steps: Parameters<typeof scripted>[0]) =>
    createAgent({ ...t, session, model: scripted(steps), approvals: 'durable' })
  await agent([{ toolCalls: [pay('c1', 1)] }]).send('pay 1')
  const digest1 = pendingApprovals(session)[0]!.argumentsDigest
  await decideApproval(session, 'c1', { decision: 'allowed-once', by: 'ann', digest: digest1 })
  expect(await agent([{ text: 'paid 1' }]).resume()).toMatchObject({ reason: 'completed' })
  await agent([{ toolCalls: [pay('c2', 2)] }]).send('pay 2')
  const digest2 = pendingApprovals(session)[0]!.argumentsDigest
  await decideApproval(session, 'c2', { decision: 'denied', by: 'ann', digest: digest2 })
  expect(await agent([{ text: 'not paid' }]).resume()).toMatchObject({ reason: 'completed' })
  expect(t.runs).toEqual(['pay 1'])
  const events = session.events()
  await session.close()
  return { events, digests: { c1: digest1, c2: digest2 } }
}

/** What the fork answered call `id` with: `ok`, or the error code; `undefined` when it has no result. */
function answer(events: readonly SessionEvent[], id: string): string | undefined {
  const result = events.find((e) => e.type === 'tool/result' && e.data.callId === id)
  if (result?.type !== 'tool/result') return undefined
  return result.data.isError ? result.data.error!.code : 'ok'
}

describe('A2.6 forks of sessions with durable approvals', () => {
  it('A2.6: at every cut point the fork has no pending approval, and continuing it never runs a write again', async () => {
    const store = memoryStore()
    const { events, digests } = await source(store)
    const suspendedCuts: number[] = []
    for (let at = 0; at <= events.length; at++) {
      const kept = events.slice(0, at)
      if (suspendedTurn(kept) !== undefined) suspendedCuts.push(at)
      const fork = await forkSession(store, 'src', { at, id: `fork-${at}` })
      const forked = fork.events()
      expect(pendingApprovals(fork), `cut ${at}`).toEqual([])
      expect(suspendedTurn(forked), `cut ${at}`).toBeUndefined()
      for (const id of ['c1', 'c2'] as const) {
        const before = answer(kept, id)
        const after = answer(forked, id)
        if (before !== undefined) expect(after, `cut ${at} ${id}`).toBe(before)
        else if (kept.some((e) => e.type === 'tool/effect' && e.data.callId === id))
          expect(after, `cut ${at} ${id}`).toBe('TOOL_EFFECT_RECORDED')
        // A call its decision refused never ran, so the fork says so (F2.21).
        else if (
          kept.some(
            (e) => e.type === 'approval/decided' && e.data.callId === id && e.data.outcome === 'rejected',
          )
        )
          expect(after, `cut ${at} ${id}`).toBe('DENIED')
        else if (kept.some((e) => e.type === 'tool/call' && e.data.callId === id))
          expect(after, `cut ${at} ${id}`).toBe('TOOL_OUTCOME_UNKNOWN')
        // A decision the source made or refused cannot be made again in the fork.
        await expect(
          decideApproval(fork, id, { decision: 'allowed-once', by: 'ann', digest: digests[id] }),
        ).rejects.toMatchObject({ code: expect.stringMatching(/^APPROVAL_(REFUSED|CONFLICT)$/) })
      }
      const t = payTools()
      const agent = (steps: Parameters<typeof scripted>[0]) =>
        createAgent({ ...t, session: fork, model: scripted(steps), approvals: 'durable' })
      expect(await agent([]).resume(), `cut ${at}`).toBeUndefined()
      expect(await agent([{ text: 'carry on' }]).send('go on'), `cut ${at}`).toMatchObject({
        reason: 'completed',
      })
      expect(t.runs, `cut ${at}`).toEqual([])
      // The fork's log stays valid: reopening it repairs nothing.
      await fork.close()
      const reopened = await openSession(store, { id: `fork-${at}` })
      expect(reopened.events().length).toBe(fork.events().length)
      await reopened.close()
    }
    // Both suspensions were cut inside, before and after their decision.
    expect(suspendedCuts.length).toBeGreaterThanOrEqual(4)
  })
})
