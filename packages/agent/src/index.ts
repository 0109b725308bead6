export * from './agent.js'
export * from './agent-runtime.js'
export { ContextBudget } from './context/context-budget.js'
export {
  type BudgetRequest,
  type ContextOptions,
  type ContextStrategy,
  resolveContext,
} from './context/context-options.js'
export { estimateTokens, type TokenCounter } from './context/token-estimate.js'
export { ContextProvenanceTracker } from './context-provenance.js'
export * from './decide.js'
export { type ApprovalsOption, DEFAULT_APPROVAL_EXPIRY_MS } from './durable-approvals.js'
export * from './model/anthropic.js'
export * from './model/defaults.js'
export * from './model/model.js'
export * from './model/model-error.js'
export * from './model/openai-compatible.js'
export * from './model/reasoning.js'
export * from './model/reply.js'
export * from './model/scripted.js'
export type { ModelRetry } from './model/sdk-retry.js'
export * from './model/stop-reason.js'
export * from './quarantined-extractor.js'
export * from './served-calls.js'
export * from './session-audit.js'
export { DEFAULT_TURN_BOUNDS, type TurnBounds } from './turn-bounds.js'
export type { PendingDecision, TurnOutcome } from './turn-outcome.js'
