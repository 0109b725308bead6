import {
  type AdditionalContext,
  errorMessage,
  parseToolArguments,
  type ToolCallBlock,
  type ToolResult,
} from '@tooltx/core'
import type { Session, ToolResultData } from '@tooltx/session'
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
   * Builds the pipeline input of one call (L4.3); `fail` takes the error of an append made on
   * the call's behalf (approval, code dispatch), which fails the batch like any other (L5.5).
   */
  readonly input: (block: ToolCallBlock, args: unknown, fail: (error: unknown) => void) => ToolCallInput
  /** Receives each committed result's contexts, in commit order (L7.1). */
  readonly onContexts: (contexts: readonly AdditionalContext[]) => void
  /** Asks the view how a call may run, right before it starts (L5.1). */
  readonly classify: (block: ToolCallBlock, args: unknown) => 'parallel' | 'exclusive'
}

/** How a batch ended. */
export type BatchOutcome =
  | { kind: 'completed'; concludesTurn: boolean }
  | { kind: 'aborted' }
  | { kind: 'failed'; message: string }

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
 * Commits results in model order (L4.6). A result waits until every earlier call has its
 * `tool/result`; every result that is ready in order when the log is free is appended in one
 * batch (group commit), so a burst of fast calls costs one durable write, not one each.
 */
class Committer {
  readonly #ctx: BatchContext
  readonly #calls: readonly ToolCallBlock[]
  readonly #fail: (error: unknown) => void
  readonly #ready: (ToolResult | undefined)[] = []
  #committed = 0
  #started = 0
  #writing = false
  /** Set when a result can never be committed (its pipeline rejected, or a commit failed). */
  #blocked = false
  #waiters: (() => void)[] = []
  concludesTurn = false

  constructor(ctx: BatchContext, calls: readonly ToolCallBlock[], fail: (error: unknown) => void) {
    this.#ctx = ctx
    this.#calls = calls
    this.#fail = fail
  }

  /** Tracks the execution of the call at `index`; its rejection blocks every later commit (L5.5). */
  track(index: number, execution: Promise<ToolResult>): void {
    this.#started = index + 1
    execution.then(
      (result) => {
        this.#ready[index] = result
        this.#flush()
      },
      (error: unknown) => {
        this.#blocked = true
        this.#fail(error)
        this.#wake()
      },
    )
  }

  /** Resolves once every started call is committed, or nothing more can be. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve)
      this.#wake()
    })
  }

  #flush(): void {
    if (this.#writing || this.#blocked) return
    const { turn, step, session } = this.#ctx
    const batch: ToolResult[] = []
    for (let i = this.#committed; this.#ready[i] !== undefined; i++) batch.push(this.#ready[i]!)
    if (batch.length === 0) {
      this.#wake()
      return
    }
    const first = this.#committed
    const events = batch.map((result, k) => ({
      type: 'tool/result' as const,
      data: durableResult(turn, step, this.#calls[first + k]!, result),
    }))
    this.#writing = true
    const written =
      events.length === 1 ? session.append('tool/result', events[0]!.data) : session.appendBatch(events)
    written.then(
      () => {
        for (const result of batch) {
          // Contexts join the FIFO in commit order (L7.1); only a success concludes (L7.4).
          if (result.additionalContexts) this.#ctx.onContexts(result.additionalContexts)
          if (!result.isError && result.concludesTurn === true) this.concludesTurn = true
          this.#ready[this.#committed++] = undefined
        }
        this.#writing = false
        this.#flush()
      },
      (error: unknown) => {
        this.#writing = false
        this.#blocked = true
        this.#fail(error)
        this.#wake()
      },
    )
  }

  #wake(): void {
    if (this.#writing || (this.#committed < this.#started && !this.#blocked)) return
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }
}

/**
 * Runs the tool calls of one assistant message (L4–L6). Calls start in model order, each
 * classified right before it starts (L5.1); consecutive parallel calls share a rolling pool
 * capped at `maxParallel` (L5.3, L5.4); an exclusive call is a barrier on both sides (L5.2).
 * The calls that start at the same moment (the free slots of the pool) have their `tool/call`
 * events appended in one durable write right before their pipelines start (L4.4, L4.5);
 * results are committed in model order, ready ones together (L4.6). On abort, started calls
 * are awaited and committed and the rest get synthesized pairs (L6); on a pipeline rejection
 * or a failed append nothing more starts, started calls are awaited, and nothing is
 * fabricated (L5.5).
 */
export async function runBatch(ctx: BatchContext, calls: readonly ToolCallBlock[]): Promise<BatchOutcome> {
  const { session, turn, step, signal } = ctx
  let failure: string | undefined
  const fail = (error: unknown): void => {
    failure ??= errorMessage(error)
  }
  const stopped = (): boolean => signal.aborted || failure !== undefined
  const commits = new Committer(ctx, calls, fail)
  const running = new Set<Promise<unknown>>()
  let started = 0

  /** Appends the group's tool/call events, then starts each pipeline; false if the append failed. */
  const start = async (group: readonly Planned[]): Promise<boolean> => {
    const events = group.map(({ block }) => ({
      type: 'tool/call' as const,
      data: { turn, step, callId: block.id, name: block.name, arguments: block.arguments },
    }))
    try {
      if (events.length === 1) await session.append('tool/call', events[0]!.data)
      else await session.appendBatch(events)
    } catch (error) {
      fail(error)
      return false
    }
    for (const { block, args, index } of group) {
      started = index + 1
      const execution = ctx.runtime.execute(ctx.input(block, args, fail))
      const tracked: Promise<void> = execution.then(
        () => void running.delete(tracked),
        () => void running.delete(tracked),
      )
      running.add(tracked)
      commits.track(index, execution)
    }
    return true
  }

  for (let index = 0; index < calls.length; ) {
    while (running.size >= ctx.maxParallel) await Promise.race(running)
    if (stopped()) break
    // The calls that can start now, each classified right before it starts (L5.1).
    const group: Planned[] = []
    let barrier: Planned | undefined
    while (index < calls.length && running.size + group.length < ctx.maxParallel) {
      const block = calls[index]!
      const args = parseToolArguments(block.arguments)
      const planned = { block, args, index: index++ }
      if (ctx.classify(block, args) === 'exclusive') {
        barrier = planned
        break
      }
      group.push(planned)
    }
    if (group.length > 0 && !(await start(group))) break
    if (barrier === undefined) continue
    // An exclusive call starts only after every earlier call has its tool/result, and
    // nothing after it starts before its own tool/result is appended (L5.2).
    await commits.settled()
    if (stopped() || !(await start([barrier]))) break
    await commits.settled()
  }

  await Promise.allSettled([...running])
  await commits.settled()
  if (failure !== undefined) return { kind: 'failed', message: failure }
  if (!signal.aborted) return { kind: 'completed', concludesTurn: commits.concludesTurn }

  const unstarted = calls.slice(started)
  if (unstarted.length > 0) {
    try {
      await session.appendBatch(unstarted.flatMap((block) => abortedPair(turn, step, block)))
    } catch (error) {
      return { kind: 'failed', message: errorMessage(error) }
    }
  }
  return { kind: 'aborted' }
}

/** The synthesized `tool/call` + `tool/result` of a call the abort kept from starting (L6.3). */
function abortedPair(turn: number, step: number, block: ToolCallBlock) {
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
        content: [{ type: 'text', text: 'Error: tool call aborted before dispatch' }],
        isError: true,
        error: { name: 'AbortError', code: 'ABORTED_BEFORE_DISPATCH' },
      },
    },
  ]
}
