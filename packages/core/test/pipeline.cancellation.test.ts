import { createToolRuntime, type RunContext, ToolError } from '@tooltx/core'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  abortedSignal,
  after,
  deferred,
  expectFailure,
  flush,
  live,
  rawTool,
  runtimeWith,
  typedTool,
} from './pipeline.fixtures.js'

describe('C1 cancellation', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('C1.1: a started body that ignores its signal keeps the call pending until it settles', async () => {
    const rt = createToolRuntime()
    const gate = deferred<string>()
    let started = false
    rt.register(
      rawTool('t', {
        timeoutMs: 5,
        execute: () => {
          started = true
          return gate.promise
        },
      }),
    )
    const controller = new AbortController()
    let settled = false
    const pending = rt
      .execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
      .then((r) => {
        settled = true
        return r
      })
    await flush()
    expect(started).toBe(true)
    controller.abort()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(settled).toBe(false)
    gate.resolve('late')
    expectFailure(await pending, 'TOOL_TIMEOUT')
  })

  it('C1.2: the signal is looked at on entry, after the decision, at body start, at body end, after around and after post', async () => {
    const outcomes: string[] = []
    const check = async (abortAt: string) => {
      const controller = new AbortController()
      const rt = createToolRuntime({ timeout: false })
      const maybe = (point: string) => {
        if (point === abortAt) controller.abort()
      }
      rt.register(rawTool('t', { execute: async () => after(() => maybe('body'), 'v') }))
      rt.onPreExecute(async (_e, next) => after(() => maybe('pre'), next()))
      rt.wrapExecute(async (exec, next) => {
        if (abortAt === 'wrapper-signal') {
          const c = new AbortController()
          c.abort()
          exec.signal = c.signal
        }
        const r = await next()
        maybe('around')
        return r
      })
      rt.onPostExecute(async (_e, _r, next) => after(() => maybe('post'), next()))
      const signal = abortAt === 'entry' ? abortedSignal() : controller.signal
      const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
      outcomes.push(`${abortAt}:${result.isError ? result.error.info.code : 'ok'}`)
    }
    for (const point of ['entry', 'pre', 'wrapper-signal', 'body', 'around', 'post', 'never'])
      await check(point)
    expect(outcomes).toEqual([
      'entry:ABORTED_BEFORE_DISPATCH',
      'pre:ABORTED_BEFORE_DISPATCH',
      'wrapper-signal:ABORTED_BEFORE_DISPATCH',
      'body:ABORTED',
      'around:ABORTED',
      'post:ABORTED',
      'never:ok',
    ])
  })

  it('C1.3: ABORTED_BEFORE_DISPATCH covers a short-circuit success overtaken by cancellation', async () => {
    const controller = new AbortController()
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    rt.wrapExecute(async () => {
      controller.abort()
      return { isError: false, value: 'cached' } as never
    })
    expectFailure(
      await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal }),
      'ABORTED_BEFORE_DISPATCH',
      'tool call aborted before dispatch',
    )
  })

  it('C1.4: ABORTED only after a body was invoked; a defineTool validation failure counts as invoked', async () => {
    const controller = new AbortController()
    const rt = runtimeWith(typedTool())
    rt.wrapExecute(async (_e, next) => {
      const failed = await next()
      controller.abort()
      expect(failed.isError && failed.error.info.code).toBe('INVALID_ARGS')
      return { isError: false, value: null } as never
    })
    expectFailure(
      await rt.execute({ callId: 'c', name: 'typed', arguments: {}, signal: controller.signal }),
      'ABORTED',
      'tool call aborted',
    )
  })

  it('C1.5: cancellation never replaces a failure', async () => {
    const codes: string[] = []
    const cases: ((rt: ReturnType<typeof createToolRuntime>, abort: () => void) => void)[] = [
      (rt, abort) => rt.guard(() => after(abort, 'no')),
      (rt, abort) => rt.onPostExecute(async () => after(abort, { kind: 'block' as const })),
      (rt, abort) =>
        rt.wrapExecute(
          async () =>
            after(abort, {
              isError: true,
              error: { message: 'm', info: { name: 'N', code: 'WRAP' } },
            }) as never,
        ),
      (rt, abort) => rt.wrapExecute(async () => after(abort, 'invalid') as never),
      (rt, abort) =>
        rt.onPostExecute(
          async () => after(abort, { kind: 'accept', value: undefined, content: 'bad' }) as never,
        ),
    ]
    for (const make of cases) {
      const controller = new AbortController()
      const rt = createToolRuntime()
      rt.register(rawTool('t'))
      make(rt, () => controller.abort())
      const r = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
      codes.push(r.isError ? r.error.info.code : 'ok')
    }
    const c2 = new AbortController()
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        execute: async () => {
          c2.abort()
          throw new Error('tool failure')
        },
      }),
    )
    const failed = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: c2.signal })
    codes.push(failed.isError ? failed.error.info.code : 'ok')
    expect(codes).toEqual(['DENIED', 'BLOCKED', 'WRAP', 'HOOK_FAILED', 'HOOK_FAILED', 'TOOL_FAILED'])
  })

  it('C1.6: a cancelled success keeps contexts and loses value, meta and concludesTurn', async () => {
    const controller = new AbortController()
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        output: { schema: {}, render: () => [], presentationMeta: () => ({ m: 1 }) },
        execute: async (_a: unknown, r: RunContext) => {
          r.deferContext('deferred')
          r.concludeTurn()
          controller.abort()
          return 'v'
        },
      }),
    )
    const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    expectFailure(result, 'ABORTED')
    expect(Object.keys(result)).toEqual(['isError', 'error', 'content', 'additionalContexts'])
  })

  it('C1.7: a caller abort reaches the body even when a wrapper replaced exec.signal', async () => {
    const controller = new AbortController()
    const rt = createToolRuntime()
    let bodySignal: AbortSignal | undefined
    const gate = deferred()
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, r: RunContext) =>
          after(() => {
            bodySignal = r.signal
          }, gate.promise),
      }),
    )
    rt.wrapExecute(async (exec, next) => {
      exec.signal = new AbortController().signal
      return next()
    })
    const p = rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    await flush()
    controller.abort()
    expect(bodySignal?.aborted).toBe(true)
    gate.resolve()
    await p
  })

  it('C1.8: a coded failure the body produces on abort is kept', async () => {
    const controller = new AbortController()
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, r: RunContext) =>
          new Promise((_, reject) =>
            r.signal.addEventListener('abort', () =>
              reject(new ToolError('STOPPED', 'stopped cleanly', { name: 'StopError' })),
            ),
          ),
      }),
    )
    const p = rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    await flush()
    controller.abort()
    expectFailure(await p, 'STOPPED', 'stopped cleanly')
  })

  it('C1.9: a pre-aborted call still snapshots its arguments, gets a token and yields one frozen result', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const tokens: unknown[] = []
    rt.onResult((exec) => void tokens.push(typeof exec.token, exec.arguments))
    expectFailure(
      await rt.execute({ callId: 'c', name: 't', arguments: { bad: undefined }, signal: abortedSignal() }),
      'INVALID_ARGS',
    )
    const ok = await rt.execute({ callId: 'c', name: 't', arguments: { x: 1 }, signal: abortedSignal() })
    expectFailure(ok, 'ABORTED_BEFORE_DISPATCH')
    expect(Object.isFrozen(ok)).toBe(true)
    expect(tokens).toEqual(['symbol', undefined, 'symbol', { x: 1 }])
    void live
  })
})
