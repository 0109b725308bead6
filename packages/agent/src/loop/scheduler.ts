/**
 * The tool scheduler: runs the calls of one assistant message (L4–L6) as a loop over rounds.
 * Each round is one durable write and what follows it:
 *
 *   1. take what is ready: the results ready in model order after the last committed one;
 *   2. fill the pool: classify the next calls, each right before it starts (L5.1), up to the
 *      free slots of the pool (L5.3, L5.4), or an exclusive call alone (L5.2);
 *   3. write: stage those results, then the `tool/call`s of the calls about to start, and flush
 *      the journal: one write per round (group commit, L4.6);
 *   4. commit what is ready: hand each result's contexts on in commit order (L7.1), and only
 *      then start the pipelines of the calls whose `tool/call` is now durable (L4.4, L4.5).
 *
 * When a round has nothing to write, the next one is planned the moment a call settles (or
 * one microtask later while calls still wait to be classified, so that calls that finish
 * together free their slots together and start with one write).
 *
 * Invariants:
 * - at most one write is in flight; the started calls are always a prefix of the batch;
 * - a call's pipeline starts only after its `tool/call` is durable;
 * - results are written in model order, each once, only after every earlier one;
 * - at most `maxParallel` pipelines run; an exclusive call runs alone, starting only once every
 *   earlier result is durable, and nothing starts before its own result is durable (L5.2);
 * - after a failure (a pipeline that rejected, a failed write, a failed append on a call's
 *   behalf) nothing starts, and once a result cannot be committed nothing more is (L5.5);
 * - after a suspension (a durable ask, F2.3) nothing starts, and nothing from the waiting call
 *   on is committed: those calls end without passing their policy phase.
 */
import {
  type CallSequence,
  callSequence,
  parseToolArguments,
  snapshotJson,
  type ToolCallBlock,
  type ToolFailure,
  type ToolResult,
  type ToolView,
} from '@tooltx/core'
import { errorMessage, isFrozenSnapshot } from '@tooltx/core/internal'
import type { StepRef } from '@tooltx/session'
import type { AgentRuntime, ToolCallInput } from '../base/agent-runtime.js'
import type { Journal } from '../base/journal.js'
import { malformedArguments, malformedArgumentsFailure } from '../base/malformed-arguments.js'
import type { PendingApproval } from '../base/pending-approval.js'
import { notStartedEvents, toolCallEvent, toolResultEvent } from '../base/tool-events.js'
import type { InputQueue } from './input-queue.js'

/**
 * What a batch's input builder gets from the batch, once:
 * `fail` takes the error of an append made on a call's behalf (approval, code dispatch), which
 * fails the batch like any other (L5.5); `suspend` parks the batch at a call whose durable ask
 * is recorded (F2.3).
 */
export interface BatchHooks {
  readonly fail: (error: unknown) => void
  readonly suspend: (pending: PendingApproval) => void
  /** True for a call id of this batch. */
  readonly has: (callId: string) => boolean
}

/** What `schedule` needs from the loop for one step's batch. */
export interface ScheduleOptions {
  readonly runtime: AgentRuntime
  /** Where every write goes; what it holds is written ahead of the batch's first events. */
  readonly journal: Journal
  readonly where: StepRef
  /** The turn signal; aborting it starts no further call (L6.1). */
  readonly signal: AbortSignal
  readonly maxParallel: number
  /**
   * How many calls of the batch may still start (the turn's `maxToolCalls` budget, L13.1);
   * the calls after them get synthesized pairs without running.
   */
  readonly maxCalls: number
  /** The agent's FIFO: each committed result's contexts join it at its commit, in commit order (L7.1). */
  readonly queue: Pick<InputQueue, 'defer'>
  /** Builds, once per batch, the builder of each call's pipeline input (L4.3). */
  readonly inputs: (hooks: BatchHooks) => (block: ToolCallBlock, args: unknown) => ToolCallInput
  /**
   * Durable approvals (F2.3): each call gets a signal of its own, linked to the input's, so a
   * suspension can park the waiting call and every later one without aborting the turn.
   */
  readonly parkable?: boolean
  /** Calls of a resumed batch whose `tool/call` is already durable: none is written again (F2.7). */
  readonly called?: ReadonlySet<string>
  /** Turns a call's raw argument string into its arguments; default L4.1 (Z1.4). */
  readonly parse?: ((block: ToolCallBlock) => unknown) | undefined
  /** The step's view, asked how each call may run right before it starts (L5.1). */
  readonly view: Pick<ToolView, 'executionMode'>
}

