/**
 * `@tooltx/core/internal`: what the sibling packages (session, sandbox, agent, mcp, worker, cli,
 * otel, ai-sdk) share with core and users do not need. Not public API: it changes with the
 * packages that use it, without a deprecation. Users import from `@tooltx/core` (index.ts).
 */

export { askApprover, isApprovalOutcome } from './contract/approval-outcome.js'
export { RUN_CODE } from './contract/definition.js'
export { isRepeatable } from './contract/effect.js'
export { formValueProblem } from './contract/form-checks.js'
export { sleep } from './foundation/abortable-sleep.js'
export {
  codedError,
  definitionError,
  ERROR_NAMES,
  errorMessage,
  invariantError,
} from './foundation/errors.js'
export { deepFreeze, isFrozenSnapshot } from './foundation/lossless-json.js'
export { approvalFailure } from './pipeline/failures.js'
export { AtomIndex } from './provenance/atom-index.js'
export { isMarked, isProvenanceLabel } from './provenance/label.js'
export { compileParameters, compileValueSchema } from './schema/dsl.js'
