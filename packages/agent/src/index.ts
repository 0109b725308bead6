export * from './agent.js'
export * from './approvals/decide-approval.js'
export { type ApprovalsOption, DEFAULT_APPROVAL_EXPIRY_MS } from './approvals/durable-approvals.js'
export type { AgentRuntime } from './base/agent-runtime.js'
export type { PendingApproval } from './base/pending-approval.js'
export type { TurnOutcome } from './base/turn-outcome.js'
export { ContextBudget } from './context/context-budget.js'
export {
  type BudgetRequest,
  type ContextOptions,
  type ContextStrategy,
  resolveContext,
} from './context/context-options.js'
export { ContextProvenanceTracker } from './context/context-provenance.js'
export { estimateTokens, type TokenCounter } from './context/token-estimate.js'
export * from './model/anthropic.js'
export * from './model/defaults.js'
export * from './model/model.js'
export * from './model/model-error.js'
export * from './model/openai-compatible.js'
export * from './model/quarantined-extractor.js'
export * from './model/reasoning.js'
export * from './model/reply.js'
export * from './model/scripted.js'
export * from './model/stop-reason.js'
export type { ModelRetry } from './model/wire-retry.js'
export * from './served-calls.js'
export type {
  ElicitationAnswer,
  ElicitationOptions,
  ElicitationRequest,
  Elicitor,
} from './server-elicitation.js'
export { SERVER_REQUEST_NAMES } from './server-request.js'
export {
  DEFAULT_SAMPLING_MAX_TOKENS,
  type Sampler,
  type SamplingAsk,
  type SamplingDecision,
  type SamplingOptions,
  type SamplingReply,
  type SamplingRequest,
} from './server-sampling.js'
export * from './session-audit.js'
