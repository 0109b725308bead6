/**
 * The draws the seams model test's commands share (V1.9, V1.11, V1.14): flags, crashes, and how
 * a turn's agent answers forms, the server's requests and its asks.
 */
import fc from 'fast-check'
import type { CrashPlan } from './crash-store.js'
import type { FormAnswer } from './seams-tools.js'
import type { AgentPlan } from './seams-world.js'

/** True about one time in `n`; shrinks to false, so a counterexample keeps only the flags it needs. */
export const oneIn = (n: number) => fc.integer({ min: 1, max: n }).map((k) => k === n)

/** How the turn's agent answers forms, the server's requests and its asks (AgentPlan's fields). */
export type Answers = Pick<AgentPlan, 'approver' | 'expiryMs' | 'sampling' | 'serverForm' | 'form'>

/** How a form is answered (`'throw'`: the handler fails). */
const formAnswer = fc.constantFrom<FormAnswer>('accept', 'decline', 'cancel', 'throw')
/**
 * The agent's answers: durable asks (one in two expiring in 40 ms) or, one turn in four, an
 * in-process approver; the sampler's policy; the server's forms by a handler or the approver.
 */
export const answers: fc.Arbitrary<Answers> = fc
  .record({
    approver: fc.option(fc.constantFrom<'allowed-once' | 'rejected'>('allowed-once', 'rejected'), {
      nil: undefined,
      freq: 3,
    }),
    expiring: oneIn(2),
    sampling: fc.constantFrom<'ask' | 'allow' | 'deny'>('allow', 'ask', 'deny'),
    serverForm: fc.oneof(formAnswer, fc.constant<'approver'>('approver')),
    form: formAnswer,
  })
  .map(({ expiring, approver, ...rest }) => ({
    ...rest,
    ...(approver === undefined ? (expiring ? { expiryMs: 40 } : {}) : { approver }),
  }))

/** One process in three dies, at any of its first 14 durable writes. */
export const crash: fc.Arbitrary<CrashPlan | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: fc.record({ at: fc.integer({ min: 1, max: 14 }), written: fc.boolean() }), weight: 1 },
)
