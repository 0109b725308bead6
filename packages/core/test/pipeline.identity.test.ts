import { createToolRuntime, type Execution, type RunContext } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { callTool, isDeepFrozen, live, note, rawTool } from './pipeline.fixtures.js'
import { toolRejection } from './thrown.js'

const rejection = toolRejection

describe('I1 call identity', () => {
  it('I1.1: each input field is read exactly once, at entry', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const reads = new Map<string, number>()
    const values: Record<string, unknown> = { callId: 'c', name: 't', arguments: { a: 1 }, signal: live() }
    const input = new Proxy(values, {
      get(target, key: string) {
        reads.set(key, (reads.get(key) ?? 0) + 1)
        return target[key]
      },
    })
    const result = await rt.execute(input as never)
    expect(result.isError).toBe(false)
    for (const key of [
      'callId',
      'rootCallId',
      'name',
      'arguments',
      'signal',
      'scope',
      'parent',
      'approver',
      'codeRuntime',
      'onCodeDispatch',
    ]) {
      expect(reads.get(key), key).toBe(1)
    }
    expect(reads.has('token')).toBe(false)
  })

  it('I1.2: a malformed input rejects with INVARIANT and produces no result', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    let observed = 0
    rt.onResult(() => void observed++)
    const disposed = rt.scope()
    disposed.dispose()
    const base = { callId: 'c', name: 't', arguments: {}, signal: live() }
    const bad: Record<string, unknown>[] = [
      { callId: '' },
      { callId: 3 },
      { name: undefined },
      { signal: { aborted: false } },
      { rootCallId: '' },
      { rootCallId: 5 },
      { scope: createToolRuntime().scope() },
      { scope: disposed },
      { parent: Symbol('unknown') },
      { parent: 'c' },
    ]
    for (const patch of bad) {
      const error = await rejection(rt.execute({ ...base, ...patch } as never))
      expect(error.code).toBe('INVARIANT')
      expect(error.message).toMatch(/^invariant violated: /)
    }
    expect(observed).toBe(0)
  })

  it('I1.3: a fresh unique token is minted per call and an input token is ignored', async () => {
    const rt = createToolRuntime()
    const tokens: symbol[] = []
    rt.register(rawTool('t'))
    rt.onPreExecute(async (exec, next) => note(tokens, exec.token, next()))
    const mine = Symbol('mine')
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), token: mine } as never)
    await callTool(rt, 't')
    expect(typeof tokens[0]).toBe('symbol')
    expect(tokens[0]).not.toBe(mine)
    expect(tokens[0]).not.toBe(tokens[1])
  })

  it('I1.4: the token never appears in a result', async () => {
    const rt = createToolRuntime()
    let token: symbol | undefined
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, run: RunContext) => {
          token = run.token
          return { id: 'x' }
        },
      }),
    )
    const result = await callTool(rt, 't')
    const walk = [result as unknown]
    while (walk.length > 0) {
      const v = walk.pop()
      expect(v).not.toBe(token)
      if (v !== null && typeof v === 'object') {
        expect(Object.getOwnPropertySymbols(v)).toEqual([])
        walk.push(...Object.values(v))
      }
    }
  })

  it('I1.5: rootCallId defaults to callId', async () => {
    const rt = createToolRuntime()
    const seen: string[] = []
    rt.register(rawTool('t'))
    rt.onResult((exec) => void seen.push(exec.rootCallId))
    await rt.execute({ callId: 'c1', name: 't', arguments: {}, signal: live() })
    await rt.execute({ callId: 'c2', rootCallId: 'root', name: 't', arguments: {}, signal: live() })
    expect(seen).toEqual(['c1', 'root'])
  })

  it('I1.6: the execution is frozen with deep-frozen arguments and absent optional keys', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    let exec: Execution | undefined
    rt.onResult((e) => {
      exec = e
    })
    const args = { nested: { list: [1, { x: 2 }] } }
    await rt.execute({ callId: 'c', name: 't', arguments: args, signal: live() })
    expect(Object.keys(exec!)).toEqual(['callId', 'rootCallId', 'name', 'arguments', 'token', 'signal'])
    expect(Object.isFrozen(exec)).toBe(true)
    expect(isDeepFrozen(exec!.arguments)).toBe(true)
    expect(() => {
      ;(exec as { name: string }).name = 'other'
    }).toThrow(TypeError)
    const scope = rt.scope()
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope })
    expect(Object.keys(exec!)).toEqual([
      'callId',
      'rootCallId',
      'name',
      'arguments',
      'scope',
      'token',
      'signal',
    ])
    expect(Object.isFrozen(scope)).toBe(false)
  })

  it('I1.7: every stage receives the one execution object with the caller signal', async () => {
    const signal = live()
    const seen: Execution[] = []
    const rt = createToolRuntime()
    rt.register(rawTool('t', { finalizeContent: (exec: Execution) => void seen.push(exec) }))
    rt.onPreExecute(async (exec, next) => note(seen, exec, next()))
    rt.guard((exec) => void seen.push(exec))
    rt.onPostExecute(async (exec, _r, next) => note(seen, exec, next()))
    rt.onResult((exec) => void seen.push(exec))
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
    expect(seen).toHaveLength(5)
    for (const exec of seen) expect(exec).toBe(seen[0])
    expect(seen[0]!.signal).toBe(signal)
  })

  it('I1.8: the around view has read-only identity and a writable, undeletable AbortSignal-only signal', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const checks: string[] = []
    rt.onPreExecute(async (exec, next) => {
      checks.push(`token:${String(exec.token.description)}`)
      return next()
    })
    rt.wrapExecute(async (exec, next) => {
      expect(() => {
        ;(exec as { name: string }).name = 'x'
      }).toThrow(TypeError)
      expect(() => {
        exec.signal = 'nope' as never
      }).toThrow(TypeError)
      expect(() => {
        delete (exec as { signal?: AbortSignal }).signal
      }).toThrow(TypeError)
      const mine = new AbortController().signal
      exec.signal = mine
      expect(exec.signal).toBe(mine)
      expect(Object.keys(exec)).toEqual(['callId', 'rootCallId', 'name', 'arguments', 'token', 'signal'])
      checks.push('wrapped')
      return next()
    })
    expect((await callTool(rt, 't')).isError).toBe(false)
    expect(checks).toEqual(['token:tooltx.call', 'wrapped'])
  })

  it('I1.9: results never carry call identity', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const result = await callTool(rt, 't')
    for (const key of ['callId', 'name', 'token', 'parent', 'rootCallId']) expect(key in result).toBe(false)
  })
})
