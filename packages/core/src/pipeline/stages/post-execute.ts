/**
 * Post-execute (P10): a middleware chain over every post-result that may accept it, replace
 * its value OR its content, or block it.
 */
import type { ContentBlock } from '../../contract/content.js'
import { checkContent, checkContexts, joinContexts } from '../../contract/content-checks.js'
import type { PostDecision, PostExecuteHandler } from '../../contract/hooks.js'
import type { ToolResult } from '../../contract/result.js'
import { errorMessage } from '../../foundation/errors.js'
import { type HookEntry, nextCovering } from '../../registry/hook-list.js'
import type { Call } from '../call.js'
import { runChain } from '../chain.js'
import { coded, errorContent, failure, hookInvalid, hookThrew, unknownTool } from '../failures.js'
import { isBreach } from '../invariants.js'
import { labelled } from './body.js'
import { successFromValue } from './output.js'

const ACCEPT: PostDecision = Object.freeze({ kind: 'accept' })
const ACCEPT_KEYS = new Set(['kind', 'value', 'content', 'additionalContexts'])
const BLOCK_KEYS = new Set(['kind', 'feedback', 'additionalContexts'])

/** The BLOCKED message (P10.12): feedback text joined by `\n`, other blocks as `[<type> content]`. */
function blockMessage(feedback: readonly ContentBlock[] | undefined): string {
  const text = (feedback ?? [])
    .map((block) => (block.type === 'text' ? (block as { text: string }).text : `[${block.type} content]`))
    .join('\n')
  return text === '' ? 'tool result blocked by post-execute policy' : text
}

/** Applies the outermost handler's decision to `result` (P10.4–P10.13). */
function apply(call: Call, result: ToolResult, raw: unknown): ToolResult {
  const invalid = (detail: string) => hookInvalid('onPostExecute', detail)
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return invalid(
      `expected a decision object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`,
    )
  }
  // Read every key once; a key holding `undefined` counts as absent (P10.4).
  const fields = new Map<string, unknown>()
  try {
    for (const key of Object.keys(raw)) {
      const value = (raw as Record<string, unknown>)[key]
      if (value !== undefined) fields.set(key, value)
    }
  } catch (error) {
    return invalid(`reading the decision failed: ${errorMessage(error)}`)
  }
  const kind = fields.get('kind')
  if (kind !== 'accept' && kind !== 'block') {
    return invalid(
      `kind must be "accept" or "block", got ${typeof kind === 'string' ? JSON.stringify(kind) : typeof kind}`,
    )
  }
  const allowed = kind === 'accept' ? ACCEPT_KEYS : BLOCK_KEYS
  for (const key of fields.keys())
    if (!allowed.has(key)) return invalid(`unknown key "${key}" in a ${kind} decision`)
  const contexts = checkContexts(fields.get('additionalContexts'), 'additionalContexts', call.contextSource())
  if (!contexts.ok) return invalid(contexts.reason)

  if (kind === 'block') {
    let feedback: readonly ContentBlock[] | undefined
    if (fields.has('feedback')) {
      const checked = checkContent(fields.get('feedback'), 'feedback')
      if (!checked.ok) return invalid(checked.reason)
      feedback = checked.value
    }
    const message = blockMessage(feedback)
    // Only the decision's contexts survive a block (P10.13).
    const content = feedback !== undefined && feedback.length > 0 ? feedback : errorContent(message)
    return failure({ name: 'ToolBlockedError', code: 'BLOCKED' }, message, contexts.value, content)
  }

  const hasValue = fields.has('value')
  const hasContent = fields.has('content')
  if (hasValue && hasContent)
    return coded('HOOK_FAILED', 'onPostExecute accept decision cannot replace both value and content')
  const joined = joinContexts(result.additionalContexts, contexts.value)
  if (hasValue) {
    if (result.isError)
      return coded('HOOK_FAILED', 'onPostExecute cannot replace the value of a failed result')
    const entry = call.resolve()
    if (entry === undefined) return unknownTool(call.name, joined)
    // The new value is labelled as the body's would be: a label function may read it (H1.3).
    return labelled(
      call,
      successFromValue(call, entry, fields.get('value'), joined, result.concludesTurn === true),
    )
  }
  if (hasContent) {
    const checked = checkContent(fields.get('content'), 'content')
    if (!checked.ok) return invalid(checked.reason)
    return withContexts({ ...result, content: checked.value }, joined)
  }
  return joined === result.additionalContexts ? result : withContexts({ ...result }, joined)
}

/** Freezes a copy of a result with its contexts replaced (absent when none, O1.4). */
function withContexts(copy: Record<string, unknown>, contexts: ToolResult['additionalContexts']): ToolResult {
  if (contexts === undefined) delete copy.additionalContexts
  else copy.additionalContexts = contexts
  return Object.freeze(copy) as unknown as ToolResult
}

/** True iff some post-execute handler covers the call. */
export function hasPostExecute(call: Call): boolean {
  return nextCovering(call.core.post.entries, 0, call.record) >= 0
}

/**
 * Runs the post-execute chain captured now over a post-result (P10.1, P10.2) and returns the
 * stage's outcome. A handler that throws, or a decision that is invalid, ends the stage
 * with `HOOK_FAILED` (P10.5–P10.7, P10.14). Without handlers the result passes unchanged, and
 * synchronously, so a call without post-execute hooks waits for nothing here.
 */
export function postProcess(call: Call, result: ToolResult): ToolResult | Promise<ToolResult> {
  const entries = call.core.post.entries
  const first = nextCovering(entries, 0, call.record)
  if (first < 0) return result
  return runPost(call, entries, first, result)
}

/** Runs the chain from the handler at `first` and applies the outermost decision. */
async function runPost(
  call: Call,
  entries: readonly HookEntry<PostExecuteHandler>[],
  first: number,
  result: ToolResult,
): Promise<ToolResult> {
  call.enterPost(true)
  let raw: unknown
  try {
    raw = await runChain(entries, first, call.record, (fn, next) => fn(call.exec, result, next), ACCEPT)
  } catch (error) {
    if (isBreach(error)) throw error
    return hookThrew('onPostExecute', error)
  }
  return apply(call, result, raw)
}
