import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, snapshotJson, type ToolResult, type ToolRuntime } from '@tooltx/core'
import { isFrozenSnapshot } from '@tooltx/core/internal'
import { memoryStore, openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'

const live = new AbortController().signal

function probeTool(seen: unknown[]) {
  return {
    name: 'probe',
    description: 'Records what it sees.',
    parameters: { type: 'object' },
    output: { schema: {}, render: () => [{ type: 'text' as const, text: 'ok' }] },
    isConcurrencySafe: (args: unknown) => {
      seen.push(args)
      return true
    },
    execute: (args: unknown) => {
      seen.push(args)
      return 1
    },
  }
}

/**
 * Runs one turn of an agent whose scripted model calls `probe` with `{"x":[1,{"y":2}]}` and then
 * says `done`, over `runtime` (with `probeTool(seen)` registered in a fresh scope) and a memory
 * session `id`. Resolves with the session once the turn is over.
 */
async function probeTurn(runtime: ToolRuntime, seen: unknown[], id: string) {
  const scope = runtime.scope()
  scope.register(probeTool(seen))
  const session = await openSession(memoryStore(), { id })
  const model = scripted([
    { toolCalls: [{ name: 'probe', arguments: '{"x":[1,{"y":2}]}' }] },
    { text: 'done' },
  ])
  const agent = createAgent({ runtime, scope, session, model })
  agent.send('go')
  await agent.whenIdle()
  return session
}

describe('Q3 a value the runtime froze is copied once at most', () => {
  it('Q3.1: execute and executionMode take a frozen snapshot as is; any other value is copied', async () => {
    const seen: unknown[] = []
    const runtime = createToolRuntime()
    runtime.register(probeTool(seen))
    const frozen = snapshotJson({ a: { b: [1] } }, { freeze: true })
    if (!frozen.ok) throw new Error('unreachable')
    const plain = Object.freeze({ a: 1 })
    expect(runtime.view().executionMode({ name: 'probe', arguments: frozen.value })).toBe('parallel')
    expect(runtime.view().executionMode({ name: 'probe', arguments: plain })).toBe('parallel')
    await runtime.execute({ callId: 'c1', name: 'probe', arguments: frozen.value, signal: live })
    await runtime.execute({ callId: 'c2', name: 'probe', arguments: plain, signal: live })
    expect(seen[0]).toBe(frozen.value)
    expect(seen[1]).not.toBe(plain)
    expect(seen[1]).toEqual(plain)
    expect(seen[2]).toBe(frozen.value)
    expect(seen[3]).not.toBe(plain)
  })

  it('Q3.1: the loop classifies and executes a call with one frozen copy of its parsed arguments', async () => {
    const seen: unknown[] = []
    await probeTurn(createToolRuntime(), seen, 'q31')
    expect(seen).toHaveLength(2)
    expect(seen[0]).toEqual({ x: [1, { y: 2 }] })
    expect(seen[1]).toBe(seen[0])
    expect(Object.isFrozen((seen[0] as { x: object[] }).x[1])).toBe(true)
  })

  it('Q3.2, Q3.3: the loop parses the raw arguments into a frozen snapshot and logs the very content execute returned', async () => {
    const seen: unknown[] = []
    const results: ToolResult[] = []
    const runtime = createToolRuntime()
    runtime.onResult((_exec, result) => {
      results.push(result)
    })
    const session = await probeTurn(runtime, seen, 'q32')
    expect(isFrozenSnapshot(seen[0])).toBe(true)
    expect(seen[1]).toBe(seen[0])
    const logged = session.events().find((event) => event.type === 'tool/result')
    if (logged === undefined) throw new Error('no tool/result event')
    expect(results).toHaveLength(1)
    expect((logged.data as { content: unknown }).content).toBe(results[0]!.content)
  })
})
