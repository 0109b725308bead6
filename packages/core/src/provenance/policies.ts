/**
 * Ready-made provenance policies (H5): pre-execute handlers that read `exec.provenance` and deny or
 * ask with the evidence in the reason, so the log and the approval prompt say why ("argument
 * recipient ("x@y.example") was copied from the result of read_email c12"). Each defers to the
 * inner chain when it has nothing to say, and a deny from either side wins over its own ask.
 */

import type { Execution } from '../contract/execution.js'
import type { PostExecuteHandler, PreDecision, PreExecuteHandler } from '../contract/hooks.js'
import type { ArgumentOrigin, ProvenanceSource } from '../contract/provenance.js'
import { definitionError } from '../foundation/errors.js'

/** What a policy does when it finds what it looks for. */
export type ProvenanceAction = 'deny' | 'ask'

/** Per tool, the argument names whose values may not come from untrusted results; `'*'` is all. */
export type ProtectedArguments = Readonly<Record<string, readonly string[] | '*'>>

/** The sources named in one piece of evidence before the rest is counted. */
const NAMED_SOURCES = 3

/** `read_email c12` for one source; a list names the first few and counts the rest. */
export function describeSources(sources: readonly ProvenanceSource[]): string {
  const named = sources.slice(0, NAMED_SOURCES).map((s) => `${s.tool} ${s.callId}`)
  const more = sources.length - named.length
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ')
}

/** `argument recipient ("x@y.example") was copied from the result of read_email c12` (H5.4). */
export function describeOrigin(origin: ArgumentOrigin, sources = origin.sources): string {
  const shown = origin.atom.length > 60 ? `${origin.atom.slice(0, 57)}...` : origin.atom
  const what = sources.length === 1 ? 'the result of' : 'the results of'
  return `argument ${origin.path || '(root)'} (${JSON.stringify(shown)}) was copied from ${what} ${describeSources(sources)}`
}

