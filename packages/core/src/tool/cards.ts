/**
 * Cards (SPEC §U): the call and result views a UI shows for a tool call, built from what the
 * session log keeps (the raw argument string and the durable result) through the definition's
 * presenters, with a generic fallback whenever a presenter is missing, throws or returns
 * something that is not a known lossless view.
 */

import { contentProblem } from '../contract/content-checks.js'
import type { AnyToolDefinition } from '../contract/definition.js'
import { parseToolArguments } from '../contract/messages.js'
import type { CallView, DurableResult, ResultView } from '../contract/presentation.js'
import { deepFreeze, type JsonValue, snapshotJson } from '../foundation/lossless-json.js'

/**
 * The call card for a logged tool call (U1.3, U1.5, U1.7). `presentCall` receives the frozen
 * arguments parsed by `parseToolArguments`; with no definition, no presenter, a presenter that
 * returns `undefined`, throws, or returns anything but a lossless call view (`isCallView`), the
 * card is `{ card: 'generic', title: name, rawInput: rawArguments }`. The card is a deep-frozen
 * copy; this function never throws.
 */
export function callCard(def: AnyToolDefinition | undefined, name: string, rawArguments: string): CallView {
  const presented = present(def, { which: 'presentCall', rawArguments, rest: [], accept: isCallView })
  return presented ?? deepFreeze({ card: 'generic', title: name, rawInput: rawArguments })
}

/**
 * The result card for a logged tool result (U1.4, U1.6, U1.7). `presentResult` receives the
 * frozen parsed arguments and a frozen copy of only `{ content, isError, meta? }` from `durable`;
 * when it is missing, returns `undefined`, throws, or returns anything but a lossless result view
 * (`isResultView`), the card is `{ card: 'generic', title, content }` with the call card's title
 * and the durable content (left out if it is not valid content). The card is a deep-frozen copy;
 * this function never throws.
 */
export function resultCard(
  def: AnyToolDefinition | undefined,
  name: string,
  rawArguments: string,
  durable: DurableResult,
): ResultView {
  const checked = checkedDurable(durable)
  if (checked !== undefined) {
    const presented = present(def, {
      which: 'presentResult',
      rawArguments,
      rest: [checked],
      accept: isResultView,
    })
    if (presented !== undefined) return presented
  }
  const title = callCard(def, name, rawArguments).title
  const content = checked?.content ?? contentOf(durable)
  return deepFreeze(content === undefined ? { card: 'generic', title } : { card: 'generic', title, content })
}

/** Which presenter `present` calls, on what, and which views it takes. */
interface Presenting<V> {
  which: 'presentCall' | 'presentResult'
  /** The raw argument string, parsed by `parseToolArguments` for the presenter. */
  rawArguments: string
  /** The presenter's arguments after the parsed ones. */
  rest: unknown[]
  accept: (value: unknown) => value is V
}

/**
 * Calls `def[which](args, ...rest)` and returns a frozen copy of its view when `accept` takes
 * it; `undefined` for no presenter, an `undefined` return, a throw or a rejected view.
 */
function present<V>(def: AnyToolDefinition | undefined, presenting: Presenting<V>): V | undefined {
  const { which, rawArguments, rest, accept } = presenting
  try {
    if (def === undefined || def === null) return undefined
    const presenter: unknown = def[which]
    if (typeof presenter !== 'function') return undefined
    const args = deepFreeze(parseToolArguments(rawArguments))
    const returned: unknown = presenter.call(def, args, ...rest)
    if (returned === undefined) return undefined
    // Judge the copy, not the returned object, so a getter cannot pass the check and then change.
    const snap = snapshotJson(returned, { freeze: true })
    return snap.ok && accept(snap.value) ? snap.value : undefined
  } catch {
    return undefined
  }
}

/** A frozen `{ content, isError, meta? }` copy of the durable result, or `undefined` if it is malformed. */
function checkedDurable(durable: DurableResult): DurableResult | undefined {
  try {
    const raw: Record<string, unknown> = { content: durable.content, isError: durable.isError }
    const meta: unknown = durable.meta
    if (meta !== undefined) raw.meta = meta
    const snap = snapshotJson(raw, { freeze: true })
    if (!snap.ok) return undefined
    const copy = snap.value as unknown as DurableResult
    if (
      typeof copy.isError !== 'boolean' ||
      contentProblem(copy.content as unknown as JsonValue) !== undefined
    ) {
      return undefined
    }
    return copy
  } catch {
    return undefined
  }
}

