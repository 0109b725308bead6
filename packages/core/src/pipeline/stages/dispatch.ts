/**
 * The dispatch stage (P6): the wrapExecute (around) chain over the base dispatch. Each wrapper's
 * return is checked where it returns (P6.9–P6.12); every attempt a wrapper started is awaited
 * before the stage ends, so no started body is ever abandoned (C1.1).
 */

import { checkContent, checkContexts, snapshotFrozen } from '../../contract/content-checks.js'
import type { AnyToolDefinition } from '../../contract/definition.js'
import type { AroundExecution, AroundHandler } from '../../contract/hooks.js'
import type { ToolResult } from '../../contract/result.js'
import { codedError, errorMessage, readToolError } from '../../foundation/errors.js'
import type { JsonValue } from '../../foundation/lossless-json.js'
import { ownField } from '../../foundation/own-field.js'
import { type HookEntry, nextCovering } from '../../registry/hook-list.js'
import { appliesToOf } from '../applies-to.js'
import { createAroundExecution } from '../around-execution.js'
import type { Call, Outcome } from '../call.js'
import { final, post } from '../call.js'
import {
  aborted,
  abortedBeforeDispatch,
  failure,
  hookThrew,
  notSerializable,
  unknownTool,
} from '../failures.js'
import { isBreach, Stage } from '../invariants.js'
import { baseDispatch } from './body.js'
import { successFromValue } from './output.js'

const noop = () => {}

/**
 * The error a throwing wrapper travels as through outer `next()` calls (P6.2, P6.13): a
 * `ToolError` as it is, anything else as `HOOK_FAILED` `wrapExecute handler failed: <message>`.
 */
function asHookError(error: unknown): unknown {
  return readToolError(error) === undefined
    ? codedError('HOOK_FAILED', `wrapExecute handler failed: ${errorMessage(error)}`)
    : error
}

/**
 * Normalizes a result a wrapper authored (or brought from elsewhere), reading own fields
 * only (P1.10; a throwing getter makes the return invalid): a success is
 * re-resolved and passed through the output boundaries (P6.10), a failure is copied field by
 * field (P6.11). Returns the frozen result, or the `invalid value` detail (P6.12).
 */
function normalize(call: Call, returned: unknown): ToolResult | string {
  if (returned === null || typeof returned !== 'object' || Array.isArray(returned)) {
    return `expected a result object, got ${returned === null ? 'null' : Array.isArray(returned) ? 'an array' : typeof returned}`
  }
  try {
    const isError = ownField(returned, 'isError')
    if (isError === false) {
      const value = ownField(returned, 'value')
      const contexts = checkContexts(
        ownField(returned, 'additionalContexts'),
        'additionalContexts',
        call.contextSource(),
      )
      if (!contexts.ok) return contexts.reason
      const entry = call.resolve()
      if (entry === undefined) return unknownTool(call.name, contexts.value)
      // concludesTurn is dropped: only the attempt that ran a body can conclude (P6.10).
      return successFromValue(call, entry, value, contexts.value, false)
    }
    if (isError !== true) return 'isError must be a boolean'
    const error = ownField(returned, 'error')
    const info = error !== null && typeof error === 'object' ? ownField(error, 'info') : undefined
    const message = error !== null && typeof error === 'object' ? ownField(error, 'message') : undefined
    const name = info !== null && typeof info === 'object' ? ownField(info, 'name') : undefined
    const code = info !== null && typeof info === 'object' ? ownField(info, 'code') : undefined
    if (
      typeof message !== 'string' ||
      typeof name !== 'string' ||
      typeof code !== 'string' ||
      name === '' ||
      code === ''
    ) {
      return 'a failure needs error.message and error.info { name, code } as strings'
    }
    const rawContent = ownField(returned, 'content')
    const content = rawContent === undefined ? undefined : checkContent(rawContent, 'content')
    if (content !== undefined && !content.ok) return content.reason
    const contexts = checkContexts(
      ownField(returned, 'additionalContexts'),
      'additionalContexts',
      call.contextSource(),
    )
    if (!contexts.ok) return contexts.reason
    const rawMeta = ownField(returned, 'meta')
    let meta: JsonValue | undefined
    if (rawMeta !== undefined) {
      const snap = snapshotFrozen(rawMeta, 'meta')
      if (!snap.ok) return notSerializable('meta')
      meta = snap.value
    }
    return failure({ name, code }, message, contexts.value, content?.value, meta)
  } catch (error) {
    return `reading the result failed: ${errorMessage(error)}`
  }
}

