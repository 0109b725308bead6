import { createToolRuntime, type RunContext, ToolError, type ToolResult } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { countPostExecute, expectFailure, isDeepFrozen, live, rawTool } from './pipeline.fixtures.js'

const ctx = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })

function setup(
  execute: (a: unknown, r: RunContext) => unknown = async (_a, r) => {
    r.deferContext('from body')
    r.concludeTurn()
    return 'original'
  },
) {
  const rt = createToolRuntime()
  rt.register(
    rawTool('t', {
      execute,
      output: {
        schema: { type: 'string' },
        render: (_a: unknown, v: string) => [{ type: 'text', text: `rendered ${v}` }],
        presentationMeta: (_a: unknown, v: string) => ({ v }),
      },
    }),
  )
  const run = (signal = live()) => rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
  return { rt, run }
}

describe('P10 post-execute', () => {
  it('P10.1: handlers receive (exec, result, next); the innermost default is a plain accept', async () => {
    const { rt, run } = setup()
    const inner: unknown[] = []
    rt.onPostExecute(async (exec, result, next) => {
      inner.push(exec.name, result.isError, await next())
      return next()
    })
    expect(await run()).toMatchObject({ isError: false, value: 'original' })
    expect(inner).toEqual(['t', false, { kind: 'accept' }])
  })

  it('P10.2: post-execute runs once for post-results and never for final-results', async () => {
    const { rt, run } = setup()
    const calls = countPostExecute(rt)
    await run()
    await rt.execute({ callId: 'c', name: 't', arguments: { x: undefined }, signal: live() })
    const off = rt.onPreExecute(async () => {
      throw new Error('x')
    })
    await run()
    off()
    expect(calls()).toBe(1)
  })

  it('P10.3: handlers get the frozen execution with the caller signal and a deep-frozen result', async () => {
    const { rt } = setup()
    const signal = live()
    rt.onPostExecute(async (exec, result, next) => {
      expect(exec.signal).toBe(signal)
      expect(Object.isFrozen(exec)).toBe(true)
      expect(isDeepFrozen(result)).toBe(true)
      return next()
    })
    expect((await rt.execute({ callId: 'c', name: 't', arguments: {}, signal })).isError).toBe(false)
  })

  it('P10.4: the four decision shapes are valid; an undefined key counts as absent', async () => {
    const decisions = [
      { kind: 'accept', value: undefined, content: undefined },
      { kind: 'accept', content: [{ type: 'text', text: 'c' }], value: undefined },
      { kind: 'accept', value: 'v', feedback: undefined },
      { kind: 'block', feedback: undefined, additionalContexts: [ctx('x')] },
    ]
    for (const decision of decisions) {
      const { rt, run } = setup()
      rt.onPostExecute(async () => decision as never)
      const result = await run()
      expect(result.isError ? result.error.info.code : 'ok').not.toBe('HOOK_FAILED')
    }
  })

  it('P10.5: malformed decisions are HOOK_FAILED', async () => {
    const cases: [unknown, RegExp][] = [
      ['accept', /got string$/],
      [{ kind: 'replace' }, /kind must be "accept" or "block"/],
      [{ kind: 'accept', note: 'x' }, /unknown key "note"/],
      [{ kind: 'block', value: 1 }, /unknown key "value"/],
      [{ kind: 'accept', content: 'plain text' }, /content/],
      [{ kind: 'block', feedback: [{ text: 'no type' }] }, /feedback/],
      [{ kind: 'accept', additionalContexts: [{ role: 'system', content: [] }] }, /additionalContexts/],
      [{ kind: 'accept', additionalContexts: [ctx('x'), { content: [] }] }, /additionalContexts\[1\]/],
    ]
    for (const [decision, detail] of cases) {
      const { rt, run } = setup()
      rt.onPostExecute(async () => decision as never)
      const result = await run()
      expectFailure(result, 'HOOK_FAILED', /^onPostExecute handler returned an invalid value: /)
      expect(result.isError && result.error.message).toMatch(detail)
    }
  })

  it('P10.6: replacing both value and content is HOOK_FAILED', async () => {
    const { rt, run } = setup()
    rt.onPostExecute(async () => ({ kind: 'accept', value: 'v', content: [] }) as never)
    expectFailure(
      await run(),
      'HOOK_FAILED',
      'onPostExecute accept decision cannot replace both value and content',
    )
  })

  it('P10.7: replacing the value of a failure is HOOK_FAILED', async () => {
    const { rt, run } = setup(async () => {
      throw new Error('x')
    })
    rt.onPostExecute(async () => ({ kind: 'accept', value: 'v' }))
    expectFailure(await run(), 'HOOK_FAILED', 'onPostExecute cannot replace the value of a failed result')
  })

  it('P10.8: a value replacement passes P9, recomputes content and meta, keeps concludesTurn, orders contexts', async () => {
    const { rt, run } = setup()
    rt.onPostExecute(async () => ({
      kind: 'accept',
      value: 'redacted',
      additionalContexts: [ctx('from hook')],
    }))
    expect(await run()).toEqual({
      isError: false,
      value: 'redacted',
      content: [{ type: 'text', text: 'rendered redacted' }],
      meta: { v: 'redacted' },
      additionalContexts: [
        { ...ctx('from body'), source: { kind: 'tool', name: 't', callId: 'c' } },
        { ...ctx('from hook'), source: { kind: 'tool', name: 't', callId: 'c' } },
      ],
      concludesTurn: true,
    })
  })

  it('P10.9: a content replacement keeps everything else and works on failures', async () => {
    const { rt, run } = setup()
    rt.onPostExecute(async () => ({ kind: 'accept', content: [{ type: 'text', text: '[redacted]' }] }))
    const result = await run()
    expect(result).toMatchObject({
      isError: false,
      value: 'original',
      meta: { v: 'original' },
      concludesTurn: true,
    })
    expect(result.content).toEqual([{ type: 'text', text: '[redacted]' }])
    const failing = setup(async () => {
      throw new Error('secret path /etc/x')
    })
    failing.rt.onPostExecute(async () => ({
      kind: 'accept',
      content: [{ type: 'text', text: 'Error: hidden' }],
    }))
    const failed = await failing.run()
    expect(failed.isError && failed.error.message).toBe('secret path /etc/x')
    expect(failed.content).toEqual([{ type: 'text', text: 'Error: hidden' }])
  })

  it('P10.10: a content replacement leaves the value programs read untouched', async () => {
    const { rt, run } = setup()
    rt.onPostExecute(async () => ({ kind: 'accept', content: [] }))
    const result = await run()
    expect(result.isError === false && result.value).toBe('original')
  })

  it('P10.11: a plain accept keeps the result and appends the decision contexts', async () => {
    const { rt, run } = setup()
    let seen: ToolResult | undefined
    rt.onPostExecute(async (_e, r) => {
      seen = r
      return { kind: 'accept' }
    })
    const plain = await run()
    expect(plain).toBe(seen)
    const withCtx = setup()
    withCtx.rt.onPostExecute(async () => ({ kind: 'accept', additionalContexts: [ctx('later')] }))
    const result = await withCtx.run()
    expect(result.additionalContexts?.map((c) => (c.content[0] as { text: string }).text)).toEqual([
      'from body',
      'later',
    ])
  })

  it('P10.12: a block becomes BLOCKED with the feedback text or the default message', async () => {
    const { rt, run } = setup()
    const decisions: unknown[] = [
      { kind: 'block' },
      { kind: 'block', feedback: [] },
      {
        kind: 'block',
        feedback: [
          { type: 'text', text: 'line 1' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
          { type: 'text', text: 'line 2' },
        ],
      },
    ]
    rt.onPostExecute(async () => decisions.shift() as never)
    expectFailure(await run(), 'BLOCKED', 'tool result blocked by post-execute policy')
    expectFailure(await run(), 'BLOCKED', 'tool result blocked by post-execute policy')
    const blocked = await run()
    expect(blocked.isError && blocked.error.message).toBe('line 1\n[image content]\nline 2')
  })

  it('P10.13: a block shows its feedback, drops value, meta, conclusion and the result contexts', async () => {
    const { rt, run } = setup()
    const feedback = [{ type: 'text' as const, text: 'Please ask the user first.' }]
    rt.onPostExecute(async () => ({ kind: 'block', feedback, additionalContexts: [ctx('decision ctx')] }))
    const result = await run()
    expect(result).toEqual({
      isError: true,
      error: { message: 'Please ask the user first.', info: { name: 'ToolBlockedError', code: 'BLOCKED' } },
      content: feedback,
      additionalContexts: [{ ...ctx('decision ctx'), source: { kind: 'tool', name: 't', callId: 'c' } }],
    })
  })

  it('P10.14: a throwing handler is HOOK_FAILED; a ToolError keeps its code', async () => {
    const a = setup()
    a.rt.onPostExecute(async () => {
      throw new Error('post crashed')
    })
    expectFailure(await a.run(), 'HOOK_FAILED', 'onPostExecute handler failed: post crashed')
    const b = setup()
    b.rt.onPostExecute(async () => {
      throw new ToolError('AUDIT_DOWN', 'audit log unavailable')
    })
    expectFailure(await b.run(), 'AUDIT_DOWN', 'audit log unavailable')
  })

  it('P10.15: after the chain a success gives way to cancellation keeping contexts; a failure stays', async () => {
    const controller = new AbortController()
    const { rt, run } = setup()
    rt.onPostExecute(async () => {
      controller.abort()
      return { kind: 'accept', additionalContexts: [ctx('hook')] }
    })
    const result = await run(controller.signal)
    expectFailure(result, 'ABORTED', 'tool call aborted')
    expect(result.additionalContexts).toHaveLength(2)
    const c2 = new AbortController()
    const failing = setup(async () => {
      throw new Error('real failure')
    })
    failing.rt.onPostExecute(async (_e, _r, next) => {
      c2.abort()
      return next()
    })
    expectFailure(await failing.run(c2.signal), 'TOOL_FAILED', 'real failure')
  })
})
