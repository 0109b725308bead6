import { createToolRuntime, defineTool, schemaToTypeScript } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

describe('S6.8 a documented default in the TypeScript rendering', () => {
  it('S6.8: a property shows its default after its constraints in its JSDoc line', () => {
    expect(
      schemaToTypeScript({
        type: 'object',
        properties: {
          limit: { type: 'integer', description: 'How many.', minimum: 1, default: 20 },
          mode: { enum: ['fast', 'full'], type: 'string', default: 'fast' },
          tags: { type: 'array', items: { type: 'string' }, default: [] },
        },
      }),
    ).toBe(
      [
        '{',
        '  /** How many. (minimum: 1, default: 20) */',
        '  limit?: number',
        '  /** (default: "fast") */',
        '  mode?: "fast" | "full"',
        '  /** (default: []) */',
        '  tags?: string[]',
        '} & Record<string, JsonValue>',
      ].join('\n'),
    )
  })

  it('S6.8: the Code Mode SDK text of a DSL tool and of a zod tool shows the default; the call still gets no filled-in value', async () => {
    const seen: unknown[] = []
    const dsl = defineTool({
      name: 'search',
      description: 'Search.',
      parameters: {
        query: { type: 'string', required: true },
        limit: { type: 'integer', default: 10, description: 'Most results.' },
      },
      execute: (args) => {
        seen.push(args)
        return []
      },
    })
    const zodTool = defineTool({
      name: 'page',
      description: 'One page.',
      parameters: z.object({ size: z.number().max(100).default(25).optional() }),
      execute: () => 'ok',
    })
    const runtime = createToolRuntime({ mode: 'code' })
    runtime.register(dsl)
    runtime.register(zodTool)
    const sdk = runtime.view().surface().instructions
    expect(sdk).toContain('    /** Most results. (default: 10) */\n    limit?: number')
    expect(sdk).toMatch(/\/\*\* \(maximum: 100, default: 25\) \*\/\n\s+size\?: number/)
    // Called natively (a code-only view offers just run_code), the body sees no default filled in.
    const native = createToolRuntime()
    native.register(dsl)
    const signal = new AbortController().signal
    const result = await native.execute({ callId: 'c1', name: 'search', arguments: { query: 'q' }, signal })
    expect(result.isError).toBe(false)
    expect(seen).toEqual([{ query: 'q' }])
  })
})
