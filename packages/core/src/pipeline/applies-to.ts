/**
 * A wrapper's declaration of the definitions it acts on (P7.10). A wrapper that declares
 * `appliesTo` promises to return `next()` unchanged for every other definition, so when no
 * covering wrapper applies to the definition a call resolves to, the around stage runs the
 * base dispatch directly.
 */
import type { AnyToolDefinition } from '../contract/definition.js'
import type { AroundHandler } from '../contract/hooks.js'

/** Whether a wrapper acts on `def` (`undefined` when no definition is visible). */
export type AppliesTo = (def: AnyToolDefinition | undefined) => boolean

const APPLIES_TO = Symbol('tooltx.appliesTo')

/** Records on `handler` which definitions it acts on and returns `handler`. */
export function declareAppliesTo(handler: AroundHandler, appliesTo: AppliesTo): AroundHandler {
  Object.defineProperty(handler, APPLIES_TO, { value: appliesTo })
  return handler
}

/** The declaration of `handler`, or `undefined` when it may act on any definition. */
export function appliesToOf(handler: AroundHandler): AppliesTo | undefined {
  return (handler as { [APPLIES_TO]?: AppliesTo })[APPLIES_TO]
}