/** One run of the around chain for one call. */
class AroundChain {
  private completed = false
  /**
   * Every result some `next()` of this execution resolved with (P6.9). A `Set`, not a
   * `WeakSet`: the chain lives for one execution, and a `WeakSet` add is far dearer on V8
   * (bench/pipeline.bench.ts, Pipeline hot-path mechanisms).
   */
  private readonly produced = new Set<object>()
  private readonly pending = new Set<Promise<unknown>>()

  constructor(
    private readonly call: Call,
    private readonly entries: readonly HookEntry<AroundHandler>[],
    private readonly view: AroundExecution,
  ) {}

  /** Runs the covering wrapper at `index` (or the base dispatch for -1) as one attempt. */
  async invoke(index: number): Promise<ToolResult> {
    if (index < 0) return baseDispatch(this.call, this.view.signal)
    let returned: unknown
    try {
      returned = await this.entries[index]!.fn(this.view, this.nextAfter(index))
    } catch (error) {
      if (isBreach(error)) throw error
      throw asHookError(error)
    }
    if (typeof returned === 'object' && returned !== null && this.produced.has(returned)) {
      return returned as ToolResult
    }
    const normalized = normalize(this.call, returned)
    if (typeof normalized === 'string') {
      throw codedError('HOOK_FAILED', `wrapExecute handler returned an invalid value: ${normalized}`)
    }
    return normalized
  }

  /** The `next` given to the wrapper at `index`: a fresh attempt of everything inward (P6.3). */
  private nextAfter(index: number): () => Promise<ToolResult> {
    return () => {
      if (this.completed) {
        const late = Promise.reject(
          codedError('HOOK_FAILED', 'wrapExecute next() called after the around stage completed'),
        )
        late.catch(noop)
        return late
      }
      const attempt = this.invoke(nextCovering(this.entries, index + 1, this.call.record)).then((result) => {
        this.produced.add(result)
        return result
      })
      this.pending.add(attempt)
      const done = () => this.pending.delete(attempt)
      attempt.then(done, done)
      return attempt
    }
  }

  /** Marks the stage completed (P6.5) and waits for every attempt still running (C1.1, P1.7). */
  async close(): Promise<void> {
    this.completed = true
    while (this.pending.size > 0) await Promise.allSettled([...this.pending])
  }
}

/**
 * True when every covering wrapper declares it does not act on the definition the call
 * resolves to (P7.10): each would just return `next()`, so the base dispatch runs directly.
 */
function noWrapperActs(call: Call, entries: readonly HookEntry<AroundHandler>[]): boolean {
  let resolved = false
  let def: AnyToolDefinition | undefined
  for (let i = nextCovering(entries, 0, call.record); i >= 0; i = nextCovering(entries, i + 1, call.record)) {
    const appliesTo = appliesToOf(entries[i]!.fn)
    if (appliesTo === undefined) return false
    if (!resolved) {
      def = call.resolve()?.def
      resolved = true
    }
    if (appliesTo(def)) return false
  }
  return true
}

/**
 * Runs the around stage. A wrapper that throws or returns an invalid value, escaping the
 * outermost wrapper, is the final-result `HOOK_FAILED` (P6.12, P6.13); any well-formed
 * result is a post-result (P6.14), and a success overtaken by the caller's abort gives way
 * to `ABORTED` or `ABORTED_BEFORE_DISPATCH` with its contexts (P6.15).
 */
export function dispatch(call: Call): Promise<Outcome> {
  call.enter(Stage.around)
  const entries = call.core.around.entries
  // Without a wrapper that would act, the base dispatch runs directly, skipping the chain's
  // view, bookkeeping and promise layers (bench/pipeline.bench.ts, no hooks).
  if (noWrapperActs(call, entries)) {
    return baseDispatch(call, call.signal).then((result) => aroundOutcome(call, result))
  }
  return runAroundChain(call, entries)
}

/** Runs the wrapExecute chain, then waits for every attempt a wrapper started (C1.1). */
async function runAroundChain(call: Call, entries: readonly HookEntry<AroundHandler>[]): Promise<Outcome> {
  const chain = new AroundChain(call, entries, createAroundExecution(call))
  let result: ToolResult
  try {
    result = await chain.invoke(nextCovering(entries, 0, call.record))
  } catch (error) {
    if (isBreach(error)) throw error
    await chain.close()
    return final(hookThrew('wrapExecute', error))
  }
  await chain.close()
  return aroundOutcome(call, result)
}

/** The result the around chain returned, checked against the caller's signal (P6.15). */
function aroundOutcome(call: Call, result: ToolResult): Outcome {
  if (!result.isError && call.signal.aborted) {
    const contexts = result.additionalContexts
    return post(call.bodyInvoked ? aborted(contexts) : abortedBeforeDispatch(contexts))
  }
  return post(result)
}
