import { createToolRuntime, ToolError, type ToolErrorCode, type ToolRuntime } from '@tooltx/core'
import { ERROR_NAMES } from '@tooltx/core/internal'
import { describe, expect, it } from 'vitest'
import { trapping } from './hostile-values.js'
import {
  abortedSignal,
  after,
  callTool,
  expectFailure,
  live,
  rawTool,
  throwingTool,
} from './pipeline.fixtures.js'

/** A Proxy that throws from every trap. */
const hostile = () => trapping(['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'])

/** Runtimes with a plain tool `t` and `thrower` as its pre-execute hook, guard, around handler or post-execute hook. */
const hookPlaces = (thrower: () => never): ((rt: ToolRuntime) => void)[] => [
  (rt) => after(() => rt.register(rawTool('t')), rt.onPreExecute(thrower)),
  (rt) => after(() => rt.register(rawTool('t')), rt.guard(thrower)),
  (rt) => after(() => rt.register(rawTool('t')), rt.wrapExecute(thrower)),
  (rt) => after(() => rt.register(rawTool('t')), rt.onPostExecute(thrower)),
]

describe('E1 failure results', () => {
  it('E1.1: runtime-made failures carry the table name for their code', async () => {
    const rt = createToolRuntime({ mode: 'both' })
    rt.register(throwingTool('t', 'x'))
    rt.register(rawTool('bad', { execute: async () => undefined }))
    const results = await Promise.all([
      callTool(rt, 'nope'),
      rt.execute({ callId: 'c', name: 't', arguments: { a: undefined }, signal: live() }),
      callTool(rt, 't'),
      callTool(rt, 'bad'),
      rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() }),
      rt.execute({
        callId: 'c',
        name: 'run_code',
        arguments: { code: 'x', description: 'd' },
        signal: live(),
      }),
    ])
    for (const result of results) {
      expect(result.isError).toBe(true)
      if (!result.isError) continue
      const code = result.error.info.code as ToolErrorCode
      expect(result.error.info.name).toBe(ERROR_NAMES[code])
      expect(result.error.info.name.length > 0 && code.length > 0).toBe(true)
    }
  })

  it('E1.2: ToolError has own code and name and validates the code', () => {
    const error = new ToolError('MY_CODE', 'msg', { name: 'MyError' })
    expect(error).toBeInstanceOf(Error)
    expect(Object.hasOwn(error, 'code') && Object.hasOwn(error, 'name')).toBe(true)
    expect(new ToolError('X', 'm').name).toBe('ToolError')
    expect(() => new ToolError('lower', 'm')).toThrow(TypeError)
  })

  it('E1.3: a ToolError from a body, hook or finalizer keeps name, code and message', async () => {
    const thrower = () => {
      throw new ToolError('TEAM_CODE', 'team message', { name: 'TeamError' })
    }
    const places: ((rt: ReturnType<typeof createToolRuntime>) => void)[] = [
      (rt) => rt.register(rawTool('t', { execute: thrower })),
      ...hookPlaces(thrower),
      (rt) => rt.register(rawTool('t', { finalizeContent: thrower })),
      (rt) =>
        rt.register(
          rawTool('t', {
            execute: async () => {
              throw new ToolError('INVARIANT', 'a body may use any code')
            },
          }),
        ),
    ]
    for (const [i, place] of places.entries()) {
      const rt = createToolRuntime()
      place(rt)
      const result = await callTool(rt, 't')
      if (i === places.length - 1) {
        expect(result.isError && result.error).toEqual({
          message: 'a body may use any code',
          info: { name: 'ToolError', code: 'INVARIANT' },
        })
      } else
        expect(result.isError && result.error).toEqual({
          message: 'team message',
          info: { name: 'TeamError', code: 'TEAM_CODE' },
        })
    }
  })

  it('E1.4: other thrown values are TOOL_FAILED from bodies and finalizers, HOOK_FAILED from hooks', async () => {
    const codes: string[] = []
    for (const place of [
      (rt: ReturnType<typeof createToolRuntime>) =>
        rt.register(
          rawTool('t', {
            execute: async () => {
              throw 1
            },
          }),
        ),
      (rt: ReturnType<typeof createToolRuntime>) =>
        rt.register(
          rawTool('t', {
            finalizeContent: () => {
              throw 1
            },
          }),
        ),
      ...hookPlaces(() => {
        throw 1
      }),
    ]) {
      const rt = createToolRuntime()
      place(rt)
      const result = await callTool(rt, 't')
      codes.push(result.isError ? result.error.info.code : 'ok')
    }
    expect(codes).toEqual([
      'TOOL_FAILED',
      'TOOL_FAILED',
      'HOOK_FAILED',
      'HOOK_FAILED',
      'HOOK_FAILED',
      'HOOK_FAILED',
    ])
  })

  it('E1.5: a thrown error whose name or code cannot be read is not a ToolError', async () => {
    const tricky = new ToolError('SOME_CODE', 'tricky')
    Object.defineProperty(tricky, 'code', {
      get() {
        throw new Error('no code for you')
      },
    })
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        execute: async () => {
          throw tricky
        },
      }),
    )
    rt.register(
      rawTool('h', {
        execute: async () => {
          throw hostile()
        },
      }),
    )
    expectFailure(await callTool(rt, 't'), 'TOOL_FAILED', 'tricky')
    expectFailure(await callTool(rt, 'h'), 'TOOL_FAILED', '<unprintable thrown value>')
  })

  it('E1.6: denials carry DENIED and blocks carry BLOCKED', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    rt.register(rawTool('b'))
    rt.onPreExecute(async (exec, next) => (exec.name === 't' ? { kind: 'deny' } : next()))
    rt.onPostExecute(async (exec, _r, next) => (exec.name === 'b' ? { kind: 'block' } : next()))
    expectFailure(await callTool(rt, 't'), 'DENIED')
    expectFailure(await callTool(rt, 'b'), 'BLOCKED')
  })

  it('E1.7: messages never start with "Error: " and content is "Error: <message>"', async () => {
    const rt = createToolRuntime()
    rt.register(throwingTool('t', 'plain'))
    const result = await callTool(rt, 't')
    expect(result.isError && result.error.message).toBe('plain')
    expect(result.content).toEqual([{ type: 'text', text: 'Error: plain' }])
  })
})

