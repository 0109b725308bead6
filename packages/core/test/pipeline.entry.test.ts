import { createToolRuntime, type Execution } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import {
  abortedSignal,
  callTool,
  countingTool,
  countPostExecute,
  expectFailure,
  isDeepFrozen,
  live,
  note,
  rawTool,
  throwingTool,
} from './pipeline.fixtures.js'

describe('P2 entry', () => {
  it('P2.1: every kind of failure resolves with one deep-frozen result', async () => {
    const rt = createToolRuntime()
    rt.register(throwingTool('throws', 'body'))
    rt.register(rawTool('bad-output', { execute: async () => undefined }))
    const results = await Promise.all([
      callTool(rt, 'throws'),
      callTool(rt, 'bad-output'),
      callTool(rt, 'missing'),
      rt.execute({ callId: 'c', name: 'throws', arguments: { x: undefined }, signal: live() }),
      rt.execute({ callId: 'c', name: 'throws', arguments: {}, signal: abortedSignal() }),
    ])
    expect(results.map((r) => r.isError && r.error.info.code)).toEqual([
      'TOOL_FAILED',
      'INVALID_TOOL_OUTPUT',
      'UNKNOWN_TOOL',
      'INVALID_ARGS',
      'ABORTED_BEFORE_DISPATCH',
    ])
    for (const result of results) expect(isDeepFrozen(result)).toBe(true)
  })

  it('P2.2: entry reads, mints, resolves rootCallId, captures the finalizer, snapshots, freezes, checks abort, collapses', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const order: string[] = []
    let off = rt.register(rawTool('t', { finalizeContent: () => note(order, 'finalizer A', undefined) }))
    const args = {
      get a() {
        order.push('snapshot')
        off()
        off = rt.register(rawTool('t', { finalizeContent: () => note(order, 'finalizer B', undefined) }))
        return 1
      },
    }
    const controller = new AbortController()
    const input = {
      callId: 'c',
      name: 't',
      get arguments() {
        order.push('read arguments')
        return args
      },
      get signal() {
        order.push('read signal')
        return controller.signal
      },
    }
    const result = await rt.execute(input as never)
    expect(order).toEqual(['read arguments', 'read signal', 'snapshot', 'finalizer A'])
    expect(result.isError && result.error.info.code).toBe('UNKNOWN_TOOL')
  })

  it('P2.3: an arguments getter that re-registers the tool cannot change the finalizer', async () => {
    const rt = createToolRuntime()
    let off = rt.register(rawTool('t', { finalizeContent: () => [{ type: 'text', text: 'old finalizer' }] }))
    const args = {
      get x() {
        off()
        off = rt.register(rawTool('t', { finalizeContent: () => [{ type: 'text', text: 'new finalizer' }] }))
        return 1
      },
    }
    const result = await rt.execute({ callId: 'c', name: 't', arguments: args, signal: live() })
    expect(result.content).toEqual([{ type: 'text', text: 'old finalizer' }])
  })

  it('P2.4: non-lossless arguments are the final-result INVALID_ARGS and the execution has no arguments key', async () => {
    const rt = createToolRuntime()
    const body = countingTool('t', 1)
    let exec: Execution | undefined
    rt.register(body.tool)
    const post = countPostExecute(rt)
    rt.onResult((e) => {
      exec = e
    })
    const sparse = [1, 2]
    delete sparse[0]
    for (const args of [undefined, { a: undefined }, sparse, new Date(), { n: Number.NaN }, 1n]) {
      const result = await rt.execute({ callId: 'c', name: 't', arguments: args, signal: live() })
      expectFailure(result, 'INVALID_ARGS', 'invalid arguments: arguments are not lossless JSON')
      expect('arguments' in exec!).toBe(false)
    }
    expect([body.runs(), post()]).toEqual([0, 0])
  })

  it('P2.5: a throwing arguments getter fails after exactly one read', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    let reads = 0
    const args = {
      get secret() {
        reads++
        throw new Error('nope')
      },
    }
    const result = await rt.execute({ callId: 'c', name: 't', arguments: args, signal: live() })
    expectFailure(result, 'INVALID_ARGS', 'invalid arguments: reading the arguments failed: nope')
    expect(reads).toBe(1)
    const input = {
      callId: 'c',
      name: 't',
      signal: live(),
      get arguments() {
        reads++
        throw new Error('outer')
      },
    }
    expectFailure(
      await rt.execute(input as never),
      'INVALID_ARGS',
      'invalid arguments: reading the arguments failed: outer',
    )
    expect(reads).toBe(2)
  })

  it('P2.6: an argument failure wins over an aborted signal and over the collapse', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('t'))
    const result = await rt.execute({
      callId: 'c',
      name: 't',
      arguments: { x: undefined },
      signal: abortedSignal(),
    })
    expectFailure(result, 'INVALID_ARGS')
    const collapsed = await rt.execute({ callId: 'c', name: 't', arguments: () => 1, signal: live() })
    expectFailure(collapsed, 'INVALID_ARGS')
  })

  it('P2.7: a pre-aborted signal is the final-result ABORTED_BEFORE_DISPATCH with finalizer and one observation', async () => {
    const ran: string[] = []
    const rt = createToolRuntime({ approver: () => note(ran, 'approver', 'allowed-once') })
    rt.register(
      rawTool('t', {
        execute: async () => note(ran, 'body', 1),
        finalizeContent: () => note(ran, 'finalizer', undefined),
      }),
    )
    rt.onPreExecute(async () => note(ran, 'pre', { kind: 'ask' }))
    rt.guard(() => note(ran, 'guard', undefined))
    rt.wrapExecute(async (_e, next) => note(ran, 'wrap', next()))
    rt.onPostExecute(async (_e, _r, next) => note(ran, 'post', next()))
    rt.onResult(() => void ran.push('observer'))
    const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() })
    expectFailure(result, 'ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch')
    expect(ran).toEqual(['finalizer', 'observer'])
  })
})
