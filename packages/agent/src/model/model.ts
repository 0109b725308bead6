import type { JsonValue, ModelMessage, ModelToolSchema, ToolCallBlock } from '@tooltx/core'
import type { History, ReplyStop, ToolChoice } from '@tooltx/session'
import type { ReplyBlock } from './reasoning.js'

/** One request to a model: everything an adapter needs, nothing provider-specific. */
export interface ModelRequest {
  /** The caller's own system prompt, if any. */
  system?: string
  /** The Code Mode / tool surface text (`view.surface()`); sent as part of the system prompt. */
  instructions: string
  /** The model-facing tool schemas, in the order the model should see them. */
  tools: ModelToolSchema[]
  /**
   * The conversation so far (`session.history()`, Q1.2): a persistent snapshot to iterate, index
   * with `at` or copy with `slice`; a plain array also fits. Tool messages carry only content
   * and isError (O2.4).
   */
  messages: History<ModelMessage>
  /** Which tool the model may or must call (T4.1); absent: the provider's default (`auto`). */
  toolChoice?: ToolChoice
  /**
   * The most tokens the reply may take, overriding the adapter's own `maxTokens` (a server's
   * sampling request, Y2.33); absent: the adapter's.
   */
  maxTokens?: number
}

/** Token counts of one reply as the provider reported them (0 when it reported none). */
export interface ModelUsage {
  inputTokens: number
  outputTokens: number
}

/** A piece of reply text, in stream order. */
export interface TextDeltaEvent {
  type: 'text-delta'
  text: string
}

/** A piece of reasoning text, in stream order (T1.1); for live display only. */
export interface ReasoningDeltaEvent {
  type: 'reasoning-delta'
  text: string
}

/**
 * A piece of one tool call. `index` is the call's position among the reply's tool calls
 * (0, 1, 2 … in model order), not a provider content-block index. `id` and `name` arrive
 * on the first delta of a call; `argumentsDelta` is the next piece of the raw argument
 * string (possibly empty).
 */
export interface ToolCallDeltaEvent {
  type: 'tool-call-delta'
  index: number
  id?: string
  name?: string
  argumentsDelta: string
}

/**
 * The complete reply, sent exactly once as the last event of a stream that was not
 * aborted and did not fail. Tool-call blocks carry the raw argument string (L3.4); reasoning
 * blocks keep the provider's own block (T1.1); `stop` is why the reply ended (T2.1).
 */
export interface ReplyMessageEvent {
  type: 'message'
  content: ReplyBlock[]
  usage: ModelUsage
  stop?: ReplyStop
}

/** An event of a model stream. */
export type ModelStreamEvent = TextDeltaEvent | ReasoningDeltaEvent | ToolCallDeltaEvent | ReplyMessageEvent

/**
 * A model behind one streaming interface.
 *
 * `stream(request, signal)` yields deltas in order and then exactly one `message` event;
 * the iterable ends right after it. It never yields after the `message` event.
 *
 * Failures are thrown from the iterator, never yielded:
 * - the signal aborted before the `message` event → `ModelAbortError` (`name === 'AbortError'`,
 *   see `isModelAbort`), also when the signal was already aborted at the call;
 * - anything else (HTTP status, unreachable endpoint, malformed stream, a stream that ended
 *   before the provider marked the reply complete, a cut reply with tool calls, a missing SDK,
 *   script exhausted) → `ModelError`, whose message says what to check. A reply that is not
 *   known to be complete never produces a `message` event (L12.1, L12.2).
 *
 * Leaving the iteration early (`break`) cancels the underlying request.
 */
export interface ModelAdapter {
  /** A label for logs, such as `openai-compatible:gpt-4.1`. */
  readonly name: string
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>
  /**
   * How the loop turns a tool call of this adapter's replies into its arguments, for
   * classification and execution alike; `tools` are the schemas the reply's request offered.
   * Absent: L4.1 (`parseToolArguments`). The log keeps the raw string either way (Z1.4). Must
   * not throw; an adapter sets it only when the wire changes what a model sends (strict mode).
   */
  parseArguments?(call: ToolCallBlock, tools: readonly ModelToolSchema[]): JsonValue
}

/**
 * The system prompt an adapter sends: `system` and `instructions` joined by a blank line
 * when both are non-empty, whichever is non-empty otherwise, and `''` when neither is.
 */
export function systemPrompt(request: ModelRequest): string {
  const system = request.system ?? ''
  if (system === '') return request.instructions
  if (request.instructions === '') return system
  return `${system}\n\n${request.instructions}`
}
