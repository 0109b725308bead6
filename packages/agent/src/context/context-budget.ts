import { type AnyToolDefinition, callCard, type ModelMessage, type ModelToolSchema } from '@tooltx/core'
import {
  applyEdits,
  type ClearedResult,
  type ContextCompactedData,
  compactionEdits,
  deriveMessage,
  type Seq,
  SeqList,
  type Session,
  type SessionEvent,
} from '@tooltx/session'
import type { ModelUsage } from '../model/model.js'
import type { BudgetRequest, ResolvedContext } from './context-options.js'
import { type SummaryPlan, summarise } from './summarise.js'
import { estimateTokens, fixedTokens, messageTokens, type TokenCounter } from './token-estimate.js'

/** What the budget keeps of each derived message: its tokens and role. */
interface Weighed {
  readonly tokens: number
  readonly role: ModelMessage['role']
}

/** A tool result that may still be cleared, with what its stub names. */
interface Clearable {
  readonly seq: Seq
  readonly callId: string
  readonly name: string
  readonly isError: boolean
  readonly rawArguments: string
}

// Provider counts more than 4x off the estimate are taken as a provider's mistake, not a correction.
const MAX_RATIO = 4

/**
 * A context budget over one session (T3.2–T3.5). It follows the session's durable events and
 * keeps each derived message's token count, applying `context/compacted` events exactly as
 * derivation does, so `measure` costs O(1) per step whatever the history's length (plus the
 * fixed part, recounted only when the system prompt or the tool array changes). The provider's
 * count of the previous request (its reported input tokens) scales the local count, so the
 * budget tracks the provider's tokenizer. `compaction` plans the event that brings a request
 * over `maxTokens` down to half of it; it never appends anything itself.
 */
export class ContextBudget {
  readonly #options: ResolvedContext
  readonly #count: TokenCounter
  readonly #lookup: (name: string) => AnyToolDefinition | undefined
  readonly #list = new SeqList<Weighed>((entry) => entry.tokens)
  /** Tool results not yet cleared, oldest first, from `#head` on. */
  readonly #clearable: Clearable[] = []
  #head = 0
  readonly #arguments = new Map<string, string>()
  #latestAssistant = 0
  #ratio = 1
  #fixed: { system: string; tools: readonly ModelToolSchema[]; tokens: number } | undefined
  readonly #unsubscribe: () => void

  constructor(
    options: ResolvedContext,
    session: Session,
    lookup: (name: string) => AnyToolDefinition | undefined,
  ) {
    this.#options = options
    this.#count = safeCounter(options.countTokens)
    this.#lookup = lookup
    for (const event of session.events()) this.#add(event)
    this.#unsubscribe = session.on((event) => this.#add(event))
  }

  /** Stops following the session. */
  dispose(): void {
    this.#unsubscribe()
  }

