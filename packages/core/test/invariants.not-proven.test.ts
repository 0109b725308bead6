/**
 * SPEC V2 lists what tooltx deliberately does not prove. These tests pin that boundary down:
 * each shows the unchecked case going through unchanged, so a future check that silently
 * starts rejecting it (and breaks users who rely on the documented contract) is noticed.
 */
import { type CodeRuntime, callCard, createToolRuntime, defineTool } from '@tooltx/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { live, rawTool } from './pipeline.fixtures.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('V2: what is deliberately not proven', () => {
  it('V2.1: a raw tool receives arguments its own schema rejects; only defineTool validates', async () => {
    const seen: unknown[] = []
    const runtime = createToolRuntime()
    runtime.register(
      rawTool('raw', {
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        execute: async (args: unknown) => {
          seen.push(args)
          return { ok: true }
        },
      }),
    )
    const result = await runtime.execute({
      callId: 'c1',
      name: 'raw',
      arguments: { path: 42 },
      signal: live(),
    })
    expect(result.isError).toBe(false)
    expect(seen).toEqual([{ path: 42 }])
  })

  it('V2.2: a lying isConcurrencySafe is believed, and a disabled timeout wrapper is not replaced', async () => {
    vi.useFakeTimers()
    const runtime = createToolRuntime({ timeout: false })
    runtime.register(
      rawTool('slow_writer', {
        isConcurrencySafe: () => true,
        timeoutMs: 10,
        execute: () => new Promise((resolve) => setTimeout(() => resolve({ wrote: true }), 1_000)),
      }),
    )
    expect(runtime.view().executionMode({ name: 'slow_writer', arguments: {} })).toBe('parallel')
    const pending = runtime.execute({ callId: 'c1', name: 'slow_writer', arguments: {}, signal: live() })
    await vi.advanceTimersByTimeAsync(1_000)
    const result = await pending
    expect(result.isError).toBe(false)
  })

  it('V2.3: impure presenters are not detected; their cards simply differ between builds', () => {
    let calls = 0
    const tool = defineTool({
      name: 'impure',
      description: 'A tool whose call card depends on hidden state.',
      parameters: {},
      output: { schema: { type: 'null' }, render: () => [] },
      execute: async () => null,
      presentCall: () => ({ card: 'generic', title: `call ${++calls}` }),
    })
    expect(callCard(tool, 'impure', '{}')).toEqual({ card: 'generic', title: 'call 1' })
    expect(callCard(tool, 'impure', '{}')).toEqual({ card: 'generic', title: 'call 2' })
  })

  it('V2.4: a content replacement that misdescribes the value is accepted as policy', async () => {
    const runtime = createToolRuntime()
    runtime.register(
      rawTool('count', {
        execute: async () => ({ files: 3 }),
      }),
    )
    runtime.onPostExecute(async () => ({
      kind: 'accept',
      content: [{ type: 'text', text: 'found 0 files' }],
    }))
    const result = await runtime.execute({ callId: 'c1', name: 'count', arguments: {}, signal: live() })
    expect(result.isError).toBe(false)
    if (result.isError) return
    expect(result.value).toEqual({ files: 3 })
    expect(result.content).toEqual([{ type: 'text', text: 'found 0 files' }])
  })

  it('V2.5: the runtime runs run_code on any code runtime, whatever isolation it claims', async () => {
    const unisolated: CodeRuntime = {
      language: 'typescript',
      isolation: 'none (runs on the host)',
      run: async ({ program }) => ({
        logs: [`host saw ${program.length} characters`],
        value: 'ran on the host',
      }),
    }
    const runtime = createToolRuntime({ mode: 'code', codeRuntime: unisolated })
    const result = await runtime.execute({
      callId: 'c1',
      name: 'run_code',
      arguments: { code: 'return 1', description: 'anything' },
      signal: live(),
    })
    expect(result.isError).toBe(false)
    if (result.isError) return
    expect(result.value).toEqual({ logs: ['host saw 8 characters'], result: 'ran on the host' })
  })
})
