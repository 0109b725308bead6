/**
 * The always-on invariants of one execution (V1.1–V1.3). A breach throws a `ToolError`
 * `INVARIANT` (`invariant violated: <what>`) that the pipeline never turns into a result:
 * stage code rethrows it wherever it would otherwise contain a throw.
 */

import { contentProblem } from '../contract/content-checks.js'
import type { Execution } from '../contract/execution.js'
import type { ToolResult } from '../contract/result.js'
import { invariantError, type ToolError } from '../foundation/errors.js'
import { frozenJsonProblem } from '../foundation/frozen.js'

const breaches = new WeakSet<object>()

/** Throws the `INVARIANT` error for `what`, marked so no stage converts it into a result. */
export function breach(what: string): never {
  const error: ToolError = invariantError(what)
  breaches.add(error)
  throw error
}

/** True iff `error` is a breach thrown by `breach` (it must propagate, never be contained). */
export function isBreach(error: unknown): boolean {
  return typeof error === 'object' && error !== null && breaches.has(error)
}

/** The stages of one execution in their only possible order (V1.2). */
export const Stage = {
  entry: 0,
  pre: 1,
  approval: 2,
  guards: 3,
  around: 4,
  post: 5,
  finalize: 6,
  observe: 7,
} as const

/** One of the `Stage` numbers. */
export type StageNumber = (typeof Stage)[keyof typeof Stage]

/** Why the stage log may not enter a stage yet, or `undefined` when it may (V1.2). */
type Unmet = (log: StageLog) => string | undefined

/**
 * Each stage after entry: its name in the out-of-order breach and what must hold before it is
 * entered — approval needs an `ask`, guards an `allow`, the around stage the guards, and the
 * observers the finalizer.
 */
const ENTRY_RULES: Readonly<
  Record<Exclude<StageNumber, 0>, { readonly name: string; readonly unmet?: Unmet }>
> = {
  [Stage.pre]: { name: 'pre-execute' },
  [Stage.approval]: {
    name: 'approval',
    unmet: (log) => (log.asked ? undefined : 'approval consulted without an ask decision'),
  },
  [Stage.guards]: {
    name: 'guards',
    unmet: (log) => (log.allowed ? undefined : 'guards ran without an allow decision'),
  },
  [Stage.around]: {
    name: 'around stage',
    unmet: (log) => at(log, Stage.guards, 'around stage entered before the guards ran'),
  },
  [Stage.post]: { name: 'post-execute' },
  [Stage.finalize]: { name: 'finalizeContent' },
  [Stage.observe]: {
    name: 'observers',
    unmet: (log) => at(log, Stage.finalize, 'observers ran before the finalizer stage'),
  },
}

/** `breachWhenNot` unless the log stands exactly at `stage`. */
function at(log: StageLog, stage: StageNumber, breachWhenNot: string): string | undefined {
  return log.stage === stage ? undefined : breachWhenNot
}

/**
 * The stage log of one execution (V1.2): stages only move forward, so each runs at most
 * once and in order, each entered only when its rule in `ENTRY_RULES` holds; a body runs
 * only inside the around stage, and a result is published only after the observers.
 */
export class StageLog {
  /** The last stage entered. */
  stage: StageNumber = Stage.entry
  /** The pre-execute decision was `ask`. */
  asked = false
  /** The decision after pre-execute and approval was `allow`. */
  allowed = false

  /** Enters `to`, or breaches when its rule does not hold or `to` was already reached. */
  enter(to: Exclude<StageNumber, 0>): void {
    const rule = ENTRY_RULES[to]
    const unmet = rule.unmet?.(this)
    if (unmet !== undefined) breach(unmet)
    if (this.stage >= to) breach(`${rule.name} out of order (stage ${this.stage} already reached)`)
    this.stage = to
  }

  /** Post-execute runs only for post-results (P13), and then as `enter(Stage.post)`. */
  enterPost(isPostResult: boolean): void {
    if (!isPostResult) breach('post-execute ran for a final-result')
    this.enter(Stage.post)
  }

  /** A body runs only inside the around stage (that is, inside a `next()` call). */
  assertBody(): void {
    if (this.stage !== Stage.around) breach('a tool body ran outside the around stage')
  }

  /** A result is published only after the observers ran. */
  assertPublishing(): void {
    if (this.stage !== Stage.observe) breach('a result was published before the observers ran')
  }
}

const RESULT_KEYS = new Set([
  'provenance',
  'isError',
  'value',
  'error',
  'content',
  'meta',
  'additionalContexts',
  'concludesTurn',
])

/**
 * V1.3: throws `INVARIANT` unless the execution is frozen with string `name` and non-empty
 * `callId`, and the result is deep-frozen lossless JSON of the O1.1 shape (`error` iff
 * `isError`, with `info`; `value` only on success; content blocks).
 */
export function assertPublishable(exec: Execution, result: ToolResult): void {
  if (!Object.isFrozen(exec)) breach('the execution is not frozen')
  if (typeof exec.name !== 'string') breach('the execution name is not a string')
  if (typeof exec.callId !== 'string' || exec.callId === '')
    breach('the execution callId is not a non-empty string')
  const problem = frozenJsonProblem(result)
  if (problem !== undefined) breach(`the result ${problem}`)
  if (result === null || typeof result !== 'object' || Array.isArray(result))
    breach('the result is not an object')
  for (const key of Object.keys(result))
    if (!RESULT_KEYS.has(key)) breach(`the result has the unknown key "${key}"`)
  const contentIssue = contentProblem(result.content as never)
  if (contentIssue !== undefined) breach(`the result content ${contentIssue}`)
  if (result.isError === true) {
    const error = result.error as { message?: unknown; info?: { name?: unknown; code?: unknown } } | undefined
    if (error === undefined || typeof error.message !== 'string') breach('a failure has no error message')
    const info = error.info
    if (info === undefined || typeof info.name !== 'string' || info.name === '')
      breach('a failure has no info.name')
    if (typeof info.code !== 'string' || info.code === '') breach('a failure has no info.code')
    if ('value' in result) breach('a failure carries a value')
    if ('concludesTurn' in result) breach('a failure carries concludesTurn')
  } else if (result.isError === false) {
    if ('error' in result) breach('a success carries an error')
    if (!('value' in result)) breach('a success has no value')
    if ('concludesTurn' in result && result.concludesTurn !== true) breach('concludesTurn is not true')
  } else {
    breach('the result has no boolean isError')
  }
}
