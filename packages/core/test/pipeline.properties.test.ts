/**
 * Property tests over random hook behaviour (P2.1, P11.3, P12.2, C1.1, E1.1, V1.3): every
 * handler kind randomly allows, denies, asks, throws hostile values, returns malformed
 * decisions, calls next() zero, one or several times, awaits, and the caller aborts at a
 * random moment.
 */
import { createToolRuntime, isLosslessJson, type RunContext, ToolError, type ToolResult } from '@tooltx/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trapping } from './hostile-values.js'
import { isDeepFrozen } from './pipeline.fixtures.js'

/** A Proxy whose every trap throws. */
const hostileProxy = () => trapping(['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'])

const throwingGetter = () => ({
  get kind() {
    throw new Error('getter')
  },
  get isError() {
    throw new Error('getter')
  },
})

const rejecting = () => {
  const p = Promise.reject(new Error('rejected value'))
  p.catch(() => {})
  return p
}

/** Values a handler may throw. */
const THROWN = [
  () => new Error('plain error'),
  () => 'a string',
  () => hostileProxy(),
  () => new ToolError('CUSTOM_CODE', 'custom', { name: 'CustomError' }),
  () => ({
    get message() {
      throw new Error('no message')
    },
  }),
  () => undefined,
]

const PRE_RETURNS = [
  () => ({ kind: 'allow' }),
  () => ({ kind: 'deny', reason: 'policy' }),
  () => ({ kind: 'ask', reason: 'sure?' }),
  () => ({ kind: 'deny' }),
  () => ({ kind: 'nope' }),
  () => ({ kind: 'allow', extra: 1 }),
  hostileProxy,
  throwingGetter,
  () => null,
  () => 'allow',
  rejecting,
]

const GUARD_RETURNS = [
  () => undefined,
  () => undefined,
  () => 'guard says no',
  () => '',
  () => 0,
  hostileProxy,
  rejecting,
]

const WRAP_RETURNS = [
  () => ({ isError: false, value: { cached: true } }),
  () => ({ isError: true, error: { message: 'wrapped', info: { name: 'WrapError', code: 'WRAPPED' } } }),
  () => ({ isError: false, value: undefined }),
  () => ({ isError: 'yes' }),
  () => ({
    isError: true,
    error: { message: 'm', info: { name: 'N', code: 'C' } },
    meta: { d: new Date(0) },
  }),
  hostileProxy,
  throwingGetter,
  () => undefined,
]

const POST_RETURNS = [
  () => ({ kind: 'accept' }),
  () => ({ kind: 'accept', content: [{ type: 'text', text: 'replaced' }] }),
  () => ({ kind: 'accept', value: { replaced: true } }),
  () => ({ kind: 'accept', value: 1, content: [] }),
  () => ({ kind: 'block', feedback: [{ type: 'text', text: 'blocked' }] }),
  () => ({
    kind: 'accept',
    additionalContexts: [{ role: 'user', content: [{ type: 'text', text: 'ctx' }] }],
  }),
  () => ({ kind: 'accept', additionalContexts: [{ role: 'tool' }] }),
  hostileProxy,
  throwingGetter,
  () => 42,
]

const APPROVALS = [
  'allowed-once',
  'rejected',
  'cancelled',
  'unavailable',
  'maybe',
  'throw',
  'reject',
] as const

/** How one chained handler behaves. */
const chained = (returns: number) =>
  fc.record({
    nextCalls: fc.integer({ min: 0, max: 3 }),
    awaitNext: fc.boolean(),
    ticks: fc.integer({ min: 0, max: 3 }),
    outcome: fc.constantFrom('inner', 'value', 'throw'),
    value: fc.nat({ max: returns - 1 }),
    thrown: fc.nat({ max: THROWN.length - 1 }),
  })

type Chained = {
  nextCalls: number
  awaitNext: boolean
  ticks: number
  outcome: string
  value: number
  thrown: number
}

const scenario = fc.record({
  pre: fc.array(chained(PRE_RETURNS.length), { maxLength: 2 }),
  guards: fc.array(fc.record({ value: fc.nat({ max: GUARD_RETURNS.length - 1 }), throws: fc.boolean() }), {
    maxLength: 2,
  }),
  wrappers: fc.array(chained(WRAP_RETURNS.length), { maxLength: 2 }),
  post: fc.array(chained(POST_RETURNS.length), { maxLength: 2 }),
  observers: fc.array(fc.constantFrom('ok', 'throw', 'reject'), { maxLength: 2 }),
  approval: fc.constantFrom(...APPROVALS),
  body: fc.record({
    ticks: fc.integer({ min: 0, max: 3 }),
    outcome: fc.constantFrom('value', 'throw', 'bad-value', 'hostile-value'),
    defer: fc.boolean(),
    conclude: fc.boolean(),
  }),
  finalizer: fc.constantFrom('none', 'keep', 'replace', 'throw', 'invalid', 'promise'),
  abortAfter: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  args: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ bad: undefined })),
})

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

