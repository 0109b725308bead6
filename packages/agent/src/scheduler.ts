import {
  type AdditionalContext,
  type CallSequence,
  callSequence,
  errorMessage,
  parseToolArguments,
  type ToolCallBlock,
  type ToolResult,
} from '@tooltx/core'
import type { NewSessionEvent, Session, ToolResultData } from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from './agent-runtime.js'

/** What one step's batch needs from the loop. */
export interface BatchContext {
  readonly runtime: AgentRuntime
  readonly session: Session
  readonly turn: number
  readonly step: number
  /** The turn signal; aborting it starts no further call (L6.1). */
  readonly signal: AbortSignal
  readonly maxParallel: number
  /**
   * How many calls of the batch may still start (the turn's `maxToolCalls` budget, L13.1);
   * the calls after them get synthesized pairs without running.
   */
  readonly maxCalls: number
  /**
   * Builds the pipeline input of one call (L4.3); `fail` takes the error of an append made on
   * the call's behalf (approval, code dispatch), which fails the batch like any other (L5.5).
   */
  readonly input: (block: ToolCallBlock, args: unknown, fail: (error: unknown) => void) => ToolCallInput
  /** Receives each committed result's contexts, in commit order (L7.1). */
  readonly onContexts: (contexts: readonly AdditionalContext[]) => void
  /** Turns a call's raw argument string into its arguments; default L4.1 (Z1.4). */
  readonly parse?: (block: ToolCallBlock) => unknown
  /** Asks the view how a call may run, right before it starts (L5.1). */
  readonly classify: (block: ToolCallBlock, args: unknown) => 'parallel' | 'exclusive'
  /**
   * Events the batch's first write carries ahead of its own (the step's `assistant/message`),
   * so they are durable before any call of the batch starts.
   */
  readonly lead?: readonly NewSessionEvent[]
}

/** How a batch ended, and how many of its calls started (ran a pipeline). */
export type BatchOutcome = { readonly started: number } & (
  | { readonly kind: 'completed'; readonly concludesTurn: boolean }
  | { readonly kind: 'aborted' }
  /** Every started call committed, but `maxCalls` kept the rest from starting (L13.1). */
  | { readonly kind: 'limited' }
  | { readonly kind: 'failed'; readonly message: string }
)

/** The durable data of a result: content, isError, error info and meta only (O2.1–O2.3). */
export function durableResult(
  turn: number,
  step: number,
  block: ToolCallBlock,
  result: ToolResult,
): ToolResultData {
  const data: { -readonly [K in keyof ToolResultData]: ToolResultData[K] } = {
    turn,
    step,
    callId: block.id,
    name: block.name,
    content: result.content,
    isError: result.isError,
  }
  if (result.isError) data.error = result.error.info
  if (result.meta !== undefined) data.meta = result.meta
  return data
}

/** A call about to start: its block, parsed arguments and position in the batch. */
interface Planned {
  readonly block: ToolCallBlock
  readonly args: unknown
  readonly index: number
}

/**
 * One batch in flight. Every durable write of the batch goes through `#pump`, one at a time:
 * each write carries the results that are ready in model order (group commit, L4.6) followed
 * by the `tool/call` events of the calls that start next (L4.4, L4.5), so a burst of fast
 * calls costs one write per round of the pool instead of one per event.
 */
class BatchRun {
  readonly #ctx: BatchContext
  readonly #calls: readonly ToolCallBlock[]
  readonly #input: (block: ToolCallBlock, args: unknown) => ToolCallInput
  /** Orders the policy phases of the batch's calls in model order (P1.8). */
  readonly #sequence: CallSequence = callSequence()
  readonly #ready: (ToolResult | undefined)[] = []
  /** Events that must precede the first write's own (the step's assistant/message). */
  lead: readonly NewSessionEvent[]
  /** Calls whose `tool/call` is durable and whose pipeline started: always a prefix of the batch. */
  started = 0
  /** The first call not yet classified. */
  #next = 0
  #running = 0
  #committed = 0
  /** A call classified exclusive that waits for every earlier result (L5.2). */
  #barrier: Planned | undefined
  /** The index of the running exclusive call, until its result is durable. */
  #exclusive = -1
  #writing = false
  #scheduled = false
  /** Set when a result can never be committed (its pipeline rejected, or a commit failed). */
  #blocked = false
  failure: string | undefined
  concludesTurn = false
  readonly #finished: Promise<void>
  #finish!: () => void

