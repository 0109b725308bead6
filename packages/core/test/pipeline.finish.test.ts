import { createToolRuntime, type Execution, ToolError, type ToolResult } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { capContent, utf8Length } from '../src/pipeline/content-policy.js'
import { failure } from '../src/pipeline/failures.js'
import { abortedSignal, callTool, expectFailure, isDeepFrozen, live, rawTool } from './pipeline.fixtures.js'

function withFinalizer(finalizeContent: unknown, extra: Record<string, unknown> = {}, options = {}) {
  const rt = createToolRuntime(options)
  rt.register(rawTool('t', { finalizeContent, ...extra }))
  return { rt, run: (signal = live()) => rt.execute({ callId: 'c', name: 't', arguments: {}, signal }) }
}

const textResult = (...texts: string[]): ToolResult =>
  Object.freeze({
    isError: false,
    value: 1,
    content: Object.freeze(texts.map((text) => Object.freeze({ type: 'text', text }))),
  }) as never

describe('P11 materialize, finalizeContent, content-size policy', () => {
  it('P11.1: the published result is deep-frozen and keeps the validated value by reference', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t', { execute: async () => ({ deep: { list: [1, 2] } }) }))
    let posted: unknown
    rt.onPostExecute(async (_e, r, next) => {
      posted = r.isError === false && r.value
      return next()
    })
    const result = await callTool(rt, 't')
    expect(isDeepFrozen(result)).toBe(true)
    expect(result.isError === false && result.value).toBe(posted)
  })

  it('P11.2: a field that is not lossless becomes RESULT_NOT_SERIALIZABLE without value, meta or contexts', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    rt.wrapExecute(
      async () =>
        ({
          isError: true,
          error: { message: 'cached', info: { name: 'N', code: 'C' } },
          meta: { when: new Date() },
          additionalContexts: [{ role: 'user', content: [] }],
        }) as never,
    )
    const result = await callTool(rt, 't')
    expectFailure(
      result,
      'RESULT_NOT_SERIALIZABLE',
      'tool result is not serializable: meta is not lossless JSON',
    )
    expect('meta' in result || 'additionalContexts' in result).toBe(false)
  })

  it('P11.3: the entry finalizer runs exactly once on every route, even after the tool was replaced', async () => {
    const calls: string[] = []
    const rt = createToolRuntime()
    let off = rt.register(rawTool('t', { finalizeContent: () => void calls.push('entry finalizer') }))
    rt.onPreExecute(async (_e, next) => {
      off()
      off = rt.register(rawTool('t', { finalizeContent: () => void calls.push('new finalizer') }))
      return next()
    })
    await callTool(rt, 't')
    expect(calls).toEqual(['entry finalizer'])
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() })
    expect(calls).toEqual(['entry finalizer', 'new finalizer'])
  })

  it('P11.4: the finalizer sees the frozen execution and result; only content is replaced', async () => {
    let seen: [Execution, ToolResult] | undefined
    const { rt, run } = withFinalizer(
      (exec: Execution, result: ToolResult) => {
        seen = [exec, result]
        return [{ type: 'text', text: 'final words' }]
      },
      {
        execute: async (_a: unknown, r: { deferContext: (m: string) => void; concludeTurn: () => void }) => {
          r.deferContext('ctx')
          r.concludeTurn()
          return { v: 1 }
        },
      },
    )
    rt.onResult(() => undefined)
    const result = await run()
    expect(Object.isFrozen(seen![0]) && isDeepFrozen(seen![1])).toBe(true)
    expect(result).toMatchObject({ isError: false, value: { v: 1 }, concludesTurn: true })
    expect(result.additionalContexts).toHaveLength(1)
    expect(result.content).toEqual([{ type: 'text', text: 'final words' }])
    expect(seen![1].content).toEqual([{ type: 'text', text: '{"v":1}' }])
    const keep = withFinalizer(() => undefined)
    expect((await keep.run()).content).toEqual([{ type: 'text', text: '{"ok":true}' }])
  })

  it('P11.5: a finalizer return that is not content blocks or undefined is RESULT_NOT_SERIALIZABLE, called once', async () => {
    for (const returned of [
      null,
      'text',
      [{ type: 'text', text: 1 }],
      Promise.resolve([]),
      Promise.reject(new Error('r')),
    ]) {
      let calls = 0
      const { run } = withFinalizer(() => {
        calls++
        return returned
      })
      expectFailure(
        await run(),
        'RESULT_NOT_SERIALIZABLE',
        'tool result is not serializable: finalizeContent must return content blocks or undefined',
      )
      expect(calls).toBe(1)
    }
  })

  it('P11.6: a throwing finalizer is TOOL_FAILED keeping contexts; a ToolError keeps its code', async () => {
    let calls = 0
    const { run } = withFinalizer(
      () => {
        calls++
        throw new Error('finalizer broke')
      },
      {
        execute: async (_a: unknown, r: { deferContext: (m: string) => void }) => {
          r.deferContext('kept')
          return 1
        },
      },
    )
    const result = await run()
    expectFailure(result, 'TOOL_FAILED', 'finalizeContent failed: finalizer broke')
    expect(result.additionalContexts).toHaveLength(1)
    expect(calls).toBe(1)
    const coded = withFinalizer(() => {
      throw new ToolError('FINAL_CODE', 'custom')
    })
    expectFailure(await coded.run(), 'FINAL_CODE', 'custom')
  })

  it('P11.7: no finalizer runs when no definition was visible at entry', async () => {
    const rt = createToolRuntime()
    let calls = 0
    rt.onPreExecute(async (_e, next) => {
      rt.register(rawTool('late', { finalizeContent: () => void calls++ }))
      return next()
    })
    const result = await callTool(rt, 'late')
    expect(result.isError).toBe(false)
    expect(calls).toBe(0)
  })

  it('P11.8: maxContentBytes defaults to 262144; Infinity disables it; other values throw', async () => {
    const big = 'x'.repeat(300_000)
    const { run } = withFinalizer(undefined, {
      execute: async () => big,
      output: { schema: {}, render: (_: unknown, v: string) => [{ type: 'text', text: v }] },
    })
    const capped = await run()
    expect((capped.content[0] as { text: string }).text).toMatch(
      /\n\[content truncated: showing 262144 of 300000 bytes\]$/,
    )
    const off = withFinalizer(
      undefined,
      {
        execute: async () => big,
        output: { schema: {}, render: (_: unknown, v: string) => [{ type: 'text', text: v }] },
      },
      { maxContentBytes: Number.POSITIVE_INFINITY },
    )
    expect((await off.run()).content).toEqual([{ type: 'text', text: big }])
    for (const maxContentBytes of [0, -5, 1.5, Number.NaN, '100', null]) {
      expect(() => createToolRuntime({ maxContentBytes: maxContentBytes as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_DEFINITION' }),
      )
    }
  })

  it('P11.9: whole blocks fit in order, the first that does not is cut on a code point, later text goes, others stay', () => {
    const image = Object.freeze({ type: 'image', mediaType: 'image/png', data: 'AAAA' })
    const result = Object.freeze({
      isError: false,
      value: 1,
      content: Object.freeze([
        Object.freeze({ type: 'text', text: 'abc' }),
        image,
        Object.freeze({ type: 'text', text: 'é😀z' }),
        Object.freeze({ type: 'text', text: 'gone' }),
      ]),
    }) as unknown as ToolResult
    const capped = capContent(result, 8)
    expect(capped.content).toEqual([
      { type: 'text', text: 'abc' },
      image,
      { type: 'text', text: 'é\n[content truncated: showing 5 of 14 bytes]' },
    ])
  })

  it('P11.9: the kept text never exceeds the cap and never splits a code point (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        (texts, cap) => {
          const capped = capContent(textResult(...texts), cap)
          const total = texts.reduce((n, t) => n + utf8Length(t), 0)
          const shown = capped.content.map((b) => (b as { text: string }).text)
          if (total <= cap) {
            expect(shown).toEqual(texts)
            return
          }
          const last = shown.length - 1
          shown[last] = shown[last]!.replace(
            `\n[content truncated: showing ${utf8Length(shown.slice(0, last).join('')) + utf8Length(shown[last]!.replace(/\n\[content truncated: .*\]$/, ''))} of ${total} bytes]`,
            '',
          )
          expect(shown.slice(0, last)).toEqual(texts.slice(0, last))
          const prefix = shown[last]!
          const original = texts[last]!
          expect(original.startsWith(prefix)).toBe(true)
          expect(shown.reduce((n, t) => n + utf8Length(t), 0)).toBeLessThanOrEqual(cap)
          // Never a high surrogate cut off from its low surrogate.
          const split =
            /[\uD800-\uDBFF]$/.test(prefix) && /^[\uDC00-\uDFFF]/.test(original.slice(prefix.length))
          expect(split).toBe(false)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('P11.10: the marker counts kept and total bytes; value, error, meta and isError are untouched', () => {
    const f = failure({ name: 'N', code: 'C' }, 'x'.repeat(20), undefined, undefined, { m: 1 })
    const capped = capContent(f, 10)
    expect(capped.content).toEqual([
      { type: 'text', text: 'Error: xxx\n[content truncated: showing 10 of 27 bytes]' },
    ])
    expect(capped.isError && capped.error).toBe(f.isError && f.error)
    expect(capped.meta).toBe(f.meta)
    const s = textResult('0123456789abc')
    const cs = capContent(s, 4)
    expect(cs.isError === false && cs.value).toBe(1)
    expect(Object.isFrozen(cs) && Object.isFrozen(cs.content)).toBe(true)
  })

  it('P11.11: a result at or under the cap is the same object', () => {
    const r = textResult('12345')
    expect(capContent(r, 5)).toBe(r)
    expect(capContent(r, 1000)).toBe(r)
  })
})
