import { createToolRuntime, type PreDecision } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { countingTool, deferred, expectFailure, flush, live, note, rawTool } from './pipeline.fixtures.js'

const run = (rt: ReturnType<typeof createToolRuntime>, signal = live()) =>
  rt.execute({ callId: 'c', name: 't', arguments: {}, signal })

describe('P1 hook chains', () => {
  it('P1.1: next() runs the rest of the chain down to the built-in default', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const inner: unknown[] = []
    rt.onPreExecute(async (_e, next) => {
      inner.push(await next())
      return next()
    })
    rt.onPostExecute(async (_e, _r, next) => {
      inner.push(await next())
      return next()
    })
    rt.wrapExecute(async (_e, next) => {
      const result = await next()
      inner.push(result.isError)
      return result
    })
    await run(rt)
    expect(inner).toEqual([{ kind: 'allow' }, false, { kind: 'accept' }])
  })

  it('P1.2: the first registered handler is outermost; the chain is the covering subsequence', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const s = rt.scope()
    const other = rt.scope()
    const order: string[] = []
    for (const [label, scope] of [
      ['a', undefined],
      ['b', other],
      ['c', s],
      ['d', undefined],
    ] as const) {
      rt.onPreExecute(
        async (_e, next) => {
          order.push(`${label}>`)
          const d = await next()
          order.push(`<${label}`)
          return d
        },
        scope === undefined ? undefined : { scope },
      )
    }
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope: s })
    expect(order).toEqual(['a>', 'c>', 'd>', '<d', '<c', '<a'])
  })

  it('P1.3: handlers registered or disposed while a chain runs neither join nor leave it', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const order: string[] = []
    let offLast: () => void = () => {}
    rt.onPreExecute(async (_e, next) => {
      order.push('first')
      rt.onPreExecute(async (_e2, n) => note(order, 'late', n()))
      offLast()
      return next()
    })
    offLast = rt.onPreExecute(async (_e, next) => note(order, 'last', next()))
    await run(rt)
    expect(order).toEqual(['first', 'last'])
  })

  it('P1.4: next() ignores its arguments; only the outermost return is acted on', async () => {
    const rt = createToolRuntime()
    const body = countingTool('t', 1)
    rt.register(body.tool)
    rt.onPreExecute(async (_e, next) => {
      const inner = await (next as (x: unknown) => Promise<PreDecision>)({ kind: 'deny', reason: 'ignored' })
      expect(inner).toEqual({ kind: 'deny', reason: 'inner' })
      return { kind: 'allow' }
    })
    rt.onPreExecute(async () => ({ kind: 'deny', reason: 'inner' }))
    expect((await run(rt)).isError).toBe(false)
    expect(body.runs()).toBe(1)
  })

  it('P1.5: returning without next() short-circuits everything inward', async () => {
    const rt = createToolRuntime()
    const ran: string[] = []
    rt.register(rawTool('t', { execute: async () => note(ran, 'body', 1) }))
    rt.onPreExecute(async () => ({ kind: 'deny', reason: 'stop' }))
    rt.onPreExecute(async (_e, next) => note(ran, 'inner pre', next()))
    rt.wrapExecute(async () => ({ isError: false, value: 'cached' }) as never)
    rt.wrapExecute(async (_e, next) => note(ran, 'inner wrap', next()))
    expectFailure(await run(rt), 'DENIED')
    expect(ran).toEqual([])
  })

  it('P1.6: a second next() in pre- and post-execute returns the same promise without rerunning', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    let preInner = 0
    let postInner = 0
    rt.onPreExecute(async (_e, next) => {
      const a = next()
      const b = next()
      expect(a).toBe(b)
      return a
    })
    rt.onPreExecute(async (_e, next) => {
      preInner++
      return next()
    })
    rt.onPostExecute(async (_e, _r, next) => {
      const a = next()
      expect(next()).toBe(a)
      return a
    })
    rt.onPostExecute(async (_e, _r, next) => {
      postInner++
      return next()
    })
    await run(rt)
    expect([preInner, postInner]).toEqual([1, 1])
  })

  it('P1.7: a handler still awaiting is never abandoned, even after the caller aborts', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const gate = deferred<PreDecision>()
    rt.onPreExecute(() => gate.promise)
    const controller = new AbortController()
    let settled = false
    const pending = run(rt, controller.signal).then((r) => {
      settled = true
      return r
    })
    controller.abort()
    await flush()
    expect(settled).toBe(false)
    gate.resolve({ kind: 'deny', reason: 'late' })
    expectFailure(await pending, 'DENIED', 'tool "t" denied by pre-execute policy: late')
  })
})
