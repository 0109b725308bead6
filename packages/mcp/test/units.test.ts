import { createToolRuntime } from '@tooltx/core'
import { fromMcpContent, importedName, mcpServer, mcpTools, toMcpContent } from '@tooltx/mcp'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { approvalOutcome } from '../src/server/elicit-approver.js'
import { progressParams } from '../src/server/progress-route.js'
import { titleOf } from '../src/server/tool-listing.js'

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

  it('Y1.8: progress keeps increasing numbers (the first may be 0) and counts steps for anything else', () => {
    expect(progressParams({ progress: 5, total: 10, message: 'half' }, 0)).toEqual({
      progress: 5,
      total: 10,
      message: 'half',
    })
    expect(progressParams({ progress: 5 }, 5)).toEqual({ progress: 6, message: '{"progress":5}' })
    expect(progressParams('reading', 2)).toEqual({ progress: 3, message: 'reading' })
    expect(progressParams([1, 2], 0)).toEqual({ progress: 1, message: '[1,2]' })
    expect(progressParams(null, 0)).toEqual({ progress: 1, message: 'null' })
    // The first update may be 0 (MCP), and keeps its total; later ones must increase.
    expect(progressParams({ progress: 0, total: 100 }, undefined)).toEqual({ progress: 0, total: 100 })
    expect(progressParams({ progress: -1 }, undefined)).toEqual({ progress: 1, message: '{"progress":-1}' })
    expect(progressParams('first', undefined)).toEqual({ progress: 1, message: 'first' })
    expect(progressParams({ progress: 0, total: 100 }, 0)).toEqual({
      progress: 1,
      message: '{"progress":0,"total":100}',
    })
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), (updates) => {
        let previous: number | undefined
        for (const update of updates) {
          const next = progressParams(update as never, previous).progress
          if (!(previous === undefined ? next >= 0 : next > previous)) return false
          previous = next
        }
        return true
      }),
    )
  })
})

/** Each tooltx block beside the MCP block it maps to (Y1.6, Y2.6). */
const PAIRS: [tooltx: Record<string, unknown>, mcp: Record<string, unknown>][] = [
  [
    { type: 'text', text: 'hi' },
    { type: 'text', text: 'hi' },
  ],
  [
    { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  ],
  [
    { type: 'audio', data: 'UklGRg==', mediaType: 'audio/wav' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
  ],
  [
    { type: 'resource', uri: 'file:///a.txt', mediaType: 'text/plain', text: 'inside a' },
    { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside a' } },
  ],
  [
    { type: 'resource', uri: 'file:///b.bin', data: 'AAEC' },
    { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAEC' } },
  ],
  [
    {
      type: 'resource_link',
      uri: 'file:///c.md',
      name: 'c.md',
      title: 'C',
      description: 'the c file',
      mediaType: 'text/markdown',
      size: 12,
    },
    {
      type: 'resource_link',
      uri: 'file:///c.md',
      name: 'c.md',
      title: 'C',
      description: 'the c file',
      mimeType: 'text/markdown',
      size: 12,
    },
  ],
  [
    { type: 'resource_link', uri: 'file:///d', name: 'd' },
    { type: 'resource_link', uri: 'file:///d', name: 'd' },
  ],
]

describe('Y1.6, Y2.6 content blocks', () => {
  it('Y1.6, Y2.6: text, image, audio, resource and resource_link map one to one, both ways', () => {
    for (const [tooltx, mcp] of PAIRS) {
      expect(toMcpContent(tooltx as never)).toEqual(mcp)
      expect(fromMcpContent(mcp)).toEqual(tooltx)
    }
  })

  it('Y1.6, Y2.6: a malformed block or another type crosses as its JSON text, never trusted', () => {
    const malformed: Record<string, unknown>[] = [
      { type: 'audio', data: 'AAAA' },
      { type: 'audio', data: 1, mediaType: 'audio/wav' },
      { type: 'resource', uri: 'file:///a' },
      { type: 'resource', uri: 'file:///a', text: 'x', data: 'AA' },
      { type: 'resource', text: 'no uri' },
      { type: 'resource_link', uri: 'file:///a' },
      { type: 'resource_link', uri: 'file:///a', name: 'a', size: '12' },
      { type: 'chart', points: [1, 2] },
    ]
    for (const block of malformed)
      expect(toMcpContent(block as never)).toEqual({ type: 'text', text: JSON.stringify(block) })
    const remote: unknown[] = [
      { type: 'audio', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'file:///a', blob: 7 } },
      { type: 'resource', resource: 'file:///a' },
      { type: 'resource', uri: 'file:///a', text: 'flat is not MCP' },
      { type: 'resource_link', uri: 'file:///a', name: 'a', size: 'big' },
      { type: 'toString' },
      null,
      'text',
    ]
    for (const block of remote)
      expect(fromMcpContent(block)).toEqual({ type: 'text', text: JSON.stringify(block) })
    expect(fromMcpContent({ type: 'audio', data: 'AA', mimeType: 'audio/wav', extra: 1 })).toEqual({
      type: 'audio',
      data: 'AA',
      mediaType: 'audio/wav',
    })
  })

  it('Y2.6: fromMcpContent is total on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (block) => {
        const out = fromMcpContent(block)
        return typeof out === 'object' && typeof out.type === 'string'
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