/** True iff `path` is the argument `name` or lies inside it. */
function within(path: string, name: string): boolean {
  return path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}[`)
}

function checkTools(what: string, tools: unknown): void {
  if (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string')) {
    throw definitionError(`${what} takes an array of tool names`)
  }
}

function checkAction(what: string, action: unknown): asserts action is ProvenanceAction {
  if (action !== 'deny' && action !== 'ask') throw definitionError(`${what} action must be 'deny' or 'ask'`)
}

/** Runs the inner chain; the inner deny wins, else this policy's own decision, else the inner one. */
async function stricter(
  own: PreDecision | undefined,
  next: () => Promise<PreDecision>,
): Promise<PreDecision> {
  const inner = await next()
  if (own === undefined || inner.kind === 'deny') return inner
  return own
}

/** The origins of a call's arguments whose sources include an untrusted (or confidential) result. */
function originsFrom(exec: Execution, keep: (source: ProvenanceSource) => boolean): ArgumentOrigin[] {
  const found: ArgumentOrigin[] = []
  for (const origin of exec.provenance?.arguments ?? []) {
    const sources = origin.sources.filter(keep)
    if (sources.length > 0) found.push({ ...origin, sources })
  }
  return found
}

const untrusted = (s: ProvenanceSource) => s.label.integrity === 'untrusted'
const confidential = (s: ProvenanceSource) => s.label.confidential === true

/**
 * Arguments that may not come from untrusted data (H5.1): for a call of a listed tool, any listed
 * argument holding a value found in an untrusted result of the context is denied (or asked) with
 * `untrusted data in <tool>'s arguments: <evidence>; …`. Throws `INVALID_DEFINITION` for rules
 * that are not an object of name arrays or `'*'`, or an unknown action.
 */
export function protectArguments(
  rules: ProtectedArguments,
  options: { readonly action?: ProvenanceAction } = {},
): PreExecuteHandler {
  const action = options.action ?? 'deny'
  checkAction('protectArguments', action)
  if (rules === null || typeof rules !== 'object')
    throw definitionError('protectArguments takes { tool: [argument names] | "*" }')
  const table = new Map<string, readonly string[] | '*'>()
  for (const [tool, names] of Object.entries(rules)) {
    if (names !== '*') checkTools(`protectArguments rule for "${tool}"`, names)
    table.set(tool, names === '*' ? '*' : Object.freeze([...names]))
  }
  return (exec, next) => {
    const names = table.get(exec.name)
    if (names === undefined || exec.provenance === undefined) return next()
    const hits = originsFrom(exec, untrusted).filter(
      (o) => names === '*' || names.some((name) => within(o.path, name)),
    )
    if (hits.length === 0) return next()
    const reason = `untrusted data in ${exec.name}'s arguments: ${hits.map((o) => describeOrigin(o)).join('; ')}`
    return stricter({ kind: action, reason }, next)
  }
}

/**
 * Consequential tools ask once the context holds untrusted data (H5.2): a call of a listed tool
 * whose `exec.provenance.untrusted` is true asks with `the context holds untrusted results
 * (<sources>)` followed by the argument evidence, if any. Throws `INVALID_DEFINITION` for a list
 * that is not of tool names.
 */
export function askWhenUntrusted(tools: readonly string[]): PreExecuteHandler {
  checkTools('askWhenUntrusted', tools)
  const listed = new Set(tools)
  return (exec, next) => {
    const provenance = exec.provenance
    if (!listed.has(exec.name) || provenance === undefined || !provenance.untrusted) return next()
    const sources = provenance.sources.filter(untrusted)
    const evidence = originsFrom(exec, untrusted).map((o) => `; ${describeOrigin(o)}`)
    const reason = `the context holds untrusted results (${describeSources(sources)})${evidence.join('')}`
    return stricter({ kind: 'ask', reason }, next)
  }
}

/**
 * No confidential data into a sink tool (H5.3): a call of a listed sink with an argument value
 * found in a confidential result is denied (or asked) with `confidential data would leave through
 * <tool>: <evidence>`. Throws `INVALID_DEFINITION` for a bad list or action.
 */
export function noConfidentialInto(
  sinks: readonly string[],
  options: { readonly action?: ProvenanceAction } = {},
): PreExecuteHandler {
  const action = options.action ?? 'deny'
  checkAction('noConfidentialInto', action)
  checkTools('noConfidentialInto', sinks)
  const listed = new Set(sinks)
  return (exec, next) => {
    if (!listed.has(exec.name) || exec.provenance?.confidential !== true) return next()
    const hits = originsFrom(exec, confidential)
    if (hits.length === 0) return next()
    const reason = `confidential data would leave through ${exec.name}: ${hits.map((o) => describeOrigin(o)).join('; ')}`
    return stricter({ kind: action, reason }, next)
  }
}

/**
 * Plan before data (H4.3): a post-execute handler that keeps untrusted text out of the model's
 * context. A model-direct result labelled untrusted (a `run_code` result whose program read one,
 * H4.2) reaches the model as `[withheld from the model: the result of <tool> <callId> holds
 * untrusted data]` instead of its content; its label and effects stand, and nested calls are left
 * alone, so a program written from the user's request alone still reads the data and the model
 * that planned never does. It replaces any value an inner handler put in place.
 */
export function withholdUntrusted(): PostExecuteHandler {
  return async (exec, result, next) => {
    const inner = await next()
    if (exec.parent !== undefined || result.provenance?.integrity !== 'untrusted' || inner.kind === 'block') {
      return inner
    }
    const text = `[withheld from the model: the result of ${exec.name} ${exec.callId} holds untrusted data]`
    const contexts = inner.additionalContexts
    return contexts === undefined
      ? { kind: 'accept', content: [{ type: 'text', text }] }
      : { kind: 'accept', content: [{ type: 'text', text }], additionalContexts: contexts }
  }
}
