import { createToolRuntime, type Execution, type ToolResult } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { assertPublishable, Stage, StageLog } from '../src/pipeline/invariants.js'
import { after, callTool, live, rawTool } from './pipeline.fixtures.js'
import { thrownToolError } from './thrown.js'

const invariant = (fn: () => unknown) => thrownToolError(fn, 'INVARIANT').message

const exec = Object.freeze({
  callId: 'c',
  rootCallId: 'c',
  name: 't',
  token: Symbol('t'),
  signal: live(),
}) as Execution
const ok = Object.freeze({
  isError: false,
  value: 1,
  content: Object.freeze([Object.freeze({ type: 'text', text: '1' })]),
}) as ToolResult

describe('V1 invariants', () => {
  it('V1.1: a violated invariant throws INVARIANT "invariant violated: <what>" and is never a result', async () => {
    expect(invariant(() => assertPublishable({ ...exec }, ok))).toBe(
      'invariant violated: the execution is not frozen',
    )
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    let observed = 0
    rt.onResult(() => void observed++)
    await expect(
      rt.execute({ callId: 'c', name: 't', arguments: {}, signal: 'not a signal' as never }),
    ).rejects.toMatchObject({
      code: 'INVARIANT',
      message: 'invariant violated: execute input.signal must be an AbortSignal',
    })
    expect(observed).toBe(0)
  })

  it('V1.1: a stale run-context call escaping a later body rejects execute instead of becoming a result', async () => {
    const rt = createToolRuntime()
    let stale: ((m: string) => void) | undefined
    rt.register(
      rawTool('t', {
        execute: async (_a: unknown, r: { deferContext: (m: string) => void }) => {
          if (stale !== undefined) stale('late')
          stale = r.deferContext
          return 1
        },
      }),
    )
    await callTool(rt, 't')
    await expect(callTool(rt, 't')).rejects.toMatchObject({ code: 'INVARIANT' })
  })

  it('V1.2: stages only move forward: pre once, approval after ask, guards after allow, around after guards', () => {
    const twice = new StageLog()
    twice.enter(Stage.pre)
    expect(invariant(() => twice.enter(Stage.pre))).toMatch(/pre-execute out of order/)
    expect(invariant(() => new StageLog().enter(Stage.approval))).toMatch(/without an ask/)
    expect(invariant(() => new StageLog().enter(Stage.guards))).toMatch(/without an allow/)
    expect(invariant(() => new StageLog().enter(Stage.around))).toMatch(/before the guards/)
    expect(invariant(() => new StageLog().assertBody())).toMatch(/outside the around stage/)
    const post = new StageLog()
    expect(invariant(() => post.enterPost(false))).toMatch(/final-result/)
    post.enterPost(true)
    expect(invariant(() => post.enterPost(true))).toMatch(/out of order/)
    const fin = new StageLog()
    fin.enter(Stage.finalize)
    expect(invariant(() => fin.enter(Stage.finalize))).toMatch(/finalizeContent out of order/)
    expect(invariant(() => new StageLog().enter(Stage.observe))).toMatch(/before the finalizer/)
    const publish = new StageLog()
    publish.enter(Stage.finalize)
    expect(invariant(() => publish.assertPublishing())).toMatch(/before the observers/)
    publish.enter(Stage.observe)
    expect(() => publish.assertPublishing()).not.toThrow()
    expect(invariant(() => publish.enter(Stage.observe))).toMatch(/observers/)
  })

  it('V1.2: a full run passes every stage in order exactly once', async () => {
    const order: string[] = []
    const rt = createToolRuntime({
      approver: () => after(() => order.push('approval'), 'allowed-once' as const),
    })
    rt.register(
      rawTool('t', {
        execute: async () => after(() => order.push('body'), 1),
        finalizeContent: () => after(() => order.push('finalizer'), undefined),
      }),
    )
    rt.onPreExecute(async () => after(() => order.push('pre'), { kind: 'ask' as const }))
    rt.guard(() => after(() => order.push('guard'), undefined))
    rt.wrapExecute(async (_e, next) => {
      order.push('around')
      return next()
    })
    rt.onPostExecute(async (_e, _r, next) => {
      order.push('post')
      return next()
    })
    rt.onResult(() => void order.push('observer'))
    await callTool(rt, 't')
    expect(order).toEqual(['pre', 'approval', 'guard', 'around', 'body', 'post', 'finalizer', 'observer'])
  })

  it('V1.3: publishing checks frozen execution, deep-frozen lossless result and the result shape', () => {
    expect(() => assertPublishable(exec, ok)).not.toThrow()
    const bad: [Execution, unknown, RegExp][] = [
      [Object.freeze({ ...exec, callId: '' }), ok, /callId/],
      [Object.freeze({ ...exec, name: 1 as never }), ok, /name/],
      [exec, { ...ok }, /not frozen/],
      [exec, Object.freeze({ ...ok, value: [1] }), /not frozen/],
      [exec, Object.freeze({ ...ok, value: Object.freeze(new Date(0)) }), /not plain/],
      [exec, Object.freeze({ ...ok, meta: undefined }), /undefined/],
      [exec, Object.freeze({ isError: false, content: ok.content }), /no value/],
      [exec, Object.freeze({ isError: true, content: ok.content }), /no error message/],
      [
        exec,
        Object.freeze({
          isError: true,
          content: ok.content,
          error: Object.freeze({ message: 'm', info: Object.freeze({ name: 'N', code: '' }) }),
        }),
        /info.code/,
      ],
      [
        exec,
        Object.freeze({
          ...ok,
          isError: true,
          error: Object.freeze({ message: 'm', info: Object.freeze({ name: 'N', code: 'C' }) }),
        }),
        /carries a value/,
      ],
      [exec, Object.freeze({ ...ok, error: Object.freeze({ message: 'm' }) }), /success carries an error/],
      [exec, Object.freeze({ ...ok, content: Object.freeze([Object.freeze({ text: 'x' })]) }), /content/],
      [exec, Object.freeze({ ...ok, extra: 1 }), /unknown key/],
    ]
    for (const [e, result, pattern] of bad)
      expect(invariant(() => assertPublishable(e, result as ToolResult))).toMatch(pattern)
  })
})
