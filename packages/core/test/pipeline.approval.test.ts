import { createHash } from 'node:crypto'
import { type ApprovalOutcome, type ApprovalRequest, createToolRuntime } from '@tooltx/core'
import { askApprover, isApprovalOutcome } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { APPROVAL_OUTCOMES } from '../src/contract/approval-outcome.js'
import { canonicalJson } from '../src/foundation/arguments-digest.js'
import { deferred, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'

function setup(options: { approver?: (r: ApprovalRequest) => unknown; guard?: string } = {}) {
  const ran: string[] = []
  const rt = createToolRuntime(
    options.approver === undefined
      ? {}
      : { approver: options.approver as (r: ApprovalRequest) => ApprovalOutcome },
  )
  rt.register(rawTool('t', { execute: async () => note(ran, 'body', 'ok') }))
  rt.onPreExecute(async () => ({ kind: 'ask', reason: 'risky' }))
  if (options.guard !== undefined) rt.guard(() => options.guard)
  return { rt, ran }
}

const call = (rt: ReturnType<typeof createToolRuntime>, extra: object = {}) =>
  rt.execute({ callId: 'c', name: 't', arguments: { b: 1, a: [true, null] }, signal: live(), ...extra })

describe('P4 approval', () => {
  it('P4.1: the input approver wins over the runtime one; with neither, an ask is DENIED', async () => {
    const used: string[] = []
    const { rt } = setup({ approver: () => note(used, 'runtime', 'allowed-once') })
    await call(rt, { approver: () => note(used, 'input', 'allowed-once') })
    await call(rt)
    expect(used).toEqual(['input', 'runtime'])
    const bare = setup()
    expectFailure(
      await call(bare.rt),
      'DENIED',
      'tool "t" requires approval, but there is no approval channel',
    )
    expect(bare.ran).toEqual([])
  })

  it('P4.2: the approver is called once with the request fields and the caller signal', async () => {
    const requests: ApprovalRequest[] = []
    const { rt } = setup({ approver: (r) => note(requests, r, 'allowed-once') })
    const signal = live()
    const scope = rt.scope()
    await rt.execute({ callId: 'c', rootCallId: 'r', name: 't', arguments: { x: 1 }, signal, scope })
    expect(requests).toHaveLength(1)
    const request = requests[0]!
    expect(Object.keys(request)).toEqual([
      'callId',
      'rootCallId',
      'name',
      'arguments',
      'argumentsDigest',
      'reason',
      'scope',
      'signal',
    ])
    expect(request).toMatchObject({
      callId: 'c',
      rootCallId: 'r',
      name: 't',
      arguments: { x: 1 },
      reason: 'risky',
    })
    expect(request.signal).toBe(signal)
    expect(request.scope).toBe(scope)
  })

  it('P4.3: allowed-once proceeds to the guards, which can still deny; the grant covers one call', async () => {
    let asked = 0
    const { rt, ran } = setup({
      approver: () => {
        asked++
        return 'allowed-once'
      },
      guard: 'guard says no',
    })
    expectFailure(await call(rt), 'DENIED', 'tool "t" denied by guard: guard says no')
    await call(rt)
    expect([asked, ran.length]).toEqual([2, 0])
  })

  const denials: [title: string, outcome: ApprovalOutcome, message: string][] = [
    ['P4.4: rejected is DENIED with the user-rejected message', 'rejected', 'the user rejected tool "t"'],
    [
      'P4.5: cancelled is DENIED with the cancelled message',
      'cancelled',
      'approval for tool "t" was cancelled',
    ],
    [
      'P4.6: unavailable is DENIED with the unavailable message',
      'unavailable',
      'tool "t" requires approval, but the approval channel is unavailable',
    ],
  ]
  for (const [title, outcome, message] of denials) {
    it(title, async () => {
      expectFailure(await call(setup({ approver: () => outcome }).rt), 'DENIED', message)
    })
  }

  it('P4.10: expired is DENIED with the expiry message and the body never runs', async () => {
    const { rt, ran } = setup({ approver: () => 'expired' })
    expectFailure(await call(rt), 'DENIED', 'approval for tool "t" expired before anyone decided it')
    expect(ran).toEqual([])
  })

  it('P4.7: askApprover is the one normaliser: the four outcomes pass, anything else is unavailable', async () => {
    expect(APPROVAL_OUTCOMES).toEqual(['allowed-once', 'rejected', 'cancelled', 'unavailable', 'expired'])
    expect(Object.isFrozen(APPROVAL_OUTCOMES)).toBe(true)
    for (const outcome of APPROVAL_OUTCOMES) {
      expect(isApprovalOutcome(outcome)).toBe(true)
      expect(await askApprover(() => outcome, {})).toBe(outcome)
      expect(await askApprover(async () => outcome, {})).toBe(outcome)
    }
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (answer) => {
        fc.pre(!(APPROVAL_OUTCOMES as readonly unknown[]).includes(answer))
        expect(isApprovalOutcome(answer)).toBe(false)
        expect(await askApprover(() => answer, {})).toBe('unavailable')
      }),
    )
    const thrower = () => {
      throw new Error('x')
    }
    expect(await askApprover(thrower, {})).toBe('unavailable')
    expect(await askApprover(() => Promise.reject(new Error('y')), {})).toBe('unavailable')
  })

  it('P4.7: a throwing, rejecting or unknown answer counts as unavailable', async () => {
    for (const approver of [
      () => {
        throw new Error('x')
      },
      () => Promise.reject(new Error('y')),
      () => 'allowed',
      () => ({
        then: () => {
          throw new Error('hostile thenable')
        },
      }),
      () => undefined,
    ]) {
      const { rt, ran } = setup({ approver })
      expectFailure(
        await call(rt),
        'DENIED',
        'tool "t" requires approval, but the approval channel is unavailable',
      )
      expect(ran).toEqual([])
    }
  })

  it('P4.8: an abort while the approver is pending ends the call as ABORTED_BEFORE_DISPATCH at once', async () => {
    const answer = deferred<ApprovalOutcome>()
    let approverSignal: AbortSignal | undefined
    const { rt, ran } = setup({
      approver: (r) => {
        approverSignal = r.signal
        return answer.promise
      },
    })
    const controller = new AbortController()
    const pending = call(rt, { signal: controller.signal })
    await new Promise((r) => setTimeout(r, 5))
    controller.abort()
    expectFailure(await pending, 'ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch')
    expect(approverSignal?.aborted).toBe(true)
    answer.resolve('allowed-once')
    await new Promise((r) => setTimeout(r, 5))
    expect(ran).toEqual([])
  })

  it('P4.9: argumentsDigest is the lowercase hex SHA-256 of the sorted-key canonical JSON', async () => {
    const digests: string[] = []
    const { rt } = setup({ approver: (r) => note(digests, r.argumentsDigest, 'allowed-once') })
    await rt.execute({
      callId: 'c',
      name: 't',
      arguments: { b: 1, a: { d: 'é', c: [1, 2.5] } },
      signal: live(),
    })
    await rt.execute({
      callId: 'c',
      name: 't',
      arguments: { a: { c: [1, 2.5], d: 'é' }, b: 1 },
      signal: live(),
    })
    const expected = createHash('sha256').update('{"a":{"c":[1,2.5],"d":"é"},"b":1}').digest('hex')
    expect(digests).toEqual([expected, expected])
    expect(digests[0]).toMatch(/^[0-9a-f]{64}$/)
  })

  it('P4.9: canonical JSON equals sorted-key JSON.stringify for any JSON value', () => {
    const sortKeys = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sortKeys)
        : v !== null && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
            )
          : v
    fc.assert(
      fc.property(fc.jsonValue({ noUnicodeString: false }), (value) => {
        const clean = JSON.parse(JSON.stringify(value))
        expect(canonicalJson(clean)).toBe(JSON.stringify(sortKeys(clean)))
      }),
      { numRuns: 1000 },
    )
  })
})
