import { type ApprovalRequest, createToolRuntime, ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { countPostExecute, deferred, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'

function setup(approver?: (r: ApprovalRequest) => never) {
  const ran: string[] = []
  const rt = createToolRuntime(approver === undefined ? {} : { approver })
  rt.register(rawTool('t', { execute: async () => note(ran, 'body', 'ok') }))
  rt.guard(() => note(ran, 'guard', undefined))
  const run = (signal = live()) => rt.execute({ callId: 'c', name: 't', arguments: {}, signal })
  return { rt, ran, run }
}

describe('P3 pre-execute', () => {
  it('P3.1: handlers receive (exec, next) and the innermost default is allow', async () => {
    const { rt, run, ran } = setup()
    rt.onPreExecute(async (exec, next) => {
      expect(exec.name).toBe('t')
      return next()
    })
    expect((await run()).isError).toBe(false)
    expect(ran).toEqual(['guard', 'body'])
  })

  it('P3.2: allow, deny and ask are the decisions; the arguments cannot be rewritten', async () => {
    const { rt, run } = setup()
    const seen: unknown[] = []
    rt.register(rawTool('echo', { execute: async (args: unknown) => args }))
    rt.onPreExecute(async (exec, next) => {
      expect(() => {
        ;(exec.arguments as { path: string }).path = '/etc/shadow'
      }).toThrow(TypeError)
      seen.push(exec.arguments)
      return next()
    })
    const result = await rt.execute({
      callId: 'c',
      name: 'echo',
      arguments: { path: '/tmp' },
      signal: live(),
    })
    expect(result.isError === false && result.value).toEqual({ path: '/tmp' })
    expect((await run()).isError).toBe(false)
  })

  it('P3.3: an invalid decision is the final-result HOOK_FAILED', async () => {
    const cases: [unknown, string][] = [
      ['allow', 'expected a decision object, got string'],
      [null, 'expected a decision object, got null'],
      [{ kind: 'maybe' }, 'kind must be "allow", "deny" or "ask", got "maybe"'],
      [{ kind: 'allow', args: {} }, 'unknown key "args"'],
      [{}, 'kind must be "allow", "deny" or "ask", got undefined'],
    ]
    for (const [decision, detail] of cases) {
      const { rt, run, ran } = setup()
      const post = countPostExecute(rt)
      rt.onPreExecute(async () => decision as never)
      expectFailure(await run(), 'HOOK_FAILED', `onPreExecute handler returned an invalid value: ${detail}`)
      expect(ran).toEqual([])
      expect(post()).toBe(0)
    }
  })

  it('P3.4: a deny without a usable reason still denies; an ask without one asks without one', async () => {
    for (const reason of [undefined, 5, '']) {
      const { rt, run } = setup()
      rt.onPreExecute(async () => ({ kind: 'deny', reason }) as never)
      expectFailure(await run(), 'DENIED', 'tool "t" denied by pre-execute policy: no reason given')
    }
    const requests: ApprovalRequest[] = []
    const { rt, run } = setup(((r: ApprovalRequest) => note(requests, r, 'allowed-once')) as never)
    rt.onPreExecute(async () => ({ kind: 'ask', reason: 7 }) as never)
    expect((await run()).isError).toBe(false)
    expect('reason' in requests[0]!).toBe(false)
  })

  it('P3.5: a deny is the post-result DENIED; no approver, guard or body runs', async () => {
    let asked = 0
    const { rt, run, ran } = setup((() => {
      asked++
      return 'allowed-once'
    }) as never)
    const post = countPostExecute(rt)
    rt.onPreExecute(async () => ({ kind: 'deny', reason: 'no shell' }))
    expectFailure(await run(), 'DENIED', 'tool "t" denied by pre-execute policy: no shell')
    expect([ran, asked, post()]).toEqual([[], 0, 1])
  })

  it('P3.6: a throwing handler is the final-result HOOK_FAILED; a ToolError keeps its identity', async () => {
    const { rt, run } = setup()
    const off = rt.onPreExecute(async () => {
      throw new Error('policy crashed')
    })
    expectFailure(await run(), 'HOOK_FAILED', 'onPreExecute handler failed: policy crashed')
    off()
    rt.onPreExecute(() => {
      throw new ToolError('POLICY_DOWN', 'policy service down', { name: 'PolicyError' })
    })
    const result = await run()
    expect(result.isError && result.error).toEqual({
      message: 'policy service down',
      info: { name: 'PolicyError', code: 'POLICY_DOWN' },
    })
  })

  it('P3.7: a deny or throw settling after the caller aborted is reported as such', async () => {
    for (const outcome of ['deny', 'throw'] as const) {
      const { rt, run } = setup()
      const gate = deferred()
      rt.onPreExecute(async () => {
        await gate.promise
        if (outcome === 'throw') throw new Error('late crash')
        return { kind: 'deny', reason: 'late' }
      })
      const controller = new AbortController()
      const pending = run(controller.signal)
      controller.abort()
      gate.resolve()
      expectFailure(await pending, outcome === 'deny' ? 'DENIED' : 'HOOK_FAILED')
    }
  })

  it('P3.8: an allow that settles after the caller aborted is ABORTED_BEFORE_DISPATCH and the body never runs', async () => {
    const { rt, run, ran } = setup()
    const gate = deferred()
    rt.onPreExecute(async () => {
      await gate.promise
      return { kind: 'allow' }
    })
    const controller = new AbortController()
    const pending = run(controller.signal)
    controller.abort()
    gate.resolve()
    expectFailure(await pending, 'ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch')
    expect(ran).toEqual([])
  })
})