/** How a batch ended, and how many of its calls started (ran a pipeline). */
export type ScheduleOutcome = { readonly started: number } & (
  | { readonly kind: 'completed'; readonly concludesTurn: boolean }
  | { readonly kind: 'aborted' }
  /** Every started call committed, but `maxCalls` kept the rest from starting (L13.1). */
  | { readonly kind: 'limited' }
  | { readonly kind: 'failed'; readonly message: string }
  /** A call's durable ask parked the batch (F2.3): nothing from that call on was committed. */
  | { readonly kind: 'suspended'; readonly pending: readonly PendingApproval[] }
)

/**
 * Runs the tool calls of one assistant message in rounds (above). The calls share one call
 * sequence, so their policy phases run in model order (L5.7). On abort, started calls are
 * awaited and committed and the rest get synthesized pairs (L6); calls beyond `maxCalls` get
 * synthesized pairs too (L13.1); on a pipeline rejection or a failed append nothing more
 * starts, started calls are awaited, and nothing is fabricated (L5.5).
 */
export async function schedule(
  options: ScheduleOptions,
  calls: readonly ToolCallBlock[],
): Promise<ScheduleOutcome> {
  const runnable = calls.length > options.maxCalls ? calls.slice(0, options.maxCalls) : calls
  const batch = new Batch(options, runnable)
  await batch.run()
  const { started, failure, suspended } = batch
  if (failure !== undefined) return { kind: 'failed', message: failure, started }
  if (suspended !== undefined) return { kind: 'suspended', pending: [suspended.pending], started }
  const aborted = options.signal.aborted
  if (!aborted && runnable.length === calls.length) {
    return { kind: 'completed', concludesTurn: batch.concludesTurn, started }
  }
  const { journal, where } = options
  const reason = aborted ? 'aborted' : 'limited'
  for (const block of calls.slice(started)) {
    const pair = notStartedEvents(where, block, reason)
    journal.stage(...(options.called?.has(block.id) === true ? pair.slice(1) : pair))
  }
  try {
    await journal.flush()
  } catch (error) {
    return { kind: 'failed', message: errorMessage(error), started }
  }
  return { kind: reason, started }
}

/**
 * The parsed arguments as one frozen snapshot, which classification and execution then share
 * instead of copying each (Q3.1): as they are when parsed straight into one (Q3.2); the value
 * itself when it cannot be snapshotted, so entry fails the call as it would have (P2.4, P2.5).
 */
function frozenOnce(args: unknown): unknown {
  if (isFrozenSnapshot(args)) return args
  try {
    const snap = snapshotJson(args, { freeze: true, root: 'arguments' })
    return snap.ok ? snap.value : args
  } catch {
    return args
  }
}

/** L4.1 parsing straight into a frozen snapshot (Q3.2). */
const FROZEN = { freeze: true } as const

/** A call about to start: its block, parsed arguments and position in the batch. */
interface Planned {
  readonly block: ToolCallBlock
  readonly args: unknown
  readonly index: number
  /** Set when the raw arguments are not JSON: the call's result, no pipeline runs (L4.7). */
  readonly malformed?: ToolFailure
}

/** What one round writes: the results ready in model order, then the calls that start. */
interface Round {
  readonly results: readonly ToolResult[]
  readonly starting: readonly Planned[]
}

