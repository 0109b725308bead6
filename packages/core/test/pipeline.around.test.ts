import { createToolRuntime, defineTool, type RunContext, ToolError, type ToolResult } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import {
  abortBeforeNext,
  callTool,
  countPostExecute,
  deferred,
  expectFailure,
  flush,
  isDeepFrozen,
  live,
  note,
  rawTool,
  runtimeWith,
} from './pipeline.fixtures.js'

function setup(overrides: Record<string, unknown> = {}) {
  const runs: RunContext[] = []
  const rt = createToolRuntime({ timeout: false })
  rt.register(
    rawTool('t', {
      execute: async (_a: unknown, run: RunContext) => {
        runs.push(run)
        return { n: runs.length }
      },
      ...overrides,
    }),
  )
  const run = (signal = live()) => rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
  return { rt, runs, run }
}

describe('P6 around chain', () => {
  it('P6.1: handlers get the around view and next(); the innermost step is the base dispatch', async () => {
    const { rt, run, runs } = setup()
    rt.wrapExecute(async (exec, next) => {
      expect(exec.name).toBe('t')
      return next()
    })
    expect(await run()).toMatchObject({ isError: false, value: { n: 1 } })
    expect(runs).toHaveLength(1)
  })

  it('P6.2: next() resolves frozen results for body failures and rejects for a failing downstream wrapper', async () => {
    const { rt, run } = setup({
      execute: async () => {
        throw new Error('body broke')
      },
    })
    const seen: unknown[] = []
    rt.wrapExecute(async (_e, next) => {
      try {
        return await next()
      } catch (error) {
        seen.push((error as ToolError).code)
        throw error
      }
    })
    const inner = rt.wrapExecute(async (_e, next) => {
      const result = await next()
      seen.push(result.isError && result.error.info.code, isDeepFrozen(result))
      return result
    })
    expectFailure(await run(), 'TOOL_FAILED', 'body broke')
    inner()
    rt.wrapExecute(async () => {
      throw new Error('inner wrapper broke')
    })
    expectFailure(await run(), 'HOOK_FAILED', 'wrapExecute handler failed: inner wrapper broke')
    expect(seen).toEqual(['TOOL_FAILED', true, 'HOOK_FAILED'])
  })

  it('P6.3: each next() call is a fresh attempt through the downstream wrappers', async () => {
    const { rt, run, runs } = setup()
    let innerWrapper = 0
    rt.wrapExecute(async (_e, next) => {
      await next()
      return next()
    })
    rt.wrapExecute(async (_e, next) => {
      innerWrapper++
      return next()
    })
    expect(await run()).toMatchObject({ value: { n: 2 } })
    expect(innerWrapper).toBe(2)
    expect(runs.map((r) => r.attempt)).toEqual([1, 2])
  })

  it('P6.4: contexts and conclusion come from the attempt whose result is returned', async () => {
    const { rt, run } = setup({
      execute: async (_a: unknown, r: RunContext) => {
        r.deferContext(`attempt ${r.attempt}`)
        if (r.attempt === 1) r.concludeTurn()
        return r.attempt
      },
    })
    rt.wrapExecute(async (_e, next) => {
      const first = await next()
      expect(first.additionalContexts?.[0]?.content).toEqual([{ type: 'text', text: 'attempt 1' }])
      expect(first.isError === false && first.concludesTurn).toBe(true)
      return next()
    })
    const result = await run()
    expect(result.additionalContexts?.map((c) => c.content)).toEqual([[{ type: 'text', text: 'attempt 2' }]])
    expect('concludesTurn' in result).toBe(false)
  })

  it('P6.5: next() after the around stage completed rejects and runs nothing', async () => {
    const { rt, run, runs } = setup()
    let late: (() => Promise<ToolResult>) | undefined
    rt.wrapExecute(async (_e, next) => {
      late = next
      return next()
    })
    await run()
    await expect(late!()).rejects.toMatchObject({
      code: 'HOOK_FAILED',
      message: 'wrapExecute next() called after the around stage completed',
    })
    expect(runs).toHaveLength(1)
  })

  it('P6.6: a name not visible at dispatch is UNKNOWN_TOOL and no body runs', async () => {
    const rt = createToolRuntime()
    let off = () => {}
    let body = 0
    off = rt.register(
      rawTool('t', {
        execute: async () => {
          body++
          return 1
        },
      }),
    )
    rt.wrapExecute(async (_e, next) => {
      off()
      return next()
    })
    expectFailure(await callTool(rt, 't'), 'UNKNOWN_TOOL', 'unknown tool "t"')
    expect(body).toBe(0)
  })

  it('P6.7: the body signal fuses caller and wrapper signals; listeners go away; a caller abort never aborts a wrapper signal', async () => {
    const gate = deferred()
    const { rt, runs } = setup({
      execute: async (_a: unknown, r: RunContext) => {
        runs.push(r)
        await gate.promise
        return 1
      },
    })
    const mine = new AbortController()
    rt.wrapExecute(async (exec, next) => {
      exec.signal = mine.signal
      return next()
    })
    const caller = new AbortController()
    const pending = rt.execute({ callId: 'c', name: 't', arguments: {}, signal: caller.signal })
    await flush()
    const bodySignal = runs[0]!.signal
    expect(bodySignal).not.toBe(caller.signal)
    expect(bodySignal).not.toBe(mine.signal)
    caller.abort(new Error('caller reason'))
    expect(bodySignal.aborted).toBe(true)
    expect((bodySignal.reason as Error).message).toBe('caller reason')
    expect(mine.signal.aborted).toBe(false)
    gate.resolve()
    await pending
    // Same object: no fusion.
    const same = setup()
    await same.run()
    expect(same.runs[0]!.signal).toBeInstanceOf(AbortSignal)
    const direct = live()
    await same.rt.execute({ callId: 'c', name: 't', arguments: {}, signal: direct })
    expect(same.runs[1]!.signal).toBe(direct)
  })

  it('P6.8: an already aborted fused signal skips the body with ABORTED_BEFORE_DISPATCH', async () => {
    const { rt, run, runs } = setup()
    rt.wrapExecute(abortBeforeNext)
    expectFailure(await run(), 'ABORTED_BEFORE_DISPATCH')
    expect(runs).toHaveLength(0)
  })

  it('P6.9: a result some next() resolved with is passed on as the very object', async () => {
    const { rt, run } = setup()
    let inner: ToolResult | undefined
    rt.onResult((_e, r) => expect(r).toBe(inner))
    rt.wrapExecute(async (_e, next) => {
      inner = await next()
      return inner
    })
    await run()
  })

  it('P6.10: a wrapper-authored success is normalized: re-resolved, validated, re-rendered, no concludesTurn', async () => {
    const rt = runtimeWith(
      rawTool('t', {
        output: {
          schema: { type: 'string' },
          render: (_: unknown, v: string) => [{ type: 'text', text: `rendered ${v}` }],
        },
      }),
    )
    const returns: unknown[] = [
      {
        isError: false,
        value: 'cached',
        content: [{ type: 'text', text: 'ignored' }],
        concludesTurn: true,
        additionalContexts: [{ role: 'user', content: [{ type: 'text', text: 'ctx' }] }],
      },
      { isError: false, value: 42 },
    ]
    rt.wrapExecute(async () => returns.shift() as never)
    const result = await callTool(rt, 't')
    expect(result).toEqual({
      isError: false,
      value: 'cached',
      content: [{ type: 'text', text: 'rendered cached' }],
      additionalContexts: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'ctx' }],
          source: { kind: 'tool', name: 't', callId: 'c' },
        },
      ],
    })
    expectFailure(
      await callTool(rt, 't'),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: "value" must be a string',
    )
  })

  it('P6.11: a wrapper-authored failure copies only its result fields', async () => {
    const { rt, run } = setup()
    const failures: unknown[] = [
      {
        isError: true,
        error: { message: 'cached failure', info: { name: 'CacheError', code: 'CACHE_MISS' }, extra: 1 },
        value: 1,
        other: 2,
      },
      {
        isError: true,
        error: { message: 'm', info: { name: 'N', code: 'C' } },
        content: [{ type: 'text', text: 'custom' }],
        meta: { x: 1 },
      },
    ]
    rt.wrapExecute(async () => failures.shift() as never)
    expect(await run()).toEqual({
      isError: true,
      error: { message: 'cached failure', info: { name: 'CacheError', code: 'CACHE_MISS' } },
      content: [{ type: 'text', text: 'Error: cached failure' }],
    })
    expect(await run()).toEqual({
      isError: true,
      error: { message: 'm', info: { name: 'N', code: 'C' } },
      content: [{ type: 'text', text: 'custom' }],
      meta: { x: 1 },
    })
  })

  it('P6.12: malformed wrapper returns are the final-result HOOK_FAILED', async () => {
    const cases: unknown[] = [
      undefined,
      'ok',
      { value: 1 },
      { isError: 'no' },
      { isError: true, error: { message: 'no info' } },
      { isError: true, error: { info: { name: 'N', code: 'C' } } },
      {
        isError: true,
        error: { message: 'm', info: { name: 'N', code: 'C' } },
        content: [{ text: 'no type' }],
      },
      { isError: false, value: 1, additionalContexts: [{ role: 'assistant', content: [] }] },
    ]
    for (const returned of cases) {
      const { rt, run } = setup()
      const post = countPostExecute(rt)
      rt.wrapExecute(async () => returned as never)
      expectFailure(await run(), 'HOOK_FAILED', /^wrapExecute handler returned an invalid value: /)
      expect(post()).toBe(0)
    }
  })

  it('P6.13: a throwing wrapper is HOOK_FAILED; a ToolError keeps its code', async () => {
    const a = setup()
    a.rt.wrapExecute(async () => {
      throw 'plain string'
    })
    expectFailure(await a.run(), 'HOOK_FAILED', 'wrapExecute handler failed: plain string')
    const b = setup()
    b.rt.wrapExecute(async () => {
      throw new ToolError('RATE_LIMITED', 'slow down')
    })
    expect((await b.run()).isError && ((await b.run()) as { error: unknown }).error).toEqual({
      message: 'slow down',
      info: { name: 'ToolError', code: 'RATE_LIMITED' },
    })
  })

  it('P6.14: well-formed wrapper results, even failing normalization, are post-results', async () => {
    const rt = createToolRuntime()
    const off = rt.register(rawTool('t', { output: { schema: { type: 'string' }, render: () => [] } }))
    const seen: string[] = []
    rt.onPostExecute(async (_e, r, next) => note(seen, r.isError ? r.error.info.code : 'ok', next()))
    const returns = [
      { isError: false, value: 3 },
      { isError: true, error: { message: 'x', info: { name: 'N', code: 'MINE' } } },
      { isError: false, value: 'x' },
    ]
    rt.wrapExecute(async () => {
      const next = returns.shift()!
      if (returns.length === 0) off()
      return next as never
    })
    for (let i = 0; i < 3; i++) await callTool(rt, 't')
    expect(seen).toEqual(['INVALID_TOOL_OUTPUT', 'MINE', 'UNKNOWN_TOOL'])
  })

  it('P6.15: a wrapper short-circuit success overtaken by an abort is ABORTED_BEFORE_DISPATCH with its contexts', async () => {
    const { rt } = setup({
      execute: async (_a: unknown, r: RunContext) => {
        r.deferContext('kept')
        return 1
      },
    })
    const controller = new AbortController()
    const seen: string[] = []
    rt.onPostExecute(async (_e, r, next) => note(seen, r.isError ? r.error.info.code : 'ok', next()))
    const cached = {
      isError: false,
      value: 1,
      additionalContexts: [{ role: 'user', content: [{ type: 'text', text: 'cached ctx' }] }],
    }
    rt.wrapExecute(async () => {
      controller.abort()
      return cached as never
    })
    const short = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    expectFailure(short, 'ABORTED_BEFORE_DISPATCH')
    expect(short.additionalContexts?.[0]?.content).toEqual([{ type: 'text', text: 'cached ctx' }])
    expect(seen).toEqual(['ABORTED_BEFORE_DISPATCH'])
  })

  it('P6.15: after a body ran, an overtaken success becomes ABORTED with the deferred contexts', async () => {
    const controller = new AbortController()
    const { rt } = setup({
      execute: async (_a: unknown, r: RunContext) => {
        r.deferContext('from body')
        return 1
      },
    })
    rt.wrapExecute(async (_e, next) => {
      const result = await next()
      controller.abort()
      return result
    })
    const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    expectFailure(result, 'ABORTED', 'tool call aborted')
    expect(result.additionalContexts?.[0]?.content).toEqual([{ type: 'text', text: 'from body' }])
  })

  it('P6.10: defineTool output types are enforced on wrapper-authored values too', async () => {
    const rt = createToolRuntime()
    rt.register(
      defineTool({
        name: 'typed',
        description: 'typed',
        parameters: {},
        output: {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { n: { type: 'integer', required: true } },
          },
          render: (_a, v) => [{ type: 'text', text: String(v.n) }],
        },
        execute: async () => ({ n: 1 }),
      }),
    )
    rt.wrapExecute(async () => ({ isError: false, value: { n: 1.5 } }) as never)
    expectFailure(
      await callTool(rt, 'typed'),
      'INVALID_TOOL_OUTPUT',
      'tool "typed" returned invalid output: "value.n" must be an integer',
    )
  })
})