/** Runs a chained handler's behaviour: calls next() as told, then returns, throws, or passes the inner answer. */
async function behave(
  spec: Chained,
  next: () => Promise<unknown>,
  returns: (() => unknown)[],
): Promise<unknown> {
  const calls: Promise<unknown>[] = []
  for (let i = 0; i < spec.nextCalls; i++) {
    const p = next()
    p.catch(() => {})
    calls.push(p)
    if (spec.awaitNext) await p.catch(() => {})
  }
  await ticks(spec.ticks)
  if (spec.outcome === 'throw') throw THROWN[spec.thrown]!()
  if (spec.outcome === 'inner' && calls.length > 0) return calls[calls.length - 1]
  return returns[spec.value]!()
}

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})

describe('pipeline properties over random hook behaviour', () => {
  it('P2.1, P11.3, P12.2, C1.1, E1.1, V1.3: one frozen lossless result, finalizer once, observers once, bodies settled', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const counts = { finalizer: 0, observers: 0, bodiesStarted: 0, bodiesSettled: 0 }
        const rt = createToolRuntime({
          approver: async () => {
            await ticks(1)
            if (s.approval === 'throw') throw new Error('approver broke')
            if (s.approval === 'reject') return Promise.reject(new Error('approver rejected'))
            return s.approval as never
          },
          reportError: () => {},
        })
        rt.register({
          name: 't',
          description: 'property tool',
          parameters: { type: 'object' },
          output: {
            schema: {},
            render: (_a: unknown, v: unknown) => [{ type: 'text', text: JSON.stringify(v) }],
          },
          async execute(_args: unknown, run: RunContext) {
            counts.bodiesStarted++
            try {
              if (s.body.defer) run.deferContext('deferred by body')
              if (s.body.conclude) run.concludeTurn()
              await ticks(s.body.ticks)
              if (s.body.outcome === 'throw') throw THROWN[0]!()
              if (s.body.outcome === 'bad-value') return { n: Number.NaN } as never
              if (s.body.outcome === 'hostile-value') return hostileProxy() as never
              return { ok: true }
            } finally {
              counts.bodiesSettled++
            }
          },
          ...(s.finalizer === 'none'
            ? {}
            : {
                finalizeContent: () => {
                  counts.finalizer++
                  if (s.finalizer === 'throw') throw hostileProxy()
                  if (s.finalizer === 'replace') return [{ type: 'text', text: 'final' }]
                  if (s.finalizer === 'invalid') return [{ nope: 1 }] as never
                  if (s.finalizer === 'promise') return rejecting() as never
                  return undefined
                },
              }),
        })
        for (const spec of s.pre) rt.onPreExecute((_e, next) => behave(spec, next, PRE_RETURNS) as never)
        for (const g of s.guards) {
          rt.guard(() => {
            if (g.throws) throw THROWN[2]!()
            return GUARD_RETURNS[g.value]!() as never
          })
        }
        for (const spec of s.wrappers) rt.wrapExecute((_e, next) => behave(spec, next, WRAP_RETURNS) as never)
        for (const spec of s.post)
          rt.onPostExecute((_e, _r, next) => behave(spec, next, POST_RETURNS) as never)
        rt.onResult(() => {
          counts.observers++
        })
        for (const kind of s.observers) {
          rt.onResult(() => {
            if (kind === 'throw') throw hostileProxy()
            if (kind === 'reject') return Promise.reject(new Error('observer rejected'))
            return undefined
          })
        }
        const controller = new AbortController()
        if (s.abortAfter !== undefined) {
          const n = s.abortAfter
          void ticks(n).then(() => controller.abort(new Error('random abort')))
        }
        let settledCount = 0
        let result: ToolResult | undefined
        await rt
          .execute({ callId: 'call', name: 't', arguments: s.args, signal: controller.signal })
          .then((r) => {
            settledCount++
            result = r
            // A started body has settled before the result is published (C1.1).
            expect(counts.bodiesSettled).toBe(counts.bodiesStarted)
          })
        expect(settledCount).toBe(1)
        expect(isDeepFrozen(result)).toBe(true)
        expect(isLosslessJson(result)).toBe(true)
        expect(counts.observers).toBe(1)
        // The tool is visible at entry, so a finalizer runs exactly once.
        expect(counts.finalizer).toBe(s.finalizer === 'none' ? 0 : 1)
        if (result!.isError) {
          expect(typeof result!.error.info.name).toBe('string')
          expect(result!.error.info.name.length).toBeGreaterThan(0)
          expect(result!.error.info.code.length).toBeGreaterThan(0)
          expect('value' in result!).toBe(false)
        } else {
          expect('error' in result!).toBe(false)
        }
      }),
      { numRuns: 1000 },
    )
    // Let Node report any rejection nobody handled.
    await new Promise((r) => setTimeout(r, 20))
    expect(unhandled).toEqual([])
  }, 60_000)
})
