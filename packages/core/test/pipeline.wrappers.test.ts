import {
  createToolRuntime,
  type RunContext,
  retry,
  type ToolFailure,
  type ToolRuntime,
  timeout,
} from '@tooltx/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { appliesToOf, declareAppliesTo } from '../src/pipeline/applies-to.js'
import { callTool, deferred, expectFailure, flush, live, rawTool } from './pipeline.fixtures.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

/** A runtime with one idempotent raw tool `name` whose body is `execute`, wrapped by `wrapper`. */
function wrappedTool(
  name: string,
  wrapper: Parameters<ToolRuntime['wrapExecute']>[0],
  execute: () => Promise<unknown>,
) {
  const rt = createToolRuntime()
  rt.register(rawTool(name, { effect: 'idempotent', execute }))
  rt.wrapExecute(wrapper)
  return rt
}

/** A body that waits for its signal (or a gate) and records the signal it saw. */
function slowTool(name: string, timeoutMs?: number) {
  const signals: AbortSignal[] = []
  const gate = deferred<unknown>()
  const def = rawTool(name, {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: async (_a: unknown, run: RunContext) => {
      signals.push(run.signal)
      run.deferContext('deferred before timeout')
      return gate.promise
    },
  })
  return { def, signals, gate }
}

describe('P7 built-in timeout and retry', () => {
  it('P7.1: the timeout wrapper is installed outermost by default, not with { timeout: false }; timeout() is that wrapper', async () => {
    const order: string[] = []
    const rt = createToolRuntime()
    const tool = slowTool('t', 100)
    rt.register(tool.def)
    const caller = live()
    rt.wrapExecute(async (exec, next) => {
      // The timeout wrapper ran first (outermost): it already swapped in its deadline signal.
      order.push(exec.signal === caller ? 'caller signal' : 'deadline signal')
      return next()
    })
    const pending = rt.execute({ callId: 'c', name: 't', arguments: {}, signal: caller })
    await vi.advanceTimersByTimeAsync(100)
    tool.gate.resolve(1)
    expectFailure(await pending, 'TOOL_TIMEOUT', 'tool call timed out after 100ms')
    const off = createToolRuntime({ timeout: false })
    const t2 = slowTool('t', 100)
    off.register(t2.def)
    const p2 = callTool(off, 't')
    await vi.advanceTimersByTimeAsync(1000)
    t2.gate.resolve('fine')
    expect((await p2).isError).toBe(false)
    expect(timeout()).toBe(timeout())
    expect(order).toEqual(['deadline signal'])
  })

  it('P7.2: the wrapper installs a deadline signal for tools with timeoutMs, restores it, and leaves others alone', async () => {
    const rt = createToolRuntime()
    const tool = slowTool('t', 50)
    rt.register(tool.def)
    const plain = slowTool('plain')
    rt.register(plain.def)
    const outer = live()
    let before: AbortSignal | undefined
    let after: AbortSignal | undefined
    rt.wrapExecute(async (exec, next) => {
      before = exec.signal
      const result = await next()
      after = exec.signal
      return result
    })
    const pending = rt.execute({ callId: 'c', name: 't', arguments: {}, signal: outer })
    await flush()
    expect(before).not.toBe(outer)
    expect(tool.signals[0]!.aborted).toBe(false)
    tool.gate.resolve('quick')
    expect((await pending).isError).toBe(false)
    expect(after).toBe(before)
    expect(vi.getTimerCount()).toBe(0)
    const p2 = rt.execute({ callId: 'c', name: 'plain', arguments: {}, signal: outer })
    await flush()
    expect(plain.signals[0]).toBe(outer)
    plain.gate.resolve(1)
    await p2
  })

  it('P7.3: a fired timer gives TOOL_TIMEOUT with the returned result contexts, whatever the result', async () => {
    const rt = createToolRuntime()
    const tool = slowTool('t', 20)
    rt.register(tool.def)
    const pending = callTool(rt, 't')
    await vi.advanceTimersByTimeAsync(20)
    expect(tool.signals[0]!.aborted).toBe(true)
    tool.gate.resolve('a success that arrived late')
    const result = await pending
    expectFailure(result, 'TOOL_TIMEOUT', 'tool call timed out after 20ms')
    expect(result.additionalContexts?.[0]?.content).toEqual([
      { type: 'text', text: 'deferred before timeout' },
    ])
  })

  it('P7.4: an inner deadline or a caller abort never produces TOOL_TIMEOUT from this wrapper', async () => {
    const rt = createToolRuntime()
    const tool = slowTool('t', 1000)
    rt.register(tool.def)
    rt.wrapExecute(async (exec, next) => {
      const inner = new AbortController()
      exec.signal = inner.signal
      setTimeout(() => inner.abort(new Error('inner deadline')), 10)
      return next()
    })
    const pending = callTool(rt, 't')
    await vi.advanceTimersByTimeAsync(10)
    tool.gate.reject(new Error('stopped by inner deadline'))
    expectFailure(await pending, 'TOOL_FAILED', 'stopped by inner deadline')
    const caller = new AbortController()
    const t2 = slowTool('u', 1000)
    rt.register(t2.def)
    const p2 = rt.execute({ callId: 'c', name: 'u', arguments: {}, signal: caller.signal })
    await flush()
    caller.abort()
    t2.gate.reject(new Error('caller stopped me'))
    expectFailure(await p2, 'TOOL_FAILED', 'caller stopped me')
  })

  it('P7.5: a body ignoring its signal keeps the call pending; TOOL_TIMEOUT comes only after it settles', async () => {
    const rt = createToolRuntime()
    const tool = slowTool('t', 10)
    rt.register(tool.def)
    let settled = false
    const pending = callTool(rt, 't').then((r) => {
      settled = true
      return r
    })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(settled).toBe(false)
    tool.gate.resolve('finally')
    expectFailure(await pending, 'TOOL_TIMEOUT')
  })

  it('P7.6: retry calls next() until not retryable or attempts are spent; bad attempts throw', async () => {
    let calls = 0
    const rt = wrappedTool('t', retry({ attempts: 5 }), async () => {
      calls++
      if (calls < 3) throw new Error(`flaky ${calls}`)
      return calls
    })
    expect(await callTool(rt, 't')).toMatchObject({
      value: 3,
    })
    calls = -10
    const limited = wrappedTool('t', retry({ attempts: 2 }), async () => {
      throw new Error(`fail ${++calls}`)
    })
    expectFailure(await callTool(limited, 't'), 'TOOL_FAILED', 'fail -8')
    for (const attempts of [0, 1.5, -1, Number.NaN, '2', undefined]) {
      expect(() => retry({ attempts: attempts as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_DEFINITION' }),
      )
    }
  })

  it('P7.7: only failures retry, only on an exact true, never once a signal aborted; default retries TOOL_FAILED only', async () => {
    let calls = 0
    const seen: [string, number][] = []
    const rt = wrappedTool(
      'denied',
      retry({
        attempts: 3,
        when: (result: ToolFailure, attempt) => {
          seen.push([result.error.info.code, attempt])
          return (attempt === 1 ? true : 'yes') as never
        },
      }),
      async () => {
        calls++
        throw new Error('x')
      },
    )
    await callTool(rt, 'denied')
    expect(seen).toEqual([
      ['TOOL_FAILED', 1],
      ['TOOL_FAILED', 2],
    ])
    expect(calls).toBe(2)

    let n = 0
    const byDefault = wrappedTool('out', retry({ attempts: 3 }), async () => {
      n++
      return undefined
    })
    expectFailure(await callTool(byDefault, 'out'), 'INVALID_TOOL_OUTPUT')
    expect(n).toBe(1)

    const caller = new AbortController()
    let m = 0
    const aborting = wrappedTool('t', retry({ attempts: 3, when: () => true }), async () => {
      m++
      caller.abort()
      throw new Error('x')
    })
    await aborting.execute({ callId: 'c', name: 't', arguments: {}, signal: caller.signal })
    expect(m).toBe(1)
  })

  it('P7.8: a throwing when makes the wrapper throw, giving HOOK_FAILED', async () => {
    const rt = wrappedTool(
      't',
      retry({
        attempts: 2,
        when: () => {
          throw new Error('when broke')
        },
      }),
      async () => {
        throw new Error('x')
      },
    )
    expectFailure(await callTool(rt, 't'), 'HOOK_FAILED', 'wrapExecute handler failed: when broke')
  })

  it('P7.9: default timeout outside retry bounds all attempts; retry then timeout() times each attempt', async () => {
    const attemptsRun: number[] = []
    const makeTool = () =>
      rawTool('t', {
        effect: 'idempotent',
        timeoutMs: 100,
        execute: async (_a: unknown, run: RunContext) => {
          attemptsRun.push(run.attempt)
          await new Promise((_, reject) =>
            run.signal.addEventListener('abort', () => reject(new Error('aborted'))),
          )
        },
      })
    const shared = createToolRuntime()
    shared.register(makeTool())
    shared.wrapExecute(retry({ attempts: 3, when: () => true }))
    const p1 = callTool(shared, 't')
    await vi.advanceTimersByTimeAsync(100)
    expectFailure(await p1, 'TOOL_TIMEOUT')
    expect(attemptsRun).toEqual([1])

    attemptsRun.length = 0
    const each = createToolRuntime({ timeout: false })
    each.register(makeTool())
    each.wrapExecute(retry({ attempts: 3, when: () => true }))
    each.wrapExecute(timeout())
    const p2 = callTool(each, 't')
    await vi.advanceTimersByTimeAsync(350)
    expectFailure(await p2, 'TOOL_TIMEOUT')
    expect(attemptsRun).toEqual([1, 2, 3])
  })

  it('P7.10: a wrapper declares the definitions it acts on; the built-in timeout acts on those with timeoutMs', async () => {
    const acts = appliesToOf(timeout())
    expect(acts?.(rawTool('a', { timeoutMs: 5 }))).toBe(true)
    expect(acts?.(rawTool('b'))).toBe(false)
    expect(acts?.(undefined)).toBe(false)

    const seen: string[] = []
    const onlyMarked = declareAppliesTo(
      (exec, next) => {
        seen.push(`declared:${exec.name}`)
        return next()
      },
      (def) => def?.description === 'marked',
    )
    const rt = createToolRuntime({ timeout: false })
    rt.register(rawTool('plain', { execute: async () => 'p' }))
    rt.register(rawTool('marked', { description: 'marked', execute: async () => 'm' }))
    rt.wrapExecute(onlyMarked)
    // Alone, the declared wrapper is skipped for a definition it does not act on.
    expect((await rt.execute({ callId: 'c1', name: 'plain', arguments: {}, signal: live() })).isError).toBe(
      false,
    )
    expect((await rt.execute({ callId: 'c2', name: 'marked', arguments: {}, signal: live() })).isError).toBe(
      false,
    )
    expect(seen).toEqual(['declared:marked'])
    // Next to a wrapper that declares nothing, the whole chain runs, the declared one included.
    rt.wrapExecute((exec, next) => {
      seen.push(`open:${exec.name}`)
      return next()
    })
    await rt.execute({ callId: 'c3', name: 'plain', arguments: {}, signal: live() })
    expect(seen).toEqual(['declared:marked', 'declared:plain', 'open:plain'])
  })
})
