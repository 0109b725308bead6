import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sha256Hex } from '../src/foundation/sha256.js'
import {
  createToolRuntime,
  defineTool,
  effectOf,
  idempotencyKey,
  type RunContext,
  retry,
  type ToolError,
} from '../src/index.js'
import { assertToolDefinition } from '../src/tool/definition-checks.js'
import { callTool, live, rawTool } from './pipeline.fixtures.js'

const failing = (effect: 'read' | 'idempotent' | 'write' | undefined, runs: string[]) =>
  rawTool('t', {
    ...(effect === undefined ? {} : { effect }),
    execute: async (_args: unknown, run: RunContext) => {
      runs.push(run.idempotencyKey)
      throw new Error('backend down')
    },
  })

describe('F1 effects', () => {
  it('F1.1: effect is read, idempotent or write; absent means write; anything else is INVALID_DEFINITION', () => {
    const base = { name: 't', description: 'd', parameters: {}, execute: () => 1 }
    expect(defineTool({ ...base, effect: 'read' }).effect).toBe('read')
    expect(effectOf(defineTool(base))).toBe('write')
    expect(assertToolDefinition(rawTool('r', { effect: 'idempotent' })).effect).toBe('idempotent')
    expect(() => defineTool({ ...base, effect: 'pure' as 'read' })).toThrow(
      "defineTool(t): effect must be 'read', 'idempotent' or 'write' (absent means 'write')",
    )
    expect(() => createToolRuntime().register(rawTool('r', { effect: 1 }))).toThrow(
      "tool \"r\" effect must be 'read', 'idempotent' or 'write' (absent means 'write')",
    )
  })

  it('F1.2: the idempotency key is the same for every attempt and derives from scope, call id and arguments only', async () => {
    const rt = createToolRuntime()
    rt.wrapExecute(retry({ attempts: 3 }))
    const runs: string[] = []
    rt.register(failing('idempotent', runs))
    await rt.execute({
      callId: 'c',
      name: 't',
      arguments: { b: 1, a: [2] },
      signal: live(),
      idempotencyScope: 's',
    })
    const key = idempotencyKey({ scope: 's', callId: 'c', arguments: { a: [2], b: 1 } })
    expect(runs).toEqual([key, key, key])
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    expect(idempotencyKey({ scope: '', callId: 'c', arguments: { a: [2], b: 1 } })).not.toBe(key)
    expect(idempotencyKey({ scope: 's', callId: 'd', arguments: { a: [2], b: 1 } })).not.toBe(key)
    expect(idempotencyKey({ scope: 's', callId: 'c', arguments: { a: [3], b: 1 } })).not.toBe(key)
  })

  it('F1.2: the key is a getter the run context inherits: the same value, no own key, absent from a spread', async () => {
    let context: RunContext | undefined
    const rt = createToolRuntime()
    rt.register(
      rawTool('t', {
        execute: async (_args: unknown, run: RunContext) => {
          context = run
          return 1
        },
      }),
    )
    await rt.execute({ callId: 'c', name: 't', arguments: { a: 1 }, signal: live() })
    const key = idempotencyKey({ scope: '', callId: 'c', arguments: { a: 1 } })
    expect(context!.idempotencyKey).toBe(key)
    expect('idempotencyKey' in context!).toBe(true)
    expect(Object.hasOwn(context!, 'idempotencyKey')).toBe(false)
    expect(Object.keys(context!)).not.toContain('idempotencyKey')
    expect({ ...context! }).not.toHaveProperty('idempotencyKey')
    expect(Object.isFrozen(context)).toBe(true)
  })

  it('F1.2: the key digest is SHA-256 (checked against node:crypto for arbitrary strings)', async () => {
    const { createHash } = await import('node:crypto')
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'))
      }),
    )
  })

  it('F1.3: recordEffect hands the frozen receipt to onEffect and resolves once it is durable; a bad receipt is RESULT_NOT_SERIALIZABLE', async () => {
    const rt = createToolRuntime()
    const seen: string[] = []
    rt.register(
      rawTool('pay', {
        execute: async (_args: unknown, run: RunContext) => {
          await run.recordEffect({ id: 'r1' })
          seen.push('recorded')
          try {
            await run.recordEffect({ bad: () => 1 } as never)
          } catch (error) {
            seen.push((error as ToolError).code)
          }
          return { ok: true }
        },
      }),
    )
    const result = await rt.execute({
      callId: 'c',
      name: 'pay',
      arguments: {},
      signal: live(),
      onEffect: async (effect) => {
        expect(Object.isFrozen(effect.receipt)).toBe(true)
        await new Promise((resolve) => setTimeout(resolve, 5))
        seen.push(`durable ${effect.callId} ${effect.name} ${JSON.stringify(effect.receipt)}`)
      },
    })
    expect(result.isError).toBe(false)
    expect(seen).toEqual(['durable c pay {"id":"r1"}', 'recorded', 'RESULT_NOT_SERIALIZABLE'])
    // Without a sink the receipt is not kept, and recordEffect still resolves.
    expect((await rt.execute({ callId: 'd', name: 'pay', arguments: {}, signal: live() })).isError).toBe(
      false,
    )
  })

  it('F1.9: the input fencingToken is the run context fencingToken, on every attempt; absent without one; a bad one is an invariant breach', async () => {
    const rt = createToolRuntime()
    const seen: unknown[] = []
    rt.register(
      rawTool('write', {
        execute: (_args: unknown, run: RunContext) => {
          seen.push('fencingToken' in run ? run.fencingToken : 'absent')
          return { ok: true }
        },
      }),
    )
    const call = (fencingToken?: unknown) =>
      (async () =>
        rt.execute({
          callId: 'c',
          name: 'write',
          arguments: {},
          signal: live(),
          ...(fencingToken === undefined ? {} : { fencingToken: fencingToken as number }),
        }))()
    expect((await call(7)).isError).toBe(false)
    expect((await call(0)).isError).toBe(false)
    expect((await call()).isError).toBe(false)
    expect(seen).toEqual([7, 0, 'absent'])
    for (const bad of [-1, 1.5, '3', Number.NaN]) {
      await expect(call(bad)).rejects.toThrow('execute input.fencingToken must be a whole number >= 0')
    }
  })

  it('F1.5: retry never runs a started write again unless retryWrites; read and idempotent tools are retried', async () => {
    const attempts = (effect: 'read' | 'idempotent' | 'write' | undefined, retryWrites?: boolean) => {
      const rt = createToolRuntime()
      rt.wrapExecute(retry({ attempts: 3, ...(retryWrites === undefined ? {} : { retryWrites }) }))
      const runs: string[] = []
      rt.register(failing(effect, runs))
      return callTool(rt, 't').then((r) => {
        expect(r).toMatchObject({ isError: true, error: { info: { code: 'TOOL_FAILED' } } })
        return runs.length
      })
    }
    expect(await attempts(undefined)).toBe(1)
    expect(await attempts('write')).toBe(1)
    expect(await attempts('write', true)).toBe(3)
    expect(await attempts('read')).toBe(3)
    expect(await attempts('idempotent')).toBe(3)
    expect(() => retry({ attempts: 2, retryWrites: 'yes' as unknown as boolean })).toThrow(
      'retry() retryWrites must be a boolean when present',
    )
  })
})