  constructor(ctx: BatchContext, calls: readonly ToolCallBlock[]) {
    this.#ctx = ctx
    this.#calls = calls
    this.lead = ctx.lead ?? []
    const fail = (error: unknown): void => this.fail(error)
    this.#input = (block, args) => ctx.input(block, args, fail)
    this.#finished = new Promise((resolve) => {
      this.#finish = resolve
    })
  }

  /** Records the first failure; nothing starts after it (L5.5). */
  fail(error: unknown): void {
    this.failure ??= errorMessage(error)
  }

  /** Starts the batch; resolves once every started call is committed, or nothing more can be. */
  run(): Promise<void> {
    this.#pump()
    return this.#finished
  }

  #stopped(): boolean {
    return this.#ctx.signal.aborted || this.failure !== undefined
  }

  /**
   * Pumps after a finished call. While calls still wait to be classified, it waits one
   * microtask first, so the calls that finish together free their slots together and the
   * next round of the pool starts with one write; otherwise it pumps at once.
   */
  #settled(): void {
    if (this.#next >= this.#calls.length || this.#stopped()) {
      this.#pump()
      return
    }
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      this.#pump()
    })
  }

  #pump(): void {
    if (this.#writing) return
    const results: ToolResult[] = []
    if (!this.#blocked) {
      for (let i = this.#committed; this.#ready[i] !== undefined; i++) results.push(this.#ready[i]!)
    }
    const group = this.#plan(results.length > 0)
    if (results.length === 0 && group.length === 0) {
      if (this.#running === 0 && (this.#blocked || this.#committed === this.started)) this.#finish()
      return
    }
    const { session, turn, step } = this.#ctx
    const events: NewSessionEvent[] = [...this.lead]
    this.lead = []
    for (let k = 0; k < results.length; k++) {
      const index = this.#committed + k
      events.push({ type: 'tool/result', data: durableResult(turn, step, this.#calls[index]!, results[k]!) })
    }
    for (const { block } of group) {
      events.push({
        type: 'tool/call',
        data: { turn, step, callId: block.id, name: block.name, arguments: block.arguments },
      })
    }
    this.#writing = true
    session.appendBatch(events).then(
      () => {
        this.#writing = false
        for (const result of results) {
          // Contexts join the FIFO in commit order (L7.1); only a success concludes (L7.4).
          if (result.additionalContexts) this.#ctx.onContexts(result.additionalContexts)
          if (!result.isError && result.concludesTurn === true) this.concludesTurn = true
          this.#ready[this.#committed++] = undefined
        }
        for (const planned of group) this.#launch(planned)
        this.#pump()
      },
      (error: unknown) => {
        this.#writing = false
        // Results that could not be committed block every later one; calls whose tool/call
        // is not durable never start.
        if (results.length > 0) this.#blocked = true
        this.fail(error)
        this.#pump()
      },
    )
  }

  /**
   * The calls to start with this write, each classified right before it starts (L5.1): the
   * free slots of the parallel pool (L5.3, L5.4), or an exclusive call alone once every
   * earlier call's result is durable and none is about to be written (L5.2).
   */
  #plan(committing: boolean): Planned[] {
    if (this.#stopped() || this.#committed <= this.#exclusive) return []
    const group: Planned[] = []
    if (this.#barrier === undefined) {
      const { classify, maxParallel, parse } = this.#ctx
      while (this.#next < this.#calls.length && this.#running + group.length < maxParallel) {
        const block = this.#calls[this.#next]!
        const args = parse === undefined ? parseToolArguments(block.arguments) : parse(block)
        const planned = { block, args, index: this.#next++ }
        if (classify(block, args) === 'exclusive') {
          this.#barrier = planned
          break
        }
        group.push(planned)
      }
    }
    const barrier = this.#barrier
    if (group.length === 0 && barrier !== undefined && !committing && this.#committed === barrier.index) {
      this.#barrier = undefined
      this.#exclusive = barrier.index
      group.push(barrier)
    }
    return group
  }

  /** Starts the pipeline of a call whose `tool/call` is durable and tracks its result. */
  #launch({ block, args, index }: Planned): void {
    this.started = index + 1
    this.#running++
    const input = this.#input(block, args)
    input.sequence = this.#sequence
    this.#ctx.runtime.execute(input).then(
      (result) => {
        this.#running--
        this.#ready[index] = result
        this.#settled()
      },
      (error: unknown) => {
        // An invariant breach: no further call starts and nothing more is committed (L5.5).
        this.#running--
        this.#blocked = true
        this.fail(error)
        this.#settled()
      },
    )
  }
}

/**
 * Runs the tool calls of one assistant message (L4–L6). Calls start in model order, each
 * classified right before it starts (L5.1); consecutive parallel calls share a rolling pool
 * capped at `maxParallel` (L5.3, L5.4); an exclusive call is a barrier on both sides (L5.2).
 * Each write appends the results ready in model order (L4.6) and then the `tool/call` events
 * of the calls that start at that moment (the free slots of the pool), and only once it is
 * durable do those calls' pipelines start (L4.4, L4.5); `ctx.lead` rides on the first write.
 * The calls share one call sequence, so their policy phases run in model order (L5.7).
 * On abort, started calls are awaited and committed and the rest get synthesized pairs (L6);
 * calls beyond `ctx.maxCalls` get synthesized pairs too (L13.1); on a pipeline rejection or a
 * failed append nothing more starts, started calls are awaited, and nothing is fabricated (L5.5).
 */
export async function runBatch(ctx: BatchContext, calls: readonly ToolCallBlock[]): Promise<BatchOutcome> {
  const runnable = calls.length > ctx.maxCalls ? calls.slice(0, ctx.maxCalls) : calls
  const batch = new BatchRun(ctx, runnable)
  await batch.run()
  const { started } = batch
  if (batch.failure !== undefined) return { kind: 'failed', message: batch.failure, started }
  const aborted = ctx.signal.aborted
  if (!aborted && runnable.length === calls.length) {
    return { kind: 'completed', concludesTurn: batch.concludesTurn, started }
  }
  const { turn, step } = ctx
  const events = [
    ...batch.lead,
    ...calls
      .slice(started)
      .flatMap((block) => notStartedPair(turn, step, block, aborted ? ABORTED : LIMITED)),
  ]
  if (events.length > 0) {
    try {
      await ctx.session.appendBatch(events)
    } catch (error) {
      return { kind: 'failed', message: errorMessage(error), started }
    }
  }
  return aborted ? { kind: 'aborted', started } : { kind: 'limited', started }
}

const ABORTED = 'Error: tool call aborted before dispatch'
const LIMITED = 'Error: tool call not started: the turn reached its maxToolCalls limit'

/**
 * The synthesized `tool/call` + `tool/result` of a call that never started: kept back by the
 * abort (L6.3) or by the turn's `maxToolCalls` (L13.1), with `text` saying which.
 */
function notStartedPair(turn: number, step: number, block: ToolCallBlock, text: string) {
  return [
    {
      type: 'tool/call' as const,
      data: { turn, step, callId: block.id, name: block.name, arguments: block.arguments },
    },
    {
      type: 'tool/result' as const,
      data: {
        turn,
        step,
        callId: block.id,
        name: block.name,
        content: [{ type: 'text', text }],
        isError: true,
        error: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
      },
    },
  ]
}
