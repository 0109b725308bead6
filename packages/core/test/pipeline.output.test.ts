import { createToolRuntime, type JsonValue } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { callTool, expectFailure, isDeepFrozen, live, rawTool } from './pipeline.fixtures.js'

function tool(value: unknown, output: Record<string, unknown> = {}, parent = false) {
  const rt = createToolRuntime()
  rt.register(
    rawTool('t', {
      execute: async () => value,
      output: {
        schema: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } } },
        render: (_a: unknown, v: { n?: number }) => [{ type: 'text', text: `n=${v.n}` }],
        ...output,
      },
    }),
  )
  if (!parent) return rt.execute({ callId: 'c', name: 't', arguments: { a: 1 }, signal: live() })
  let nested: Promise<unknown> | undefined
  rt.register(
    rawTool('outer', {
      execute: async (_a: unknown, run: { token: symbol; signal: AbortSignal }) => {
        nested = rt.execute({ callId: 'n', name: 't', arguments: {}, signal: run.signal, parent: run.token })
        await nested
        return null
      },
    }),
  )
  return callTool(rt, 'outer').then(() => nested as never)
}

describe('P9 output boundaries', () => {
  it('P9.1: a non-lossless value or a throwing getter fails boundary 1', async () => {
    expectFailure(
      await tool({ n: undefined }),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: value is not lossless JSON',
    )
    expectFailure(
      await tool(new Map()),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: value is not lossless JSON',
    )
    const hostile = {
      get n() {
        throw new Error('getter')
      },
    }
    expectFailure(
      await tool(hostile),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: value snapshot failed: getter',
    )
  })

  it('P9.2: the snapshot is validated against output.schema', async () => {
    expectFailure(
      await tool({ n: 1.5, extra: true }),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: "value.n" must be an integer; "value.extra" is not a declared property (additionalProperties: false)',
    )
  })

  it('P9.3: render receives frozen args and value; its failures are INVALID_TOOL_OUTPUT', async () => {
    const seen: unknown[] = []
    const ok = await tool(
      { n: 2 },
      {
        render: (args: JsonValue, value: JsonValue) => {
          seen.push(Object.isFrozen(args), Object.isFrozen(value))
          return [{ type: 'text', text: 'fine' }]
        },
      },
    )
    expect(ok.content).toEqual([{ type: 'text', text: 'fine' }])
    expect(seen).toEqual([true, true])
    const cases: [() => unknown, string][] = [
      [
        () => {
          throw new Error('render broke')
        },
        'output.render failed: render broke',
      ],
      [() => [{ type: 'text', text: undefined }], 'output.render returned non-lossless JSON'],
      [() => 'text', 'output.render must return an array of content blocks'],
      [() => [{ text: 'no type' }], 'output.render must return an array of content blocks'],
      [
        () => [{ type: 'image', mediaType: 'image/png', data: 'not base64!' }],
        'output.render must return an array of content blocks',
      ],
    ]
    for (const [render, violation] of cases) {
      expectFailure(
        await tool({ n: 1 }, { render }),
        'INVALID_TOOL_OUTPUT',
        `tool "t" returned invalid output: ${violation}`,
      )
    }
  })

  it('P9.4: presentationMeta runs for model-direct calls only; undefined means no meta; failures are INVALID_TOOL_OUTPUT', async () => {
    const withMeta = await tool(
      { n: 3 },
      { presentationMeta: (_a: unknown, v: { n: number }) => ({ lines: v.n }) },
    )
    expect(withMeta.meta).toEqual({ lines: 3 })
    expect('meta' in (await tool({ n: 3 }, { presentationMeta: () => undefined }))).toBe(false)
    let metaCalls = 0
    const nested = (await tool({ n: 3 }, { presentationMeta: () => ++metaCalls }, true)) as {
      isError: boolean
    }
    expect(nested.isError).toBe(false)
    expect('meta' in nested).toBe(false)
    expect(metaCalls).toBe(0)
    expectFailure(
      await tool(
        { n: 1 },
        {
          presentationMeta: () => {
            throw new Error('meta broke')
          },
        },
      ),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: output.presentationMeta failed: meta broke',
    )
    expectFailure(
      await tool({ n: 1 }, { presentationMeta: () => ({ at: new Date() }) }),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: output.presentationMeta returned non-lossless JSON',
    )
  })

  it('P9.5: a boundary failure has no value key', async () => {
    const result = await tool({ n: 'x' })
    expect('value' in result).toBe(false)
  })

  it('P9.6: the success is materialized and frozen before wrappers and post-execute see it', async () => {
    const rt = createToolRuntime()
    const raw = { n: 1, nested: { list: [1] } }
    rt.register(rawTool('t', { execute: async () => raw }))
    const frozen: boolean[] = []
    rt.wrapExecute(async (_e, next) => {
      const r = await next()
      frozen.push(isDeepFrozen(r))
      return r
    })
    rt.onPostExecute(async (_e, r, next) => {
      frozen.push(isDeepFrozen(r))
      expect(r.isError === false && r.value).not.toBe(raw)
      return next()
    })
    const result = await callTool(rt, 't')
    raw.nested.list.push(2)
    expect(result.isError === false && result.value).toEqual({ n: 1, nested: { list: [1] } })
    expect(frozen).toEqual([true, true])
  })

  it('P9.7: the boundaries apply to a post-execute value replacement and a wrapper-authored success', async () => {
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', { output: { schema: { type: 'string' }, render: () => [] }, execute: async () => 'ok' }),
    )
    const off = rt.onPostExecute(async () => ({ kind: 'accept', value: 5 }))
    expectFailure(
      await callTool(rt, 't'),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: "value" must be a string',
    )
    off()
    rt.wrapExecute(async () => ({ isError: false, value: [undefined] }) as never)
    expectFailure(
      await callTool(rt, 't'),
      'INVALID_TOOL_OUTPUT',
      'tool "t" returned invalid output: value is not lossless JSON',
    )
  })
})
