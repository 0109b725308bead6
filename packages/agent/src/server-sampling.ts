/**
 * A server's sampling request answered by the agent's model (Y2.30–Y2.34): decided by the host's
 * policy (default: ask the agent's approver), bounded by the host (its model, its token cap, no
 * tools), and recorded in the turn in progress before the answer goes back.
 */
import type { ModelMessage } from '@tooltx/core'
import { definitionError, errorMessage } from '@tooltx/core/internal'
import type { SamplingRequestData, ServerRequestDecider } from '@tooltx/session'
import type { LoopContext } from './loop/loop-context.js'
import type { ModelAdapter } from './model/model.js'
import {
  askAgentApprover,
  type RequestSite,
  recordRequest,
  requestSite,
  SERVER_REQUEST_NAMES,
} from './server-request.js'

/** A server's sampling request as an MCP client hands it over (`SampleQuestion` of `@tooltx/mcp`). */
export interface SamplingRequest {
  /** The name the server was imported under. */
  readonly server: string
  /** MCP sampling messages: `{ role, content }`, content a block or a list of blocks. */
  readonly messages: readonly { readonly role: string; readonly content: unknown }[]
  readonly systemPrompt?: string
  /** The most tokens the server asks for; the host caps it. */
  readonly maxTokens: number
  /** The ids of the server's imported calls running when it asked. */
  readonly calls: readonly string[]
  readonly signal: AbortSignal
}

/** The completion sent back: the model's name and reply text. */
export interface SamplingReply {
  model: string
  text: string
  stopReason?: string
}

/** What the host's policy says of one request. */
export type SamplingDecision = 'ask' | 'allow' | 'deny'

/** Options of `agent.sampler` (Y2.30). */
export interface SamplingOptions {
  /**
   * `'ask'` (default) puts each request to the agent's approver; `'allow'` and `'deny'` decide
   * without asking; a function decides per request (throwing or answering anything else refuses).
   */
  policy?: SamplingDecision | ((request: SamplingRequest) => SamplingDecision | Promise<SamplingDecision>)
  /** The most tokens a completion may take, whatever the server asks (default 1024). */
  maxTokens?: number
  /** The model that answers (default the agent's). */
  model?: ModelAdapter
}

/**
 * What an ask about a sampling request puts to the approver as its arguments (Y2.32): exactly
 * what would be sent, and to which model. A type, not an interface, so it is a `JsonValue`.
 */
export type SamplingAsk = {
  server: string
  model: string
  maxTokens: number
  systemPrompt?: string
  messages: { role: string; text: string }[]
}

/** Answers a server's sampling request; a rejection refuses it with its message. */
export type Sampler = (request: SamplingRequest) => Promise<SamplingReply>

/** The token cap of a completion when `maxTokens` is not given. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 1024

/** How many characters (code points) of the last message a record keeps (L1.10). */
const LAST_KEPT = 200

/** The first `n` characters (code points) of `text`: never half a character. */
function firstChars(text: string, n: number): string {
  return Array.from(text).slice(0, n).join('')
}

/** The text of one MCP sampling message's content: its text blocks, a note for any other block. */
export function samplingText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content]
  return blocks
    .map((block: { type?: unknown; text?: unknown } | null) =>
      block?.type === 'text' && typeof block.text === 'string'
        ? block.text
        : `[${String(block?.type)} block omitted]`,
    )
    .join('\n')
}

