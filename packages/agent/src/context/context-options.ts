import type { ModelMessage, ModelToolSchema } from '@tooltx/core'
import { definitionError } from '@tooltx/core/internal'
import type { History, StepRef } from '@tooltx/session'
import type { ModelAdapter } from '../model/model.js'
import { estimateTokens, type TokenCounter } from './token-estimate.js'

/** The context strategies (T3.3, T3.4). */
export type ContextStrategy = 'clear-tool-results' | 'summarise'

/** `createAgent({ context })`: a token budget for each model request and what to do past it (T3.1). */
export interface ContextOptions {
  /** The most tokens one request may hold: system prompt, tool schemas and messages. */
  maxTokens: number
  /** How to shrink the history when a request would exceed `maxTokens`. */
  strategy: ContextStrategy
  /** Counts a text's tokens; default `estimateTokens` (T3.2). Pass an exact tokenizer's count here. */
  countTokens?: TokenCounter
  /** The model that writes `summarise` summaries; default the agent's model. */
  summaryModel?: ModelAdapter
}

/** Context options with their defaults filled in. */
export interface ResolvedContext {
  readonly maxTokens: number
  readonly strategy: ContextStrategy
  readonly countTokens: TokenCounter
  readonly summaryModel: ModelAdapter | undefined
}

const STRATEGIES: readonly string[] = ['clear-tool-results', 'summarise']

/**
 * Checks `createAgent`'s `context` option (T3.1): throws `INVALID_DEFINITION` for a `maxTokens`
 * that is not a positive integer, an unknown strategy, a `countTokens` that is not a function or
 * a `summaryModel` without `stream`.
 */
export function resolveContext(options: unknown): ResolvedContext {
  if (typeof options !== 'object' || options === null) {
    throw definitionError('context must be { maxTokens, strategy, countTokens?, summaryModel? }')
  }
  const { maxTokens, strategy, countTokens, summaryModel } = options as Partial<ContextOptions>
  if (!Number.isSafeInteger(maxTokens) || (maxTokens as number) < 1) {
    throw definitionError(`context.maxTokens must be a positive integer, got ${String(maxTokens)}`)
  }
  if (typeof strategy !== 'string' || !STRATEGIES.includes(strategy)) {
    throw definitionError(
      `context.strategy must be "clear-tool-results" or "summarise", got ${JSON.stringify(strategy) ?? String(strategy)}`,
    )
  }
  if (countTokens !== undefined && typeof countTokens !== 'function') {
    throw definitionError('context.countTokens must be a function (text) => number')
  }
  if (summaryModel !== undefined && typeof (summaryModel as { stream?: unknown }).stream !== 'function') {
    throw definitionError('context.summaryModel must be a ModelAdapter')
  }
  return {
    maxTokens: maxTokens as number,
    strategy: strategy as ContextStrategy,
    countTokens: countTokens ?? estimateTokens,
    summaryModel,
  }
}

/** What one step's request holds besides the messages, and who asks. */
export interface BudgetRequest extends StepRef {
  readonly system: string
  readonly tools: readonly ModelToolSchema[]
  /** The session's messages now (`session.history()`), which the budget's counts follow. */
  readonly messages: History<ModelMessage>
  readonly model: ModelAdapter
  readonly signal: AbortSignal
}
