import { createToolRuntime, type RunContext } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { after, callTool, rawTool, throwingTool } from './pipeline.fixtures.js'

describe('O1 execution-local result', () => {
  it('O1.1: success and failure shapes; optional keys are absent, never undefined', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('ok'))
    rt.register(throwingTool('bad', 'x'))
    const ok = await callTool(rt, 'ok')
    const bad = await callTool(rt, 'bad')
    expect(Object.keys(ok)).toEqual(['isError', 'value', 'content'])
    expect(Object.keys(bad)).toEqual(['isError', 'error', 'content'])
    expect(Object.keys(bad.isError ? bad.error : {})).toEqual(['message', 'info'])
    for (const r of [ok, bad]) for (const v of Object.values(r)) expect(v).not.toBeUndefined()
  })

  it('O1.2: content blocks are typed plain objects; other block types pass through untouched', async () => {
    const rt = createToolRuntime()
    const blocks = [
      { type: 'text', text: 'hi' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw==' },
      { type: 'resource', uri: 'file:///x', extra: { n: [1] } },
    ]
    rt.register(rawTool('t', { output: { schema: {}, render: () => blocks } }))
    const result = await callTool(rt, 't')
    expect(result.content).toEqual(blocks)
  })

  it('O1.3: a context is { role: user, content, source } with its source kept', async () => {
    const rt = createToolRuntime()
    const source = { kind: 'mcp', server: 'files', nested: { id: 1 } }
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, r: RunContext) =>
          after(() => r.deferContext({ content: [{ type: 'text', text: 'x' }], source }), 1),
      }),
    )
    const result = await callTool(rt, 't')
    expect(result.additionalContexts).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'x' }], source },
    ])
  })

  it('O1.4: additionalContexts is absent rather than empty', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    rt.onPostExecute(async () => ({ kind: 'accept', additionalContexts: [] }))
    const result = await callTool(rt, 't')
    expect('additionalContexts' in result).toBe(false)
  })

  it('O1.5: concludesTurn survives content and value replacement, is lost on block and cancellation', async () => {
    const outcomes: boolean[] = []
    for (const decision of [
      { kind: 'accept', content: [] },
      { kind: 'accept', value: 2 },
      { kind: 'block' },
    ] as const) {
      const rt = createToolRuntime()
      rt.register(
        rawTool('t', { execute: async (_a: unknown, r: RunContext) => after(() => r.concludeTurn(), 1) }),
      )
      rt.onPostExecute(async () => decision as never)
      const result = await callTool(rt, 't')
      outcomes.push('concludesTurn' in result)
    }
    expect(outcomes).toEqual([true, true, false])
  })

  it('O1.6: meta only on model-direct successes with presentationMeta, or on wrapper-authored failures', async () => {
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', { output: { schema: {}, render: () => [], presentationMeta: () => ({ card: 1 }) } }),
    )
    rt.register(
      rawTool('f', {
        output: { schema: {}, render: () => [], presentationMeta: () => ({ card: 1 }) },
        execute: async () => {
          throw new Error('x')
        },
      }),
    )
    expect((await callTool(rt, 't')).meta).toEqual({
      card: 1,
    })
    expect('meta' in (await callTool(rt, 'f'))).toBe(false)
    rt.wrapExecute(
      async () =>
        ({
          isError: true,
          error: { message: 'm', info: { name: 'N', code: 'C' } },
          meta: { from: 'wrapper' },
        }) as never,
    )
    expect((await callTool(rt, 'f')).meta).toEqual({
      from: 'wrapper',
    })
  })
})
