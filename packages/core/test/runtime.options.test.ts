import { createToolRuntime } from '@tooltx/core'
import { describe, expect, it, vi } from 'vitest'
import { callTool, rawTool } from './pipeline.fixtures.js'

const invalid = expect.objectContaining({ code: 'INVALID_DEFINITION' })

describe('createToolRuntime options', () => {
  it('M1.1: every option is validated and unknown options are refused', () => {
    const bad: Record<string, unknown>[] = [
      { mode: 'sdk' },
      { approver: 'yes' },
      { codeRuntime: {} },
      { codeRuntime: null },
      { timeout: 'no' },
      { reportError: 1 },
      { maxContentbytes: 10 },
    ]
    for (const options of bad) expect(() => createToolRuntime(options as never)).toThrow(invalid)
    expect(() => createToolRuntime('x' as never)).toThrow(invalid)
    expect(() => createToolRuntime({})).not.toThrow()
    expect(() => createToolRuntime(undefined)).not.toThrow()
  })

  it('X6.2: maxParallelSubCalls must be a positive integer (default 10)', () => {
    for (const maxParallelSubCalls of [0, -1, 2.5, Number.POSITIVE_INFINITY, '3', null]) {
      expect(() => createToolRuntime({ maxParallelSubCalls: maxParallelSubCalls as never })).toThrow(invalid)
    }
    expect(() => createToolRuntime({ maxParallelSubCalls: 1 })).not.toThrow()
  })

  it('P12.3: reportError defaults to console.error', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const rt = createToolRuntime()
      rt.register(rawTool('t'))
      const boom = new Error('observer boom')
      rt.onResult(() => {
        throw boom
      })
      await callTool(rt, 't')
      expect(spy).toHaveBeenCalledWith(boom)
    } finally {
      spy.mockRestore()
    }
  })
})
