import { allow, ask, createToolRuntime, defineTool, deny, type PostDecision, ToolError } from '@tooltx/core'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { expectFailure, live, rawTool } from './pipeline.fixtures.js'

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({ path: z.string() }),
  output: { schema: z.object({ path: z.string() }) },
  execute: ({ path }) => ({ path }),
})

const other = defineTool({
  name: 'other',
  description: '',
  parameters: { path: { type: 'string' } },
  execute: () => 1,
})

function runtime() {
  const rt = createToolRuntime()
  rt.register(readFile)
  rt.register(other)
  const run = (name: string, args: unknown) =>
    rt.execute({ callId: 'c', name, arguments: args, signal: live() })
  return { rt, run }
}

describe('P14 per-tool hooks', () => {
  it('P14.1: a pre-execute handler bound to a tool decides its calls only', async () => {
    const { rt, run } = runtime()
    rt.onPreExecute(readFile, (exec) =>
      exec.arguments.path.startsWith('/etc') ? deny('no system files') : allow(),
    )
    expectFailure(
      await run('read_file', { path: '/etc/passwd' }),
      'DENIED',
      'tool "read_file" denied by pre-execute policy: no system files',
    )
    expect((await run('read_file', { path: '/home/a' })).isError).toBe(false)
    expect((await run('other', { path: '/etc/passwd' })).isError).toBe(false)
  })

  it('P14.1: bound and global handlers chain in registration order', async () => {
    const { rt, run } = runtime()
    const order: string[] = []
    rt.onPreExecute((_exec, next) => {
      order.push('global')
      return next()
    })
    rt.onPreExecute(readFile, (_exec, next) => {
      order.push('bound')
      return next()
    })
    await run('read_file', { path: '/a' })
    await run('other', {})
    expect(order).toEqual(['global', 'bound', 'global'])
  })

  it('P14.2: arguments that fail the tool parameters skip the bound handler; the call fails INVALID_ARGS', async () => {
    const { rt, run } = runtime()
    const handler = vi.fn(() => allow())
    const guard = vi.fn(() => undefined)
    const post = vi.fn((_exec: unknown, _result: unknown, next: () => Promise<PostDecision>) => next())
    rt.onPreExecute(readFile, handler)
    rt.guard(readFile, guard)
    rt.onPostExecute(readFile, post)
    expectFailure(
      await run('read_file', { path: 3 }),
      'INVALID_ARGS',
      'invalid arguments: "path" must be a string',
    )
    expect(handler).not.toHaveBeenCalled()
    expect(guard).not.toHaveBeenCalled()
    expect(post).not.toHaveBeenCalled()
  })

  it('P14.1: a bound guard denies only its tool', async () => {
    const { rt, run } = runtime()
    rt.guard(readFile, (exec) => (exec.arguments.path.includes('..') ? 'no parent paths' : undefined))
    expectFailure(
      await run('read_file', { path: '../x' }),
      'DENIED',
      'tool "read_file" denied by guard: no parent paths',
    )
    expect((await run('other', { path: '../x' })).isError).toBe(false)
  })

  it('P14.3: a bound post-execute handler sees the typed value and may block', async () => {
    const { rt, run } = runtime()
    rt.onPostExecute(readFile, (_exec, result, next) =>
      !result.isError && result.value.path === '/secret' ? { kind: 'block' } : next(),
    )
    expect((await run('read_file', { path: '/secret' })).isError).toBe(true)
    expect((await run('read_file', { path: '/open' })).isError).toBe(false)
  })

  it('P14.4: a tool defined without defineTool has no argument check, so every call of its name is seen', async () => {
    const rt = createToolRuntime()
    const raw = rawTool('raw')
    rt.register(raw)
    const seen: unknown[] = []
    rt.onPreExecute(raw, (exec) => {
      seen.push(exec.arguments)
      return ask('check')
    })
    expectFailure(
      await rt.execute({ callId: 'c', name: 'raw', arguments: { any: 1 }, signal: live() }),
      'DENIED',
      'tool "raw" requires approval, but there is no approval channel',
    )
    expect(seen).toEqual([{ any: 1 }])
  })

  it('P14.4: binding to something that is not a tool definition throws INVALID_DEFINITION', () => {
    const rt = createToolRuntime()
    for (const register of [
      () => rt.onPreExecute({} as never, () => allow()),
      () => rt.guard(null as never, () => undefined),
      () => rt.onPostExecute(readFile, 1 as never),
    ]) {
      expect(register).toThrow(ToolError)
    }
    expect(() => rt.guard(readFile, 'x' as never)).toThrow('guard handler must be a function')
  })

  it('P14.5: allow, deny and ask build the three decisions', () => {
    expect(allow()).toEqual({ kind: 'allow' })
    expect(deny('why')).toEqual({ kind: 'deny', reason: 'why' })
    expect(ask('sure?')).toEqual({ kind: 'ask', reason: 'sure?' })
    expect(ask()).toEqual({ kind: 'ask' })
  })

  it('P14.6: an async approver answering a literal type-checks without as const and is honoured', async () => {
    const rt = createToolRuntime({ approver: async () => 'allowed-once' })
    rt.register(readFile)
    rt.onPreExecute(readFile, () => ask())
    expect(
      (await rt.execute({ callId: 'c', name: 'read_file', arguments: { path: '/a' }, signal: live() }))
        .isError,
    ).toBe(false)
  })
})
