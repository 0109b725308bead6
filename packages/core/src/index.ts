/**
 * The public API of `@tooltx/core`: what the guides use (README.md, docs/, the package READMEs),
 * what the SPEC names as exported, and the types of their parameters and results, so a user can
 * name whatever they pass or get back. What the sibling packages need beyond this comes from
 * `internal.ts` (`@tooltx/core/internal`), which is not public API.
 */

// The runtime: scopes, modes, tool-bound hooks, wrappers and Code Mode (R, M, P, X).
export { ToolCallError } from './code-mode/tool-call-error.js'
// The contract of one tool call: definitions, executions, results, content and messages.
export type { ApprovalOutcome } from './contract/approval-outcome.js'
export { type CallSequence, callSequence } from './contract/call-sequence.js'
export {
  type CodeBinding,
  type CodeDispatchSettle,
  type CodeDispatchSink,
  type CodeDispatchStart,
  type CodeRunErrorKind,
  type CodeRunRequest,
  type CodeRunResult,
  type CodeRuntime,
  TOOL_ARGS_NOT_LOSSLESS,
  toolArgsUnreadable,
} from './contract/code-runtime.js'
export type {
  AdditionalContext,
  ContentBlock,
  ContextSource,
  ImageBlock,
  OtherBlock,
  TextBlock,
  UserMessage,
} from './contract/content.js'
export { allow, ask, deny } from './contract/decisions.js'
export type { AnyToolDefinition, JsonSchema, ToolDefinition, ToolOutput } from './contract/definition.js'
export { effectOf, isResumableReceipt, RESUMABLE_RECEIPT_KEY, type ToolEffect } from './contract/effect.js'
export type {
  ElicitForm,
  Elicitor,
  ElicitReply,
  ElicitRequest,
  FormBooleanField,
  FormChoiceField,
  FormContent,
  FormField,
  FormMultiChoiceField,
  FormNumberField,
  FormSchema,
  FormTextField,
} from './contract/elicitation.js'
export {
  type ApprovalRequest,
  type Approver,
  type EffectSink,
  type ExecuteInput,
  type Execution,
  LOG_LEVELS,
  type LogEntry,
  type LogLevel,
  type RunContext,
  type ToolScope,
} from './contract/execution.js'
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
} from './contract/hooks.js'
export {
  type AssistantBlock,
  type AssistantMessage,
  type ModelMessage,
  type ModelToolSchema,
  parseToolArguments,
  type ReasoningBlock,
  type ToolCallBlock,
  type ToolMessage,
} from './contract/messages.js'
export type {
  CallKind,
  CallView,
  CardLocation,
  DurableResult,
  FileDiff,
  ResultView,
} from './contract/presentation.js'
export type {
  ArgumentOrigin,
  AtomKind,
  ContextProvenance,
  Integrity,
  ProvenanceLabel,
  ProvenanceSource,
  ProvenanceSpec,
} from './contract/provenance.js'
export type { ErrorInfo, ToolFailure, ToolResult, ToolSuccess } from './contract/result.js'
export type { ExecutionMode, ToolSurface, ToolView } from './contract/tool-view.js'
export { createToolRuntime, type ToolRuntime } from './create-runtime.js'
export { argumentsDigest, idempotencyKey } from './foundation/arguments-digest.js'
export { ToolError, type ToolErrorCode } from './foundation/errors.js'
// Lossless JSON (J, Q3) and the digests derived from it (P4.9, F1.2).
export {
  isLosslessJson,
  type JsonObject,
  type JsonValue,
  parseFrozenJson,
  type SnapshotOptions,
  type SnapshotResult,
  snapshotJson,
  stringifyJson,
} from './foundation/lossless-json.js'
export type { ToolRuntimeOptions } from './pipeline/options.js'
// Provenance (H): labels, the context's provenance and the ready-made policies.
export { FAIL_CLOSED_LABEL } from './provenance/label.js'
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
export type {
  BindableTool,
  ToolExecution,
  ToolGuard,
  ToolPostExecuteHandler,
  ToolPreExecuteHandler,
  ToolResultOf,
} from './registry/tool-hooks.js'
export type { ToolMode } from './registry/tool-mode.js'
export type { RestrictRule, RuntimeScope } from './runtime-scope.js'
// Schemas: the DSL, plain JSON Schema, Standard Schema, validation and rendering (S).
export type {
  Annotations,
  ArraySpec,
  BooleanSpec,
  IntegerSpec,
  JsonSpec,
  NullSpec,
  NumberBounds,
  NumberSpec,
  ObjectSpec,
  OneOfSpec,
  ParametersSpec,
  PropertySpec,
  ScalarSpecOf,
  StringSpec,
  ValueSpec,
} from './schema/dsl.js'
export type { InferArgs, InferValue } from './schema/infer.js'
export { toModelSchema } from './schema/model-schema.js'
export type { ParseOutcome } from './schema/source.js'
export type {
  StandardInput,
  StandardIssue,
  StandardOutput,
  StandardResult,
  StandardSchemaV1,
} from './schema/standard.js'
export { assertSupportedSchema } from './schema/subset.js'
export { schemaToTypeScript } from './schema/typescript.js'
export {
  type CompiledValidator,
  compileValidator,
  type PatternEngine,
  type ValidationRoot,
  type ValidatorOptions,
  validateValue,
} from './schema/validate.js'
// Tools: defineTool and the cards a UI shows for a call (D, A, U).
export { callCard, resultCard } from './tool/cards.js'
export {
  type ArgsOf,
  checkToolArguments,
  defineTool,
  type JsonSchemaObject,
  type OutputSchemaInput,
  type ParametersInput,
  type ParsedArgsOf,
  type ToolSpec,
  type ValueOf,
} from './tool/define-tool.js'
export { type RetryOptions, retry } from './wrappers/retry.js'
export { timeout } from './wrappers/timeout.js'