/** Checks `options` (throwing `INVALID_DEFINITION`) and builds the sampler of Y2.30. */
export function agentSampler(ctx: LoopContext, options: SamplingOptions = {}): Sampler {
  const { policy = 'ask', maxTokens = DEFAULT_SAMPLING_MAX_TOKENS } = options
  if (typeof policy !== 'function' && !['ask', 'allow', 'deny'].includes(policy))
    throw definitionError(
      `sampler policy must be 'ask', 'allow', 'deny' or a function, got ${JSON.stringify(policy)}`,
    )
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1)
    throw definitionError(`sampler maxTokens must be a positive integer, got ${String(maxTokens)}`)
  const model = options.model ?? ctx.options.model
  if (typeof model?.stream !== 'function') throw definitionError('sampler model must be a model adapter')
  return async (request) => {
    const refused = (why: string) =>
      new Error(`the sampling request of the MCP server "${request.server}" was refused: ${why}`)
    const site = requestSite(ctx, request.signal)
    if (typeof site === 'string') throw refused(site)
    const bound = Math.min(request.maxTokens, maxTokens)
    const texts = request.messages.map((message) => ({
      role: message.role,
      text: samplingText(message.content),
    }))
    const last = texts.at(-1)
    const record = {
      ...site.where,
      kind: 'sampling' as const,
      server: request.server,
      calls: [...request.calls],
      messages: texts.length,
      characters: texts.reduce((sum, message) => sum + Array.from(message.text).length, 0),
      ...(last === undefined ? {} : { last: firstChars(`${last.role}: ${last.text}`, LAST_KEPT) }),
      model: model.name,
      maxTokens: bound,
    }
    const shown: SamplingAsk = {
      server: request.server,
      model: model.name,
      maxTokens: bound,
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      messages: texts,
    }
    const decided = await decide(ctx, policy, request, site, shown)
    let data: SamplingRequestData
    if (decided.allowed) {
      try {
        const text = await complete(model, shown, site.signal)
        data = { ...record, outcome: 'answered', by: decided.by, reply: text }
      } catch (error) {
        data = {
          ...record,
          outcome: 'refused',
          by: decided.by,
          reason: `${model.name} failed: ${errorMessage(error)}`,
        }
      }
    } else data = { ...record, outcome: 'refused', by: decided.by, reason: decided.reason }
    try {
      await recordRequest(site, data)
    } catch (error) {
      throw refused(`it could not be recorded in the session (${errorMessage(error)})`)
    }
    if (data.outcome === 'refused') throw refused(data.reason ?? 'refused')
    return { model: model.name, text: data.reply ?? '', stopReason: 'endTurn' }
  }
}

type Decided =
  | { allowed: true; by: ServerRequestDecider }
  | { allowed: false; by: ServerRequestDecider; reason: string }

/** The policy's decision on `request`, asking the approver when it says `'ask'` (Y2.31, Y2.32). */
async function decide(
  ctx: LoopContext,
  policy: NonNullable<SamplingOptions['policy']>,
  request: SamplingRequest,
  site: RequestSite,
  shown: SamplingAsk,
): Promise<Decided> {
  let said: unknown = policy
  if (typeof policy === 'function') {
    try {
      said = await policy(request)
    } catch (error) {
      return { allowed: false, by: 'policy', reason: `the sampling policy failed: ${errorMessage(error)}` }
    }
  }
  if (said === 'allow') return { allowed: true, by: 'policy' }
  if (said !== 'ask')
    return {
      allowed: false,
      by: 'policy',
      reason:
        said === 'deny'
          ? "the host's policy refuses sampling"
          : `the sampling policy answered ${JSON.stringify(said) ?? String(said)}, not 'ask', 'allow' or 'deny'`,
    }
  const reason = `the MCP server "${shown.server}" asks ${shown.model} for a completion of at most ${shown.maxTokens} tokens`
  const verdict = await askAgentApprover(
    ctx,
    { name: SERVER_REQUEST_NAMES.sampling, arguments: shown, reason },
    site.signal,
  )
  return verdict.allowed
    ? { allowed: true, by: 'approver' }
    : { allowed: false, by: 'approver', reason: verdict.reason }
}

/** `model`'s reply to what `shown` holds: text only, with the server's system prompt, no tools, at most `maxTokens`. */
async function complete(model: ModelAdapter, shown: SamplingAsk, signal: AbortSignal): Promise<string> {
  const messages: ModelMessage[] = shown.messages.map(({ role, text }) => ({
    role: role === 'assistant' ? 'assistant' : 'user',
    content: [{ type: 'text', text }],
  }))
  const { systemPrompt, maxTokens } = shown
  const request = {
    instructions: '',
    tools: [],
    messages,
    maxTokens,
    ...(systemPrompt ? { system: systemPrompt } : {}),
  }
  for await (const event of model.stream(request, signal))
    if (event.type === 'message')
      return event.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
  throw new Error('it gave no reply')
}
