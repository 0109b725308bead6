/**
 * F2.18, F2.19: a live agent whose turn waits on a durable ask continues the turn itself when
 * the ask expires with nobody deciding (it holds the session's lease, so nobody else can); its
 * timer does nothing once the ask was decided or the session closed, and never keeps the process
 * alive (a real child process on the built package).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { createAgent, decideApproval, pendingApprovals, scripted } from '../src/index.js'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))

/** A session, a `pay` tool every call of which asks, and an agent asking durably with `expiresAfterMs`. */
async function world(expiresAfterMs: number, steps: Parameters<typeof scripted>[0]) {
  const runs: number[] = []
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(
    defineTool({
      name: 'pay',
      description: 'Pays.',
      effect: 'write',
      parameters: { n: { type: 'number', required: true } },
      execute: ({ n }) => {
        runs.push(n)
        return { n }
      },
    }),
  )
  runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'moves money' }))
  const session = await openSession(memoryStore(), { id: 's' })
  const agent = createAgent({
    runtime,
    scope,
    session,
    model: scripted(steps),
    approvals: { mode: 'durable', expiresAfterMs },
  })
  return { session, agent, runs }
}

const PAY = { toolCalls: [{ id: 'c1', name: 'pay', arguments: '{"n":1}' }] }
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const kinds = (events: readonly SessionEvent[]) =>
  events.map((e) => (e.type === 'approval/decided' ? `approval/decided ${e.data.outcome}` : e.type))

describe('F2.18, F2.19 a live agent and the expiry of its ask', () => {
  it('F2.18: with nobody deciding, the live agent continues the turn at the expiry: the call is denied, and a message sent while it waited is answered after', async () => {
    const { session, agent, runs } = await world(300, [PAY, { text: 'went on' }, { text: 'and the next' }])
    expect((await agent.send('pay')).reason).toBe('suspended')
    // A message sent to the suspended turn waits for it (F2.8).
    const next = agent.send('and then?')
    expect((await next).reason).toBe('suspended')
    for (let i = 0; i < 200 && session.events().filter((e) => e.type === 'turn/end').length < 1; i++)
      await pause(10)
    await agent.whenIdle()
    const events = session.events()
    const asked = events.find((e) => e.type === 'approval/asked')
    const decided = events.find((e) => e.type === 'approval/decided')
    if (asked?.type !== 'approval/asked' || decided?.type !== 'approval/decided') throw new Error('no ask')
    expect(decided.data.outcome).toBe('expired')
    const late = Date.parse(decided.data.decidedAt ?? '') - Date.parse(asked.data.expiresAt ?? '')
    expect(late).toBeGreaterThanOrEqual(0)
    expect(late).toBeLessThan(1000)
    expect(kinds(events).slice(0, 10)).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'assistant/message',
      'tool/call',
      'approval/asked',
      'approval/decided expired',
      'turn/resumed',
      'tool/result',
      'step/end',
    ])
    // The message that waited went into the resumed turn, which answered it.
    const said = events.flatMap((e) =>
      e.type === 'user/message' ? [(e.data.message.content[0] as { text: string }).text] : [],
    )
    expect(said).toEqual(['pay', 'and then?'])
    expect(runs).toEqual([])
  })

  it('F2.19: a decision before the expiry stops the timer: at the expiry nothing happens, and resume runs the call once', async () => {
    const { session, agent, runs } = await world(200, [PAY, { text: 'paid' }])
    await agent.send('pay')
    const [pending] = pendingApprovals(session)
    await decideApproval(session, 'c1', {
      decision: 'allowed-once',
      by: 'alice',
      digest: pending!.argumentsDigest,
    })
    const before = session.events().length
    await pause(400)
    expect(session.events()).toHaveLength(before)
    expect((await agent.resume())?.reason).toBe('completed')
    expect(runs).toEqual([1])
  })

  it('F2.19: a session closed before the expiry is left alone: no write, no unhandled error', async () => {
    const { session, agent } = await world(150, [PAY, { text: 'x' }])
    await agent.send('pay')
    const before = session.events().length
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await session.close()
      await pause(400)
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    expect(session.events()).toHaveLength(before)
    expect(unhandled).toEqual([])
  })

  it('F2.19: the timer never keeps the process alive: a process whose agent waits on an hour-long ask exits once its work is done', async () => {
    const script = `
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
const runtime = createToolRuntime()
const scope = runtime.scope()
scope.register(defineTool({ name: 'pay', description: 'Pays.', effect: 'write', parameters: {}, execute: () => 'paid' }))
runtime.onPreExecute(async () => ({ kind: 'ask', reason: 'moves money' }))
const session = await openSession(memoryStore(), { id: 's' })
const agent = createAgent({ runtime, scope, session, model: scripted([{ toolCalls: [{ id: 'c1', name: 'pay', arguments: '{}' }] }]), approvals: { mode: 'durable', expiresAfterMs: 3600000 } })
console.log((await agent.send('pay')).reason)`
    const started = Date.now()
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
    })
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(out.trim()).toBe('suspended')
    expect(code).toBe(0)
    expect(Date.now() - started).toBeLessThan(15_000)
  }, 30_000)
})
