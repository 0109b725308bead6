import { createToolRuntime, ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { countPostExecute, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'

function setup() {
  const ran: string[] = []
  const rt = createToolRuntime({ approver: () => 'allowed-once' })
  rt.register(rawTool('t', { execute: async () => note(ran, 'body', 'ok') }))
  const run = (extra: object = {}) =>
    rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), ...extra })
  return { rt, ran, run }
}

describe('P5 guards', () => {
  it('P5.1: guards run only when the decision after pre-execute and approval is allow', async () => {
    const { rt, run } = setup()
    let guards = 0
    rt.guard(() => void guards++)
    const off = rt.onPreExecute(async () => ({ kind: 'deny' }))
    await run()
    off()
    rt.onPreExecute(async () => ({ kind: 'ask' }))
    await run({ approver: () => 'rejected' })
    expect(guards).toBe(0)
    await run()
    expect(guards).toBe(1)
  })

  it('P5.2: a non-empty string denies, undefined abstains, anything else is HOOK_FAILED', async () => {
    const invalid: [unknown, string][] = [
      ['', 'an empty string'],
      [null, 'null'],
      [0, 'a value of type number'],
      [{ reason: 'x' }, 'a value of type object'],
      [Promise.resolve('no'), 'a promise (guards are synchronous)'],
      [Promise.reject(new Error('async guard')), 'a promise (guards are synchronous)'],
    ]
    for (const [answer, detail] of invalid) {
      const { rt, run, ran } = setup()
      rt.guard(() => answer as never)
      expectFailure(
        await run(),
        'HOOK_FAILED',
        `guard handler returned an invalid value: expected a non-empty string or undefined, got ${detail}`,
      )
      expect(ran).toEqual([])
    }
    const { rt, run } = setup()
    rt.guard(() => undefined)
    expect((await run()).isError).toBe(false)
  })

  it('P5.3: unscoped guards first, then scope layers from the farthest ancestor to the own scope', async () => {
    const { rt, run } = setup()
    const order: string[] = []
    const parent = rt.scope()
    const child = rt.scope({ parent })
    child.guard(() => void order.push('child-1'))
    parent.guard(() => void order.push('parent-1'))
    rt.guard(() => void order.push('global-1'))
    rt.guard(() => void order.push('parent-2'), { scope: parent })
    child.guard(() => void order.push('child-2'))
    rt.guard(() => void order.push('global-2'))
    await run({ scope: child })
    expect(order).toEqual(['global-1', 'global-2', 'parent-1', 'parent-2', 'child-1', 'child-2'])
    order.length = 0
    rt.guard(() => 'stop here')
    expectFailure(await run({ scope: child }), 'DENIED')
    expect(order).toEqual(['global-1', 'global-2'])
  })

  it('P5.4: a guard denial is the post-result DENIED', async () => {
    const { rt, run } = setup()
    const post = countPostExecute(rt)
    rt.guard((exec) => (exec.name === 't' ? 'protected path' : undefined))
    expectFailure(await run(), 'DENIED', 'tool "t" denied by guard: protected path')
    expect(post()).toBe(1)
  })

  it('P5.5: a throwing guard is the final-result HOOK_FAILED; a ToolError keeps its code', async () => {
    const a = setup()
    a.rt.guard(() => {
      throw new Error('guard crashed')
    })
    expectFailure(await a.run(), 'HOOK_FAILED', 'guard handler failed: guard crashed')
    const b = setup()
    b.rt.guard(() => {
      throw new ToolError('NO_QUOTA', 'quota exhausted')
    })
    const result = await b.run()
    expect(result.isError && result.error).toEqual({
      message: 'quota exhausted',
      info: { name: 'ToolError', code: 'NO_QUOTA' },
    })
  })

  it('P5.6: no stage overrides a guard denial, not even an allow or an approval', async () => {
    const { rt, run, ran } = setup()
    rt.onPreExecute(async () => ({ kind: 'allow' }))
    rt.guard(() => 'never')
    expectFailure(await run(), 'DENIED')
    rt.onPreExecute(async () => ({ kind: 'ask' }))
    expectFailure(await run(), 'DENIED', 'tool "t" denied by guard: never')
    expect(ran).toEqual([])
  })

  it('P5.7: the guard list is captured when the stage starts', async () => {
    const { rt, run } = setup()
    const order: string[] = []
    rt.guard(() => {
      order.push('first')
      rt.guard(() => 'late guard denies')
      return undefined
    })
    expect((await run()).isError).toBe(false)
    expect(order).toEqual(['first'])
  })
})
