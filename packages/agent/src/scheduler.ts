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

/**
 * Runs the tool calls of one assistant message (L4–L6). Calls start in model order, each
 * classified right before it starts; consecutive parallel calls share a rolling pool capped
 * at `maxParallel`; an exclusive call is a barrier on both sides. `tool/call` is appended
 * right before a call's pipeline, `tool/result` in model order as results arrive. On abort,
 * started calls are awaited and committed and the rest get synthesized pairs; on a pipeline
 * rejection or a failed append nothing more starts, started calls are awaited, and nothing
 * is fabricated (L5.5).
 */
export async function runBatch(ctx: BatchContext, calls: readonly ToolCallBlock[]): Promise<BatchOutcome> {
  const { session, turn, step, signal } = ctx
  let failure: string | undefined
  let concludesTurn = false
  const running = new Set<Promise<unknown>>()
  // The commit of call i waits for the commit of call i - 1, so results land in model order.
  let lastCommit: Promise<void> = Promise.resolve()
  let started = 0
  const fail = (error: unknown): void => {
    failure ??= errorMessage(error)
  }
  const stopped = (): boolean => signal.aborted || failure !== undefined

  for (const block of calls) {
    while (running.size >= ctx.maxParallel) await Promise.race(running)
    if (stopped()) break
    const args = parseToolArguments(block.arguments)
    const exclusive = ctx.classify(block, args) === 'exclusive'
    // An exclusive call starts only after every earlier call has its tool/result (L5.2).
    if (exclusive) await lastCommit.catch(() => undefined)
    if (stopped()) break
    try {
      await session.append('tool/call', {
        turn,
        step,
        callId: block.id,
        name: block.name,
        arguments: block.arguments,
      })
    } catch (error) {
      fail(error)
      break
    }
    started++
    const execution = ctx.runtime.execute(ctx.input(block, args, fail))
    const tracked: Promise<void> = execution.then(
      () => {
        running.delete(tracked)
      },
      (error: unknown) => {
        running.delete(tracked)
        fail(error)
      },
    )
    running.add(tracked)
    const previous = lastCommit
    lastCommit = (async () => {
      await previous
      const result = await execution
      await session.append('tool/result', durableResult(turn, step, block, result))
      if (result.additionalContexts) ctx.onContexts(result.additionalContexts)
      if (!result.isError && result.concludesTurn === true) concludesTurn = true
    })()
    lastCommit.catch(fail)
    // Nothing after an exclusive call starts before its own tool/result is appended (L5.2).
    if (exclusive) await lastCommit.catch(() => undefined)
  }

  await Promise.allSettled([...running])
  await lastCommit.catch(() => undefined)
  if (failure !== undefined) return { kind: 'failed', message: failure }
  if (!signal.aborted) return { kind: 'completed', concludesTurn }

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
