import { createToolRuntime } from '@tooltx/core'
import { importedName, mcpServer, mcpTools } from '@tooltx/mcp'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { approvalOutcome } from '../src/elicit-approver.js'
import { progressParams } from '../src/progress-route.js'
import { titleOf } from '../src/tool-listing.js'

describe('Y1 server pieces', () => {
  it('Y1.1: bad options throw INVALID_DEFINITION naming mcpServer', () => {
    const runtime = createToolRuntime()
    expect(() => mcpServer(runtime, { name: '', version: '1' })).toThrow(
      'mcpServer: name must be a non-empty string',
    )
    expect(() => mcpServer(runtime, { name: 'n', version: '1', pageSize: 0 })).toThrow(
      'mcpServer: pageSize must be a positive integer',
    )
    expect(() => mcpServer(createToolRuntime(), { name: 'n', version: '1', scope: runtime.scope() })).toThrow(
      'view() scope must be a scope of this runtime',
    )
  })

  it('Y1.4: titles are the name in words', () => {
    expect(titleOf('read_file')).toBe('Read file')
    expect(titleOf('get-env')).toBe('Get env')
    expect(titleOf('x')).toBe('X')
  })

  it('Y1.7: what each elicitation answer means', () => {
    const request = {
      callId: 'c',
      rootCallId: 'c',
      name: 'deploy',
      arguments: {},
      argumentsDigest: 'd1',
      signal: new AbortController().signal,
    }
    const accept = (content: Record<string, unknown>) =>
      approvalOutcome(request, { action: 'accept', content } as never)
    expect(accept({ approve: true, argumentsDigest: 'd1' })).toBe('allowed-once')
    expect(accept({ approve: false, argumentsDigest: 'd1' })).toBe('rejected')
    expect(accept({ approve: true, argumentsDigest: 'd2' })).toBe('unavailable')
    expect(accept({ approve: true })).toBe('unavailable')
    expect(approvalOutcome(request, { action: 'decline' })).toBe('rejected')
    expect(approvalOutcome(request, { action: 'cancel' })).toBe('cancelled')
    expect(approvalOutcome(request, { action: 'other' } as never)).toBe('unavailable')
  })

  it('Y1.8: progress keeps increasing numbers and counts steps for anything else', () => {
    expect(progressParams({ progress: 5, total: 10, message: 'half' }, 0)).toEqual({
      progress: 5,
      total: 10,
      message: 'half',
    })
    expect(progressParams({ progress: 5 }, 5)).toEqual({ progress: 6, message: '{"progress":5}' })
    expect(progressParams('reading', 2)).toEqual({ progress: 3, message: 'reading' })
    expect(progressParams([1, 2], 0)).toEqual({ progress: 1, message: '[1,2]' })
    expect(progressParams(null, 0)).toEqual({ progress: 1, message: 'null' })
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (updates) => {
        let previous = 0
        for (const update of updates) {
          const next = progressParams(update as never, previous).progress
          if (!(next > previous)) return false
          previous = next
        }
        return true
      }),
    )
  })
})

describe('Y2 client pieces', () => {
  it('Y2.1: bad options throw INVALID_DEFINITION naming mcpTools, before anything is spawned', async () => {
    const connection = { command: '/nonexistent/never-run' }
    await expect(mcpTools(connection, { name: '' })).rejects.toThrow(
      'mcpTools: name must be a non-empty string',
    )
    await expect(mcpTools(connection, { name: 's', timeoutMs: 0 })).rejects.toThrow(
      'mcpTools: timeoutMs must be a positive number of milliseconds',
    )
    await expect(mcpTools(connection, { name: 's', toolTimeouts: { t: -1 } })).rejects.toThrow(
      'mcpTools: toolTimeouts["t"] must be a positive number of milliseconds',
    )
  })

  it('Y2.2: imported names always satisfy the tool-name rule', () => {
    expect(importedName('my server', 'read.file')).toBe('mcp__my_server__read_file')
    expect(importedName('s', 'x'.repeat(100))).toHaveLength(64)
    fc.assert(
      fc.property(fc.string(), fc.string(), (server, tool) =>
        /^[A-Za-z0-9_-]{1,64}$/.test(importedName(server, tool)),
      ),
    )
  })
})