describe('E2/E3 total messages and thrown errors', () => {
  it('E2.3: messages built from hostile thrown values never throw', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    rt.onPreExecute(() => {
      throw hostile()
    })
    expectFailure(
      await callTool(rt, 't'),
      'HOOK_FAILED',
      'onPreExecute handler failed: <unprintable thrown value>',
    )
  })

  it('E3.1: UNSUPPORTED_SCHEMA, INVALID_DEFINITION and INVARIANT are thrown, never results', async () => {
    const rt = createToolRuntime()
    expect(() =>
      rt.register(rawTool('t', { output: { schema: { type: 'string', format: 'x' }, render: () => [] } })),
    ).toThrow(ToolError)
    expect(() => rt.register(rawTool('bad name'))).toThrow(ToolError)
    await expect(rt.execute({ callId: '', name: 't', arguments: {}, signal: live() })).rejects.toBeInstanceOf(
      ToolError,
    )
  })

  it('E3.2: a registration that throws leaves the registry unchanged', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    const s = rt.scope()
    const before = rt.view(s).list()
    expect(() => rt.register(rawTool('a'))).toThrow()
    expect(() => s.register(rawTool('b', { timeoutMs: -1 }))).toThrow()
    expect(() => s.restrict({ allow: ['a', 'zzz'] })).toThrow()
    expect(() => s.presentAs('bogus' as never)).toThrow()
    expect(rt.view(s).list()).toEqual(before)
    s.presentAs('code')
  })
})
