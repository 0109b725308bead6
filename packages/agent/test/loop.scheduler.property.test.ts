import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession } from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answeredOnce, textOutput } from './loop-harness.js'

/** One call of a random batch: which tool, and how many macrotask ticks its body takes. */
interface CallPlan {
  safe: boolean
  ticks: number
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

/** What the bodies saw: a start and an end position on one shared clock, per call id. */
interface Interval {
  id: string
  safe: boolean
  start: number
  end: number
}

async function runBatch(plan: CallPlan[], maxParallel: number, abortAfterEvents: number | undefined) {
  const session = await openSession(memoryStore(), { id: 'prop', verify: true })
  const runtime = createToolRuntime({ reportError: () => {} })
  const scope = runtime.scope()
  let clock = 0
  let running = 0
  let peak = 0
  const intervals: Interval[] = []
  const body =
    (safe: boolean) => async (args: { id: string; ticks: number }, run: { signal: AbortSignal }) => {
      const interval = { id: args.id, safe, start: clock++, end: -1 }
      intervals.push(interval)
      running++
      peak = Math.max(peak, running)
      for (let i = 0; i < args.ticks && !run.signal.aborted; i++) await tick()
      running--
      interval.end = clock++
      return args.id
    }
  const parameters = {
    id: { type: 'string', required: true },
    ticks: { type: 'integer', required: true },
  } as const
  const output = textOutput
  scope.register(
    defineTool({
      name: 'safe',
      description: 'Safe.',
      parameters,
      output,
      isConcurrencySafe: () => true,
      execute: body(true),
    }),
  )
  scope.register(
    defineTool({ name: 'unsafe', description: 'Exclusive.', parameters, output, execute: body(false) }),
  )
  const ids = plan.map((_, i) => `c${i + 1}`)
  const model = scripted([
    {
      toolCalls: plan.map((call, i) => ({
        id: ids[i],
        name: call.safe ? 'safe' : 'unsafe',
        arguments: JSON.stringify({ id: ids[i], ticks: call.ticks }),
      })),
    },
    { text: 'done' },
  ])
  const agent = createAgent({ runtime, scope, session, model, maxParallelToolCalls: maxParallel })
  if (abortAfterEvents !== undefined) {
    session.on(() => {
      if (session.events().length === abortAfterEvents) agent.abort()
    })
  }
  agent.send('go')
  await agent.whenIdle()
  return { session, intervals, peak, ids }
}

describe('L4–L6 scheduler invariants over random batches (memory session)', () => {
  it('L4.5, L4.6, L5.2, L5.3, L5.4, L6.2, L6.3, L7.5: model-order commit, one result per call, exclusive calls never overlap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ safe: fc.boolean(), ticks: fc.integer({ min: 0, max: 4 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 1, max: 24 }), { nil: undefined }),
        async (plan, maxParallel, abortAfter) => {
          const { session, intervals, peak, ids } = await runBatch(plan, maxParallel, abortAfter)
          const events = session.events()
          const calls = events.flatMap((e) => (e.type === 'tool/call' ? [e.data.callId] : []))
          const results = events.flatMap((e) => (e.type === 'tool/result' ? [e.data.callId] : []))
          const assistantAt = events.findIndex((e) => e.type === 'assistant/message')
          const end = events.at(-1)
          expect(end?.type).toBe('turn/end')
          if (calls.length > 0) {
            // Exactly one tool/call and one tool/result per block, both in model order.
            expect(calls).toEqual(ids)
            expect(results).toEqual(ids)
            // L7.5: nothing but tool events between the assistant message and the last result.
            const lastResult = events.findLastIndex((e) => e.type === 'tool/result')
            const between = events.slice(assistantAt + 1, lastResult + 1).map((e) => e.type)
            expect(between.every((t) => t.startsWith('tool/'))).toBe(true)
            expect(answeredOnce(session)).toBe(true)
          } else {
            // Aborted before the reply was complete: no call was logged or run.
            expect(end?.data).toMatchObject({ reason: 'aborted' })
            expect(intervals).toEqual([])
          }
          // Only logged calls ran, and each body ran once.
          expect(new Set(intervals.map((i) => i.id)).size).toBe(intervals.length)
          // An exclusive call overlapped nothing; the pool never exceeded its cap.
          for (const x of intervals.filter((i) => !i.safe)) {
            for (const other of intervals) {
              if (other === x) continue
              expect(other.end < x.start || other.start > x.end).toBe(true)
            }
          }
          expect(peak).toBeLessThanOrEqual(maxParallel)
          // Calls start in model order.
          const startOrder = [...intervals].sort((a, b) => a.start - b.start).map((i) => i.id)
          expect(startOrder).toEqual(ids.slice(0, startOrder.length))
          // Without an abort every call ran; with one, the unstarted calls carry ABORTED_BEFORE_DISPATCH.
          const reason = end?.type === 'turn/end' ? end.data.reason : undefined
          if (reason === 'completed') expect(intervals).toHaveLength(ids.length)
          else expect(reason).toBe('aborted')
          const synthesized = events.filter(
            (e) => e.type === 'tool/result' && e.data.error?.code === 'ABORTED_BEFORE_DISPATCH',
          )
          expect(synthesized.length).toBe(reason === 'completed' ? 0 : calls.length - intervals.length)
        },
      ),
      { numRuns: 150 },
    )
  })
})