  /** The tokens of a request with this system prompt and these tools over the session's messages now. */
  measure(system: string, tools: readonly ModelToolSchema[]): number {
    return Math.ceil((this.#list.total + this.#fixedPart(system, tools)) * this.#ratio)
  }

  /**
   * Takes the provider's count of a request `measure` counted as `measured` (its reported input
   * tokens; 0 means it reported none), so later counts scale to the provider's tokenizer.
   */
  observe(measured: number, usage: ModelUsage): void {
    if (usage.inputTokens <= 0 || measured <= 0) return
    const local = measured / this.#ratio
    this.#ratio = Math.min(MAX_RATIO, Math.max(1 / MAX_RATIO, usage.inputTokens / local))
  }

  /**
   * The `context/compacted` data that brings `request` within budget, or `undefined` when it fits
   * or the strategy finds nothing to replace. `summarise` asks the summary model (T3.4).
   */
  async compaction(request: BudgetRequest): Promise<ContextCompactedData | undefined> {
    const before = this.measure(request.system, request.tools)
    if (before <= this.#options.maxTokens) return undefined
    if (this.#options.strategy === 'clear-tool-results') return this.#clear(request, before)
    return summarise(this.#summaryPlan(request, before), this.#options.summaryModel ?? request.model)
  }

  #clear(request: BudgetRequest, before: number): ContextCompactedData | undefined {
    const target = Math.floor(this.#options.maxTokens / 2)
    const fixed = this.#fixedPart(request.system, request.tools)
    let total = this.#list.total
    const cleared: ClearedResult[] = []
    // The latest batch's results are what the model is about to read; older ones go first.
    for (let i = this.#head; i < this.#clearable.length; i++) {
      if ((total + fixed) * this.#ratio <= target) break
      const result = this.#clearable[i]!
      if (result.seq > this.#latestAssistant) break
      const entry = this.#list.get(result.seq)
      if (entry === undefined) continue
      const content = [{ type: 'text' as const, text: this.#stub(result) }]
      const stub = this.#weigh({ role: 'tool', callId: result.callId, isError: result.isError, content })
      total += stub.tokens - entry.tokens
      cleared.push({ seq: result.seq, callId: result.callId, isError: result.isError, content })
    }
    if (cleared.length === 0) return undefined
    const { turn, step } = request
    const after = Math.ceil((total + fixed) * this.#ratio)
    return { turn, step, tokensBefore: before, tokensAfter: after, strategy: 'clear-tool-results', cleared }
  }

  /**
   * What `summarise` replaces: the longest prefix whose suffix fits a quarter of the budget and
   * starts with a message that is not a tool result.
   */
  #summaryPlan(request: BudgetRequest, before: number): SummaryPlan {
    const keep = this.#options.maxTokens / 4 / this.#ratio
    let cut = this.#list.length
    let kept = 0
    while (cut > 0) {
      const entry = this.#list.at(cut - 1)!.value
      if (kept + entry.tokens > keep) break
      kept += entry.tokens
      cut--
    }
    // A tool result stays with the assistant message that called it.
    while (cut < this.#list.length && this.#list.at(cut)!.value.role === 'tool') cut++
    const fixed = this.#fixedPart(request.system, request.tools)
    const through = cut === 0 ? undefined : (this.#list.at(cut - 1)!.seq as Seq)
    return {
      request,
      cut,
      through,
      tokensBefore: before,
      tokensAfter: (summary: ModelMessage) =>
        Math.ceil(
          (this.#list.total - this.#prefixTokens(cut) + this.#weigh(summary).tokens + fixed) * this.#ratio,
        ),
    }
  }

  #prefixTokens(cut: number): number {
    let tokens = 0
    for (let i = 0; i < cut; i++) tokens += this.#list.at(i)!.value.tokens
    return tokens
  }

  #stub(result: Clearable): string {
    const title = callCard(this.#lookup(result.name), result.name, result.rawArguments).title
    const what = title === result.name ? result.name : `${result.name} — ${title}`
    return `[tool result cleared to fit the context budget: ${what}; the full result is in the session log at seq ${result.seq}]`
  }

  #fixedPart(system: string, tools: readonly ModelToolSchema[]): number {
    const cached = this.#fixed
    if (cached !== undefined && cached.system === system && cached.tools === tools) return cached.tokens
    const tokens = fixedTokens(system, tools, this.#count)
    this.#fixed = { system, tools, tokens }
    return tokens
  }

  #weigh(message: ModelMessage): Weighed {
    return { tokens: messageTokens(message, this.#count), role: message.role }
  }

  #add(event: SessionEvent): void {
    switch (event.type) {
      case 'tool/call':
        this.#arguments.set(event.data.callId, event.data.arguments)
        break
      case 'tool/result': {
        const { callId, name, isError } = event.data
        this.#clearable.push({
          seq: event.seq,
          callId,
          name,
          isError,
          rawArguments: this.#arguments.get(callId) ?? '',
        })
        this.#arguments.delete(callId)
        break
      }
      case 'assistant/message':
        this.#latestAssistant = event.seq
        break
      case 'context/compacted':
        applyEdits(this.#list, compactionEdits(event.data), (message) => this.#weigh(message))
        this.#forget(event.data)
        return
      default:
        break
    }
    const message = deriveMessage(event)
    if (message !== undefined) this.#list.push(event.seq, this.#weigh(message))
  }

  /** Drops the clearable results a compaction replaced, so none is replaced twice. */
  #forget(data: ContextCompactedData): void {
    const gone =
      data.strategy === 'summarise'
        ? (result: Clearable) => result.seq <= data.through
        : (result: Clearable) => data.cleared.some((entry) => entry.seq === result.seq)
    while (this.#head < this.#clearable.length && gone(this.#clearable[this.#head]!)) this.#head++
    // Keep the array from growing without bound once most of it is behind the head.
    if (this.#head > 1024 && this.#head * 2 > this.#clearable.length) {
      this.#clearable.splice(0, this.#head)
      this.#head = 0
    }
  }
}

/** A user's counter made total: a throw or a result that is not a finite number counts by the estimate. */
function safeCounter(count: TokenCounter): TokenCounter {
  if (count === estimateTokens) return count
  return (text) => {
    try {
      const n = count(text)
      if (Number.isFinite(n) && n >= 0) return Math.ceil(n)
    } catch {
      // Counted by the estimate below.
    }
    return estimateTokens(text)
  }
}
