/**
 * P4.11, P4.12: an ask for a name the call's view does not resolve is never put to an approver,
 * and a tool removed while its ask is pending keeps the answer it gets.
 */
import { type ApprovalOutcome, createToolRuntime, type ToolRuntime } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { APPROVAL_OUTCOMES } from '../src/contract/approval-outcome.js'
import { after, deferred, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'

/** A runtime whose every call asks; `seen` notes each stage that saw a call, in order. */
function asking(approver?: () => ApprovalOutcome | Promise<ApprovalOutcome>) {
  const seen: string[] = []
  const rt = createToolRuntime(
    approver === undefined ? {} : { approver: () => note(seen, 'approver', approver()) },
  )
  rt.register(rawTool('t', { execute: async () => note(seen, 'body', 'ok') }))
  rt.register(rawTool('u', { execute: async () => note(seen, 'body', 'ok') }))
  rt.onPreExecute(async (exec) => note(seen, `pre ${exec.name}`, { kind: 'ask', reason: 'risky' }))
  rt.guard(() => note(seen, 'guard', undefined))
  rt.onPostExecute(async (_exec, result, next) =>
    note(seen, `post ${result.isError ? result.error.info?.code : 'ok'}`, next()),
  )
  return { rt, seen }
}

const sandbox = quickjsRuntime({ wallMs: 20_000 })
afterAll(() => sandbox.close())

const run = (rt: ToolRuntime, name: string, extra: object = {}) =>
  rt.execute({ callId: 'c', name, arguments: { n: 1 }, signal: live(), ...extra })

describe('P4.11, P4.12 asks about a name the view does not resolve', () => {
  it('P4.11, M3.5: an ask for an unregistered name fails UNKNOWN_TOOL with hooks run and no approver, whatever it would answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...APPROVAL_OUTCOMES),
        fc.stringMatching(/^[a-z_]{1,12}$/).filter((n) => n !== 't' && n !== 'u'),
        async (answer, name) => {
          const { rt, seen } = asking(() => answer)
          expectFailure(await run(rt, name), 'UNKNOWN_TOOL', `unknown tool "${name}"`)
          expect(seen).toEqual([`pre ${name}`, 'post UNKNOWN_TOOL'])
        },
      ),
      { numRuns: 40 },
    )
  })

  it('P4.11: with no approval channel at all, an unknown name is still UNKNOWN_TOOL, not the missing-channel DENIED', async () => {
    const { rt, seen } = asking()
    expectFailure(await run(rt, 'nope'), 'UNKNOWN_TOOL', 'unknown tool "nope"')
    expect(seen).toEqual(['pre nope', 'post UNKNOWN_TOOL'])
    expectFailure(
      await run(rt, 't'),
      'DENIED',
      'tool "t" requires approval, but there is no approval channel',
    )
  })

  it('P4.11, R4.2: a name restricted away from the call scope is not asked about; the scope still asks for what it offers', async () => {
    const { rt, seen } = asking(() => 'allowed-once')
    const scope = rt.scope()
    scope.restrict({ allow: ['u'] })
    expectFailure(await run(rt, 't', { scope }), 'UNKNOWN_TOOL', 'unknown tool "t"')
    expect(seen).toEqual(['pre t', 'post UNKNOWN_TOOL'])
    seen.length = 0
    expect(await run(rt, 'u', { scope })).toMatchObject({ isError: false, value: 'ok' })
    expect(seen).toEqual(['pre u', 'approver', 'guard', 'body', 'post ok'])
  })

  it('P4.11: run_code in a native scope is an unknown name too, and is not asked about', async () => {
    const { rt, seen } = asking(() => 'allowed-once')
    expectFailure(
      await run(rt, 'run_code', { arguments: { code: '1' } }),
      'UNKNOWN_TOOL',
      'unknown tool "run_code"',
    )
    expect(seen).toEqual(['pre run_code', 'post UNKNOWN_TOOL'])
  })

  it('P4.11: a pre-execute deny of an unknown name still denies (policy runs first)', async () => {
    const rt = createToolRuntime({ approver: () => 'allowed-once' })
    rt.onPreExecute(async () => ({ kind: 'deny', reason: 'never' }))
    expectFailure(await run(rt, 'ghost'), 'DENIED', 'tool "ghost" denied by pre-execute policy: never')
  })

  it('P4.12, R4.3: a tool removed while its ask is pending keeps the answer: allowed-once fails UNKNOWN_TOOL at dispatch, rejected is DENIED; no body runs', async () => {
    for (const [answer, code] of [
      ['allowed-once', 'UNKNOWN_TOOL'],
      ['rejected', 'DENIED'],
    ] as const) {
      const gate = deferred<ApprovalOutcome>()
      const seen: string[] = []
      const rt = createToolRuntime({ approver: () => note(seen, 'approver', gate.promise) })
      const off = rt.register(rawTool('t', { execute: async () => note(seen, 'body', 'ok') }))
      rt.onPreExecute(async () => ({ kind: 'ask' }))
      const pending = run(rt, 't')
      await expect.poll(() => seen).toEqual(['approver'])
      off()
      gate.resolve(answer)
      expectFailure(await pending, code)
      expect(seen).toEqual(['approver'])
    }
  })

  it('P4.11, X4.1: a Code Mode sub-call whose tool left the view during the run fails UNKNOWN_TOOL in the program, asking nobody', async () => {
    let approverCalls = 0
    const rt = createToolRuntime({
      mode: 'code',
      codeRuntime: sandbox,
      approver: () => {
        approverCalls++
        return 'allowed-once'
      },
    })
    const paid: string[] = []
    const off = rt.register(rawTool('pay', { execute: async () => note(paid, 'pay', 'paid') }))
    rt.register(rawTool('drop', { execute: async () => after(off, 'dropped') }))
    rt.onPreExecute(async (exec, next) => (exec.name === 'pay' ? { kind: 'ask', reason: 'money' } : next()))
    const code = `await tools.drop({})
      try {
        await tools.pay({ n: 1 })
        return 'paid'
      } catch (e) {
        return [e.code, e.message]
      }`
    const result = await run(rt, RUN_CODE, { arguments: { code, description: 'pay after drop' } })
    expect(result).toMatchObject({
      isError: false,
      value: { result: ['UNKNOWN_TOOL', 'unknown tool "pay"'] },
    })
    expect(approverCalls).toBe(0)
    expect(paid).toEqual([])
  })
})
