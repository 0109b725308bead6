/**
 * The three output boundaries of a success value (P9): snapshot, `output.schema`, then
 * freeze and project to content (and, model-direct, to meta).
 */
import type { AdditionalContext } from '../../contract/content.js'
import { contentProblem } from '../../contract/content-checks.js'
import type { ToolResult, ToolSuccess } from '../../contract/result.js'
import { errorMessage } from '../../foundation/errors.js'
import { vouchFreeze } from '../../foundation/frozen.js'
import { type JsonValue, snapshotJson } from '../../foundation/lossless-json.js'
import type { Entry } from '../../registry/registry.js'
import type { Call } from '../call.js'
import { type AdditionalContexts, invalidOutput } from '../failures.js'

const FROZEN = { freeze: true } as const

type Projection = { ok: true; value: JsonValue | undefined } | { ok: false; violation: string }

/**
 * Calls a projector and snapshots its return; `what` names it in the violation. With
 * `optional`, an `undefined` return means "nothing" (P9.4).
 */
function project(what: string, fn: () => unknown, optional: boolean): Projection {
  let raw: unknown
  try {
    raw = fn()
  } catch (error) {
    return { ok: false, violation: `${what} failed: ${errorMessage(error)}` }
  }
  if (raw === undefined && optional) return { ok: true, value: undefined }
  try {
    const snap = snapshotJson(raw, FROZEN)
    return snap.ok
      ? { ok: true, value: snap.value }
      : { ok: false, violation: `${what} returned non-lossless JSON` }
  } catch (error) {
    return { ok: false, violation: `${what} failed: ${errorMessage(error)}` }
  }
}

/**
 * Turns a value returned for `entry` into a deep-frozen success (P9.1–P9.6), or into an
 * `INVALID_TOOL_OUTPUT` failure without `value` (P9.5). `contexts` are kept either way;
 * `concluded` adds `concludesTurn: true` to a success (P8.7).
 */
export function successFromValue(
  call: Call,
  entry: Entry,
  raw: unknown,
  contexts: AdditionalContexts,
  concluded: boolean,
): ToolResult {
  const { name } = call
  // Boundary 1: the snapshot.
  let value: JsonValue
  try {
    const snap = snapshotJson(raw, FROZEN)
    if (!snap.ok) return invalidOutput(name, ['value is not lossless JSON'], contexts)
    value = snap.value
  } catch (error) {
    return invalidOutput(name, [`value snapshot failed: ${errorMessage(error)}`], contexts)
  }
  // Boundary 2: the schema of the definition whose body ran.
  const violations = entry.validateOutput(value, 'value')
  if (violations.length > 0) return invalidOutput(name, violations, contexts)
  // Boundary 3: projections of the frozen arguments and value.
  const { output } = entry.def
  const args = call.exec.arguments
  const content = project('output.render', () => output.render(args, value), false)
  if (!content.ok) return invalidOutput(name, [content.violation], contexts)
  if (content.value === undefined || contentProblem(content.value) !== undefined) {
    return invalidOutput(name, ['output.render must return an array of content blocks'], contexts)
  }
  let meta: JsonValue | undefined
  if (call.exec.parent === undefined && output.presentationMeta !== undefined) {
    const presentationMeta = output.presentationMeta
    const projected = project('output.presentationMeta', () => presentationMeta(args, value), true)
    if (!projected.ok) return invalidOutput(name, [projected.violation], contexts)
    meta = projected.value
  }
  const success: {
    isError: false
    value: JsonValue
    content: ToolSuccess['content']
    meta?: JsonValue
    additionalContexts?: readonly AdditionalContext[]
    concludesTurn?: true
  } = { isError: false, value, content: content.value as unknown as ToolSuccess['content'] }
  if (meta !== undefined) success.meta = meta
  if (contexts !== undefined && contexts.length > 0) success.additionalContexts = contexts
  if (concluded) success.concludesTurn = true
  // Built from the frozen snapshots checked above, so the V1.3 walk may skip it.
  return vouchFreeze(success)
}