/** The durable content alone, frozen, when it is valid content (the fallback's last resort). */
function contentOf(durable: DurableResult): DurableResult['content'] | undefined {
  try {
    const snap = snapshotJson(durable.content, { freeze: true })
    if (!snap.ok || contentProblem(snap.value) !== undefined) return undefined
    return snap.value as unknown as DurableResult['content']
  } catch {
    return undefined
  }
}

type Shape = Record<string, (value: unknown) => boolean>

const isString = (v: unknown): boolean => typeof v === 'string'
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v)
const isBoolean = (v: unknown): boolean => typeof v === 'boolean'
const isNullableString = (v: unknown): boolean => v === null || typeof v === 'string'
const isContent = (v: unknown): boolean => v !== undefined && contentProblem(v as JsonValue) === undefined
const literal =
  (expected: string) =>
  (v: unknown): boolean =>
    v === expected
const listOf =
  (item: (value: unknown) => boolean) =>
  (v: unknown): boolean =>
    Array.isArray(v) && v.every(item)
const CALL_KINDS = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'other'])
const isKind = (v: unknown): boolean => typeof v === 'string' && CALL_KINDS.has(v)

/** True iff `v` is a plain object whose keys are all in `required` or `optional` and match them. */
function matches(v: unknown, required: Shape, optional: Shape = {}): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const record = v as Record<string, unknown>
  for (const key of Object.keys(required)) if (!Object.hasOwn(record, key)) return false
  for (const key of Object.keys(record)) {
    const check = Object.hasOwn(required, key)
      ? required[key]
      : Object.hasOwn(optional, key)
        ? optional[key]
        : undefined
    if (check === undefined || !check(record[key])) return false
  }
  return true
}

const shape =
  (required: Shape, optional?: Shape) =>
  (v: unknown): boolean =>
    matches(v, required, optional)

const isLocation = shape({ path: isString }, { line: isNumber })
const isDiff = shape({ path: isString, oldText: isNullableString, newText: isString })

const CALL_VIEWS: ((v: unknown) => boolean)[] = [
  shape(
    { card: literal('generic'), title: isString },
    { kind: isKind, rawInput: isString, content: isContent, locations: listOf(isLocation) },
  ),
  shape({ card: literal('terminal'), title: isString }, { description: isString, cwd: isString }),
  shape({ card: literal('diff'), title: isString, diffs: listOf(isDiff) }, { locations: listOf(isLocation) }),
]

const RESULT_VIEWS: ((v: unknown) => boolean)[] = [
  shape({ card: literal('generic') }, { title: isString, content: isContent }),
  shape(
    { card: literal('terminal') },
    { title: isString, output: isString, exitCode: isNumber, signal: isString },
  ),
  shape({ card: literal('diff'), diffs: listOf(isDiff) }, { title: isString }),
  shape({
    card: literal('search'),
    shape: literal('matches'),
    files: listOf(shape({ path: isString, matches: listOf(shape({ line: isNumber, text: isString })) })),
    truncated: isBoolean,
    total: isNumber,
  }),
  shape({
    card: literal('search'),
    shape: literal('paths'),
    paths: listOf(isString),
    truncated: isBoolean,
    total: isNumber,
  }),
  shape(
    {
      card: literal('read'),
      path: isString,
      offset: isNumber,
      lines: listOf(shape({ number: isNumber, text: isString })),
      totalLines: isNumber,
    },
    { lang: isString, content: isContent },
  ),
  shape(
    {
      card: literal('web'),
      kind: literal('search'),
      sources: listOf(shape({ url: isString }, { title: isString })),
      truncated: isBoolean,
    },
    { answer: isString },
  ),
  shape({
    card: literal('web'),
    kind: literal('fetch'),
    url: isString,
    statusCode: isNumber,
    truncated: isBoolean,
  }),
]

/**
 * True iff `value` is lossless JSON with exactly the shape of one call view of U1.1 (no unknown
 * keys, `kind` from the closed list, content blocks as in O1.2). Total: never throws.
 */
export function isCallView(value: unknown): value is CallView {
  return isKnownView(value, CALL_VIEWS)
}

/**
 * True iff `value` is lossless JSON with exactly the shape of one result view of U1.2 (no
 * unknown keys, content blocks as in O1.2). Total: never throws.
 */
export function isResultView(value: unknown): value is ResultView {
  return isKnownView(value, RESULT_VIEWS)
}

function isKnownView(value: unknown, views: ((v: unknown) => boolean)[]): boolean {
  try {
    // Shapes are checked on a copy, so hostile getters and Proxies cannot answer twice.
    const snap = snapshotJson(value)
    return snap.ok && views.some((matchesView) => matchesView(snap.value))
  } catch {
    return false
  }
}
