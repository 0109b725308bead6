/**
 * Checks for model-facing content (O1.2) and additional contexts (O1.3) at the trust
 * boundaries where hooks, bodies and wrappers hand them to the runtime. Every function is
 * total: hostile getters and Proxies become a reason, never an exception.
 */

import { errorMessage } from '../foundation/errors.js'
import { vouchFreeze } from '../foundation/frozen.js'
import { type JsonValue, snapshotJson } from '../foundation/lossless-json.js'
import { ownField } from '../foundation/own-field.js'
import type { AdditionalContext, ContentBlock, ContextSource } from './content.js'

/** A checked value or the reason it was refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string }

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Why a lossless JSON value is not an array of content blocks, or `undefined` when it is. */
export function contentProblem(value: JsonValue): string | undefined {
  if (!Array.isArray(value)) return 'is not an array'
  for (let i = 0; i < value.length; i++) {
    const block = value[i]
    if (block === null || typeof block !== 'object' || Array.isArray(block)) return `[${i}] is not an object`
    const type = ownField(block, 'type')
    if (typeof type !== 'string' || type === '') return `[${i}].type is not a non-empty string`
    if (type === 'text' && typeof ownField(block, 'text') !== 'string') return `[${i}].text is not a string`
    if (type === 'image') {
      const mediaType = ownField(block, 'mediaType')
      const data = ownField(block, 'data')
      if (typeof mediaType !== 'string' || mediaType === '')
        return `[${i}].mediaType is not a non-empty string`
      if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
        return `[${i}].data is not base64`
      }
    }
  }
  return undefined
}

/** Snapshots (frozen) `raw` and checks it is lossless JSON; `what` names it in the reason. */
export function snapshotFrozen(raw: unknown, what: string): Checked<JsonValue> {
  try {
    const snap = snapshotJson(raw, { freeze: true, root: what })
    return snap.ok
      ? { ok: true, value: snap.value }
      : { ok: false, reason: `${what} is not lossless JSON (${snap.reason})` }
  } catch (error) {
    return { ok: false, reason: `reading ${what} failed: ${errorMessage(error)}` }
  }
}

/** A frozen snapshot of `raw` if it is a lossless array of content blocks. */
export function checkContent(raw: unknown, what: string): Checked<readonly ContentBlock[]> {
  const snap = snapshotFrozen(raw, what)
  if (!snap.ok) return snap
  const problem = contentProblem(snap.value)
  return problem === undefined
    ? { ok: true, value: snap.value as unknown as readonly ContentBlock[] }
    : { ok: false, reason: `${what}${problem.startsWith('[') ? '' : ' '}${problem}` }
}

/**
 * Checks one user message `{ role: 'user', content, source? }` already snapshotted and
 * frozen; a missing `source` becomes `defaultSource`. Returns the frozen context.
 */
function asContext(value: JsonValue, what: string, defaultSource: ContextSource): Checked<AdditionalContext> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: `${what} is not a user message object` }
  }
  for (const key of Object.keys(value)) {
    if (key !== 'role' && key !== 'content' && key !== 'source') {
      return { ok: false, reason: `${what} has the unknown key "${key}"` }
    }
  }
  if (ownField(value, 'role') !== 'user') return { ok: false, reason: `${what}.role is not "user"` }
  const content = ownField(value, 'content') as JsonValue | undefined
  const problem = content === undefined ? 'is missing' : contentProblem(content)
  if (problem !== undefined)
    return { ok: false, reason: `${what}.content${problem.startsWith('[') ? '' : ' '}${problem}` }
  const source = ownField(value, 'source')
  if (source === undefined) {
    return {
      ok: true,
      value: vouchFreeze({
        role: 'user',
        content: content as unknown as ContentBlock[],
        source: defaultSource,
      }),
    }
  }
  if (source === null || typeof source !== 'object' || Array.isArray(source)) {
    return { ok: false, reason: `${what}.source is not an object` }
  }
  return { ok: true, value: value as unknown as AdditionalContext }
}

/**
 * Snapshots a list of additional contexts (post-execute decisions, wrapper results).
 * `undefined` is no contexts. Each item must be a lossless user message; a missing
 * `source` becomes `defaultSource` (a frozen object).
 */
export function checkContexts(
  raw: unknown,
  what: string,
  defaultSource: ContextSource,
): Checked<readonly AdditionalContext[] | undefined> {
  if (raw === undefined) return { ok: true, value: undefined }
  const snap = snapshotFrozen(raw, what)
  if (!snap.ok) return snap
  const list = snap.value
  if (!Array.isArray(list)) return { ok: false, reason: `${what} is not an array` }
  if (list.length === 0) return { ok: true, value: undefined }
  let out: AdditionalContext[] | undefined
  for (let i = 0; i < list.length; i++) {
    const checked = asContext(list[i]!, `${what}[${i}]`, defaultSource)
    if (!checked.ok) return checked
    if (checked.value !== (list[i] as unknown)) {
      out ??= list.slice(0, i) as unknown as AdditionalContext[]
    }
    out?.push(checked.value)
  }
  return {
    ok: true,
    value: out === undefined ? (list as unknown as AdditionalContext[]) : vouchFreeze(out),
  }
}

/**
 * Checks one deferred message (P8.4): a string is one text block, an object is
 * `{ content, source? }`. Returns the frozen context or why it was refused.
 */
export function checkDeferred(raw: unknown, defaultSource: ContextSource): Checked<AdditionalContext> {
  if (typeof raw === 'string') {
    return {
      ok: true,
      value: vouchFreeze({
        role: 'user',
        content: vouchFreeze([Object.freeze({ type: 'text', text: raw })]) as unknown as ContentBlock[],
        source: defaultSource,
      }),
    }
  }
  const snap = snapshotFrozen(raw, 'message')
  if (!snap.ok) return snap
  const value = snap.value
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'message is neither a string nor { content, source? }' }
  }
  for (const key of Object.keys(value)) {
    if (key !== 'content' && key !== 'source')
      return { ok: false, reason: `message has the unknown key "${key}"` }
  }
  const withRole = vouchFreeze({ role: 'user', ...value }) as JsonValue
  return asContext(withRole, 'message', defaultSource)
}

/** Concatenates two frozen context lists, keeping `undefined` for "none" (O1.4). */
export function joinContexts(
  first: readonly AdditionalContext[] | undefined,
  second: readonly AdditionalContext[] | undefined,
): readonly AdditionalContext[] | undefined {
  if (first === undefined || first.length === 0) return second
  if (second === undefined || second.length === 0) return first
  return vouchFreeze([...first, ...second])
}
