import type { JsonSchema } from '../contract/definition.js'
import type { ModelToolSchema } from '../contract/messages.js'
import { definitionError } from '../foundation/errors.js'
import { snapshotJson } from '../foundation/lossless-json.js'

/**
 * Projects a definition to exactly `{ name, description, parameters }` (S5.6, D1.4), with
 * `parameters` deep-copied on every call (iteratively, so a 5,000-deep schema is fine): changing
 * a returned schema never leaks into the definition or later projections. Throws
 * `INVALID_DEFINITION` when `parameters` is not a lossless JSON object.
 */
export function toModelSchema(def: {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
}): ModelToolSchema {
  const { name, description, parameters } = def
  const copy = snapshotJson(parameters, { root: 'parameters' })
  if (!copy.ok || copy.value === null || typeof copy.value !== 'object' || Array.isArray(copy.value)) {
    throw definitionError(`tool "${name}" parameters must be a lossless JSON object`)
  }
  return { name, description, parameters: copy.value }
}