/** The state of one batch between rounds. */
class Batch {
  readonly #options: ScheduleOptions
  readonly #calls: readonly ToolCallBlock[]
  /** Orders the policy phases of the batch's calls in model order (P1.8). */
  readonly #sequence: CallSequence = callSequence()
  /** Results by call index, from the call's settling until its commit. */
  readonly #ready: (ToolResult | undefined)[] = []
  readonly #hooks: BatchHooks = {
    fail: (error) => {
      this.failure ??= errorMessage(error)
    },
    suspend: (pending) => this.#suspend(pending),
    has: (callId) => this.#index.has(callId),
  }
  readonly #fail = this.#hooks.fail
  readonly #input: (block: ToolCallBlock, args: unknown) => ToolCallInput
  /** Call positions by id. */
  readonly #index: ReadonlyMap<string, number>
  /** Each started call's own abort, when the batch is parkable (F2.3). */
  readonly #parking: (AbortController | undefined)[] = []
  /** The first call not yet classified. */
  #next = 0
  #running = 0
  #committed = 0
  /** A call classified exclusive that waits for every earlier result (L5.2). */
  #barrier: Planned | undefined
  /** The index of the running exclusive call, until its result is durable. */
  #exclusive = -1
  /** Set when a result can never be committed (its pipeline rejected, or its write failed). */
  #blocked = false
  /** Hands the next round to a loop that waits for a call to settle. */
  #wake: ((round: Round | undefined) => void) | undefined
  #planning = false
  /** Calls whose `tool/call` is durable and whose pipeline started. */
  started = 0
  /** The first failure's message; nothing starts after it (L5.5). */
  failure: string | undefined
  concludesTurn = false
  /** Where a durable ask parked the batch; nothing from `index` on is committed (F2.3). */
  suspended: { readonly index: number; readonly pending: PendingApproval } | undefined

  constructor(options: ScheduleOptions, calls: readonly ToolCallBlock[]) {
    this.#options = options
    this.#calls = calls
    this.#index = new Map(calls.map((block, i) => [block.id, i]))
    this.#input = options.inputs(this.#hooks)
  }

  /**
   * Parks the batch at the call with a recorded durable ask (F2.3): no further call starts,
   * the earlier ones run on and commit, and the waiting call and every later started one are
   * aborted through their own signals; their results are never committed. Policy phases run
   * in model order (L5.7), so none of those later calls passed its policy phase.
   */
  #suspend(pending: PendingApproval): void {
    const index = this.#index.get(pending.callId)
    if (index === undefined || (this.suspended !== undefined && this.suspended.index <= index)) return
    this.suspended = { index, pending }
    for (let i = index; i < this.#parking.length; i++) this.#parking[i]?.abort()
    this.#settled()
  }

  /** Runs rounds until every started call is committed, or nothing more can be. */
  async run(): Promise<void> {
    const { journal, where } = this.#options
    for (;;) {
      const round = this.#plan() ?? (this.#running > 0 ? await this.#settledRound() : undefined)
      // Nothing to write and nothing running: the batch is over.
      if (round === undefined) return
      const { results, starting } = round
      for (let k = 0; k < results.length; k++) {
        journal.stage(toolResultEvent(where, this.#calls[this.#committed + k]!, results[k]!))
      }
      for (const { block } of starting) {
        if (this.#options.called?.has(block.id) !== true) journal.stage(toolCallEvent(where, block))
      }
      try {
        await journal.flush()
      } catch (error) {
        // Results that could not be committed block every later one; calls whose tool/call
        // is not durable never start.
        if (results.length > 0) this.#blocked = true
        this.#fail(error)
        continue
      }
      this.#commit(results)
      // A call parked while its tool/call was being written never starts: it runs on resume (F2.3).
      if (this.suspended !== undefined) continue
      for (const planned of starting) this.#start(planned)
    }
  }

  /** The round planned when a call settles; `undefined` once none runs and nothing is due. */
  #settledRound(): Promise<Round | undefined> {
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }

  /** The next round: what is ready, and the calls that fill the pool; none when both are empty. */
  #plan(): Round | undefined {
    const results = this.#takeReady()
    const starting = this.#fillPool({ committing: results.length > 0 })
    return results.length === 0 && starting.length === 0 ? undefined : { results, starting }
  }

  #stopped(): boolean {
    return this.#options.signal.aborted || this.failure !== undefined || this.suspended !== undefined
  }

  /** The results ready in model order after the last committed one, short of a parked call. */
  #takeReady(): ToolResult[] {
    const results: ToolResult[] = []
    if (this.#blocked) return results
    const end = this.suspended?.index ?? this.#calls.length
    for (let i = this.#committed; i < end && this.#ready[i] !== undefined; i++) results.push(this.#ready[i]!)
    return results
  }

  /**
   * The calls to start with this round's write, each classified right before it starts
   * (L5.1): the free slots of the parallel pool (L5.3, L5.4), or an exclusive call alone once
   * every earlier call's result is durable and none is about to be written (L5.2).
   */
  #fillPool({ committing }: { committing: boolean }): Planned[] {
    if (this.#stopped() || this.#committed <= this.#exclusive) return []
    const starting: Planned[] = []
    if (this.#barrier === undefined) {
      const { view, maxParallel, parse } = this.#options
      while (this.#next < this.#calls.length && this.#running + starting.length < maxParallel) {
        const block = this.#calls[this.#next]!
        const args = frozenOnce(
          parse === undefined ? parseToolArguments(block.arguments, FROZEN) : parse(block),
        )
        // Text that is not JSON parses to a string (L4.1), and so does a JSON string: only then
        // is the text parsed again, to tell the two apart and keep the parser's message (L4.7).
        const reason = typeof args === 'string' ? malformedArguments(block.arguments) : undefined
        const planned: Planned = {
          block,
          args,
          index: this.#next++,
          ...(reason === undefined ? {} : { malformed: malformedArgumentsFailure(reason) }),
        }
        if (view.executionMode({ name: block.name, arguments: args }) === 'exclusive') {
          this.#barrier = planned
          break
        }
        starting.push(planned)
      }
    }
    const barrier = this.#barrier
    if (starting.length === 0 && barrier !== undefined && !committing && this.#committed === barrier.index) {
      this.#barrier = undefined
      this.#exclusive = barrier.index
      starting.push(barrier)
    }
    return starting
  }

  /** Marks durable results committed; contexts join the FIFO in commit order (L7.1). */
  #commit(results: readonly ToolResult[]): void {
    for (const result of results) {
      if (result.additionalContexts) this.#options.queue.defer(result.additionalContexts)
      // Only a success concludes the turn (L7.4).
      if (!result.isError && result.concludesTurn === true) this.concludesTurn = true
      this.#ready[this.#committed++] = undefined
    }
  }

  /** Starts the pipeline of a call whose `tool/call` is durable and keeps its result. */
  #start({ block, args, index, malformed }: Planned): void {
    this.started = index + 1
    this.#running++
    const settled = malformed === undefined ? this.#execute(block, args, index) : Promise.resolve(malformed)
    settled.then(
      (result) => {
        this.#running--
        this.#ready[index] = result
        this.#settled()
      },
      (error: unknown) => {
        // An invariant breach: no further call starts and nothing more is committed (L5.5).
        this.#running--
        this.#blocked = true
        this.#fail(error)
        this.#settled()
      },
    )
  }

  /** Runs the pipeline of a call with its input (L4.3), parkable when the batch is (F2.3). */
  #execute(block: ToolCallBlock, args: unknown, index: number): Promise<ToolResult> {
    const input = this.#input(block, args)
    input.sequence = this.#sequence
    if (this.#options.parkable === true) {
      const parking = new AbortController()
      this.#parking[index] = parking
      input.signal = AbortSignal.any([input.signal, parking.signal])
    }
    return this.#options.runtime.execute(input)
  }

  /**
   * Plans the next round after a call settled, when the loop waits for one: at once, or one
   * microtask later while calls still wait to be classified.
   */
  #settled(): void {
    if (this.#wake === undefined) return
    if (this.#next >= this.#calls.length || this.#stopped()) {
      this.#handOver()
    } else if (!this.#planning) {
      this.#planning = true
      queueMicrotask(() => {
        this.#planning = false
        this.#handOver()
      })
    }
  }

  /** Plans the next round for the waiting loop; keeps it waiting while calls run and none is due. */
  #handOver(): void {
    const wake = this.#wake
    if (wake === undefined) return
    const round = this.#plan()
    if (round === undefined && this.#running > 0) return
    this.#wake = undefined
    wake(round)
  }
}
