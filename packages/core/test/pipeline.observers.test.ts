import { createToolRuntime, type Execution, type RunContext, type ToolResult } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { abortedSignal, callTool, flush, live, rawTool, throwingTool } from './pipeline.fixtures.js'

describe('P12 result observers', () => {
  it('P12.1: observers run synchronously in order with the execution and the very resolved result', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const signal = live()
    const seen: [string, Execution, ToolResult][] = []
    rt.onResult((exec, result) => void seen.push(['first', exec, result]))
    rt.onResult((exec, result) => void seen.push(['second', exec, result]))
    const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
    expect(seen.map(([label]) => label)).toEqual(['first', 'second'])
    expect(seen[0]![2]).toBe(result)
    expect(seen[1]![2]).toBe(result)
    expect(seen[0]![1].signal).toBe(signal)
  })

  it('P12.2: observers run once per call on every route, nested calls included, before execute resolves', async () => {
    const rt = createToolRuntime()
    const seen: string[] = []
    rt.register(
      rawTool('outer', {
        execute: async (_a: unknown, run: RunContext) => {
          await rt.execute({
            callId: 'inner',
            name: 'missing',
            arguments: {},
            signal: run.signal,
            parent: run.token,
          })
          return 1
        },
      }),
    )
    rt.onResult((exec) => void seen.push(`${exec.callId}:${exec.parent === undefined ? 'top' : 'nested'}`))
    const pending = rt
      .execute({ callId: 'outer', name: 'outer', arguments: {}, signal: live() })
      .then(() => seen.push('resolved'))
    await pending
    await rt.execute({ callId: 'bad-args', name: 'outer', arguments: { x: undefined }, signal: live() })
    await rt.execute({ callId: 'aborted', name: 'outer', arguments: {}, signal: abortedSignal() })
    expect(seen).toEqual(['inner:nested', 'outer:top', 'resolved', 'bad-args:top', 'aborted:top'])
  })

  it('P12.3: a throwing or rejecting observer is contained and reported', async () => {
    const reported: unknown[] = []
    const rt = createToolRuntime({ reportError: (e) => reported.push(e) })
    rt.register(rawTool('t'))
    rt.onResult(() => {
      throw new Error('sync observer')
    })
    rt.onResult(async () => {
      throw new Error('async observer')
    })
    let after = 0
    rt.onResult(() => void after++)
    const result = await callTool(rt, 't')
    await flush()
    expect(result.isError).toBe(false)
    expect(after).toBe(1)
    expect(reported.map((e) => (e as Error).message)).toEqual(['sync observer', 'async observer'])
    const quiet = createToolRuntime({
      reportError: () => {
        throw new Error('reporter broke too')
      },
    })
    quiet.register(rawTool('t'))
    quiet.onResult(() => {
      throw new Error('x')
    })
    expect((await callTool(quiet, 't')).isError).toBe(false)
  })
})

describe('P13 the two routes', () => {
  it('P13.1: entry failures, collapse, pre-abort and hook failures are final-results that skip post-execute', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const codeScope = rt.scope()
    codeScope.presentAs('code')
    let post = 0
    rt.onPostExecute(async (_e, _r, next) => {
      post++
      return next()
    })
    const finals: Promise<ToolResult>[] = [
      rt.execute({ callId: 'c', name: 't', arguments: { x: undefined }, signal: live() }),
      rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope: codeScope }),
      rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() }),
    ]
    for (const result of await Promise.all(finals)) expect(result.isError).toBe(true)
    for (const register of [
      () => rt.onPreExecute(async () => 'bad' as never),
      () => rt.guard(() => 5 as never),
      () => rt.wrapExecute(async () => 'bad' as never),
    ]) {
      const off = register()
      const result = await callTool(rt, 't')
      expect(result.isError && result.error.info.code).toBe('HOOK_FAILED')
      off()
    }
    expect(post).toBe(0)
  })

  it('P13.2: tool outcomes, denials, unknown tools and later aborts are post-results', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('ok'))
    rt.register(throwingTool('throws', 'x'))
    rt.register(rawTool('invalid', { execute: async () => undefined }))
    rt.register(rawTool('denied'))
    rt.guard((exec) => (exec.name === 'denied' ? 'no' : undefined))
    const seen: string[] = []
    rt.onPostExecute(async (exec, r, next) => {
      seen.push(`${exec.name}:${r.isError ? r.error.info.code : 'ok'}`)
      return next()
    })
    for (const name of ['ok', 'throws', 'invalid', 'denied', 'missing']) {
      await rt.execute({ callId: 'c', name, arguments: {}, signal: live() })
    }
    const controller = new AbortController()
    rt.onPreExecute(async (exec, next) => {
      if (exec.callId === 'late-abort') controller.abort()
      return next()
    })
    await rt.execute({ callId: 'late-abort', name: 'ok', arguments: {}, signal: controller.signal })
    expect(seen).toEqual([
      'ok:ok',
      'throws:TOOL_FAILED',
      'invalid:INVALID_TOOL_OUTPUT',
      'denied:DENIED',
      'missing:UNKNOWN_TOOL',
      'ok:ABORTED_BEFORE_DISPATCH',
    ])
  })

  it('P13.3: both routes run cancellation, materialization, finalizer, content cap, observers in order', async () => {
    const order: string[] = []
    const rt = createToolRuntime({ maxContentBytes: 10 })
    rt.register(
      rawTool('t', {
        finalizeContent: (_e: Execution, r: ToolResult) => {
          order.push(`finalizer saw ${r.isError ? r.error.info.code : 'ok'}`)
          return [{ type: 'text', text: 'a finalized text longer than ten bytes' }]
        },
      }),
    )
    rt.onResult(
      (_e, r) => void order.push(`observer saw ${(r.content[0] as { text: string }).text.length} chars`),
    )
    const controller = new AbortController()
    rt.onPostExecute(async (_e, _r, next) => {
      controller.abort()
      return next()
    })
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: controller.signal })
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() })
    expect(order).toEqual([
      'finalizer saw ABORTED',
      'observer saw 54 chars',
      'finalizer saw ABORTED_BEFORE_DISPATCH',
      'observer saw 54 chars',
    ])
  })
})
