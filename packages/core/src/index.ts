export { APPROVAL_OUTCOMES, askApprover, isApprovalOutcome } from './approval-outcome.js'
export { argumentsDigest, idempotencyKey } from './arguments-digest.js'
export { type CallSequence, callSequence } from './call-sequence.js'
export type { RunCodeHost, RunCodeRequest, RunCodeValue } from './code-mode/host.js'
export { ToolCallError } from './code-mode/tool-call-error.js'
export * from './code-runtime.js'
export * from './content.js'
export { createToolRuntime, type ToolRuntime } from './create-runtime.js'
export { allow, ask, deny } from './decisions.js'
export * from './definition.js'
export { effectOf, isRepeatable, isToolEffect, TOOL_EFFECTS, type ToolEffect } from './effect.js'
export * from './errors.js'
export * from './execution.js'
export type {
  AroundExecution,
  AroundHandler,
  DecisionContexts,
  Guard,
  HookOptions,
  LogListener,
  PostDecision,
  PostExecuteHandler,
  PreDecision,
  PreExecuteHandler,
  ProgressListener,
  ResultObserver,
} from './hooks.js'
export * from './lossless-json.js'
export * from './messages.js'
export type { ToolRuntimeOptions } from './pipeline/options.js'
export * from './presentation.js'
export { AtomIndex, MAX_ORIGIN_SOURCES } from './provenance/atom-index.js'
export { type Atom, type AtomKind, textAtoms, type ValueAtom, valueAtoms } from './provenance/atoms.js'
export type { ArgumentOrigin, ContextProvenance, ProvenanceSource } from './provenance/context.js'
export {
  FAIL_CLOSED_LABEL,
  type Integrity,
  isMarked,
  isProvenanceLabel,
  type ProvenanceLabel,
  type ProvenanceSpec,
} from './provenance/label.js'
export {
  askWhenUntrusted,
  describeOrigin,
  describeSources,
  noConfidentialInto,
  type ProtectedArguments,
  type ProvenanceAction,
  protectArguments,
  withholdUntrusted,
} from './provenance/policies.js'
export type { Mode } from './registry/modes.js'
export type {
  BindableTool,
  ToolExecution,
  ToolGuard,
  ToolPostExecuteHandler,
  ToolPreExecuteHandler,
  ToolResultOf,
} from './registry/tool-hooks.js'
export * from './result.js'
export type { RestrictRule, RuntimeScope } from './runtime-scope.js'
export * from './schema/dsl.js'
export * from './schema/infer.js'
export * from './schema/model-schema.js'
export type { ParseOutcome } from './schema/source.js'
export type {
  StandardInput,
  StandardIssue,
  StandardOutput,
  StandardResult,
  StandardSchemaV1,
} from './schema/standard.js'
export { assertSupportedSchema } from './schema/subset.js'
export * from './schema/typescript.js'
export {
  type CompiledValidator,
  compileValidator,
  type PatternEngine,
  type ValidationRoot,
  type ValidatorOptions,
  validateValue,
} from './schema/validate.js'
export { callCard, isCallView, isResultView, resultCard } from './tool/cards.js'
export * from './tool/define-tool.js'
export { assertToolDefinition } from './tool/definition-checks.js'
export type { ExecutionMode, ToolSurface, ToolView } from './view.js'
export { type RetryOptions, retry } from './wrappers/retry.js'
export { timeout } from './wrappers/timeout.js'
