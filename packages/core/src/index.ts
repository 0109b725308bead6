export { callCard, isCallView, isResultView, parseToolArguments, resultCard } from './cards.js'
export type { RunCodeHost, RunCodeRequest, RunCodeValue } from './code-mode/run-code.js'
export { ToolCallError } from './code-mode/tool-call-error.js'
export * from './code-runtime.js'
export * from './content.js'
export * from './define-tool.js'
export * from './definition.js'
export * from './definition-checks.js'
export * from './errors.js'
export * from './execution.js'
export * from './lossless-json.js'
export * from './messages.js'
export * from './presentation.js'
export * from './result.js'
export { type CallSequence, callSequence } from './runtime/call-sequence.js'
export type { ExecuteInput } from './runtime/core.js'
export type {
  AroundExecution,
  AroundHandler,
  DecisionContexts,
  Guard,
  HookOptions,
  PostDecision,
  PostExecuteHandler,
  PreDecision,
  PreExecuteHandler,
  ProgressListener,
  ResultObserver,
} from './runtime/hooks.js'
export type { Mode } from './runtime/modes.js'
export type { ToolRuntimeOptions } from './runtime/options.js'
export { createToolRuntime, type ToolRuntime } from './runtime/runtime.js'
export type { RestrictRule, RuntimeScope } from './runtime/scope.js'
export type { ExecutionMode, ToolSurface, ToolView } from './runtime/scope-view.js'
export * from './schema/dsl.js'
export * from './schema/infer.js'
export * from './schema/model-schema.js'
export { assertSupportedSchema } from './schema/subset.js'
export * from './schema/typescript.js'
export * from './schema/validate.js'
export { type RetryOptions, retry } from './wrappers/retry.js'
export { timeout } from './wrappers/timeout.js'
