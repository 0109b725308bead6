import { createToolRuntime, type JsonValue, type ToolRuntime } from '@tooltx/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deferred, fakeRuntime, flush, gates, outerCall, recordingSink, tool } from './code-mode.fixtures.js'

/**
 * A runtime with one tool `job` whose calls are classified by `args.safe`, log `start:<id>`
 * and `end:<id>`, and finish only when the test releases them.
 */
function harness(options: { maxParallelSubCalls?: number } = {}) {
  const rt = createToolRuntime({ mode: 'code', ...options })
  const log: string[] = []
  const gate = gates<JsonValue>()
  let running = 0
  let peak = 0
  rt.register(
    tool('job', {
      isConcurrencySafe: (args: { safe?: boolean; id: string }) => {
        log.push(`classify:${args.id}`)
        return args.safe === true
      },
      execute: async (args: { id: string }) => {
        log.push(`start:${args.id}`)
        running++
        peak = Math.max(peak, running)
        try {
          return await gate(args.id).promise
        } finally {
          running--
          log.push(`end:${args.id}`)
        }
      },
    }),
  )
  return {
    rt,
    log,
    release: (id: string, value: JsonValue = id) => gate(id).resolve(value),
    peak: () => peak,
  }
}

/** Starts a run whose program submits `jobs` at once and returns their values in order. */
function submitAll(
  rt: ToolRuntime,
  jobs: { id: string; safe?: boolean }[],
  extra: Record<string, unknown> = {},
) {
  const settledOrder: string[] = []
  const runtime = fakeRuntime(async ({ tools }) =>
    Promise.all(
      jobs.map((job) =>
        tools.job!(job).then((v) => {
          settledOrder.push(job.id)
          return v
        }),
      ),
    ),
  )
  return { done: rt.execute(outerCall(runtime, extra)), settledOrder }
}

describe('X6 sub-call scheduler', () => {
  it('X6.1: sub-calls start in submission order and are classified when they start, not when submitted', async () => {
    const { rt, log, release } = harness()
    const { done } = submitAll(rt, [{ id: 'x1' }, { id: 'p1', safe: true }, { id: 'x2' }])
    await flush()
    // Only the head was classified: the others wait behind the exclusive x1.
    expect(log).toEqual(['classify:x1', 'start:x1'])
    release('x1')
    await flush()
    // p1 starts; x2 (exclusive) is classified once it could start, and waits for p1.
    expect(log.slice(0, 4)).toEqual(['classify:x1', 'start:x1', 'end:x1', 'classify:p1'])
    expect(log.slice(4).sort()).toEqual(['classify:x2', 'start:p1'])
    release('p1')
    await flush()
    release('x2')
    await done
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start:x1', 'start:p1', 'start:x2'])
  })

  it('X6.2: consecutive parallel sub-calls overlap up to maxParallelSubCalls (default 10, 1 is serial)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 9 }), async (max, n) => {
        const { rt, log, release, peak } = harness({ maxParallelSubCalls: max })
        const ids = Array.from({ length: n }, (_, i) => `p${i}`)
        const { done } = submitAll(
          rt,
          ids.map((id) => ({ id, safe: true })),
        )
        await flush()
        expect(log.filter((l) => l.startsWith('start')).length).toBe(Math.min(max, n))
        for (const id of ids) {
          release(id)
          await flush()
        }
        await done
        expect(peak()).toBe(Math.min(max, n))
      }),
      { numRuns: 30 },
    )
    const defaults = harness()
    const ids = Array.from({ length: 12 }, (_, i) => `p${i}`)
    const { done } = submitAll(
      defaults.rt,
      ids.map((id) => ({ id, safe: true })),
    )
    await flush()
    expect(defaults.log.filter((l) => l.startsWith('start')).length).toBe(10)
    for (const id of ids) defaults.release(id)
    await done
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2']) {
      expect(() => createToolRuntime({ maxParallelSubCalls: bad as number })).toThrow(
        expect.objectContaining({ code: 'INVALID_DEFINITION' }),
      )
    }
  })

  it('X6.3: an exclusive sub-call waits for earlier ones and holds the barrier until its post-execute settled', async () => {
    const { rt, log, release } = harness()
    const post = deferred()
    rt.onPostExecute(async (exec, _r, next) => {
      if ((exec.arguments as { id?: string }).id === 'x') {
        log.push('post:x')
        await post.promise
      }
      return next()
    })
    const { done } = submitAll(rt, [
      { id: 'a', safe: true },
      { id: 'b', safe: true },
      { id: 'x' },
      { id: 'c', safe: true },
    ])
    await flush()
    expect(log.filter((l) => l.startsWith('start'))).toEqual(['start:a', 'start:b'])
    release('a')
    await flush()
    expect(log).not.toContain('start:x')
    release('b')
    await flush()
    expect(log).toContain('start:x')
    release('x')
    await flush()
    expect(log.slice(-2)).toEqual(['end:x', 'post:x'])
    expect(log).not.toContain('start:c')
    post.resolve()
    await flush()
    expect(log).toContain('start:c')
    release('c')
    await done
  })

  it('X6.4: binding promises settle in submission order even when later calls finish first', async () => {
    const { rt, release } = harness()
    const { events, sink } = recordingSink()
    const { done, settledOrder } = submitAll(
      rt,
      ['a', 'b', 'c'].map((id) => ({ id, safe: true })),
      { onCodeDispatch: sink },
    )
    await flush()
    release('c')
    await flush()
    release('b')
    await flush()
    expect(settledOrder).toEqual([])
    release('a')
    const result = await done
    expect(settledOrder).toEqual(['a', 'b', 'c'])
    expect(result).toMatchObject({ value: { result: ['a', 'b', 'c'] } })
    // The calls themselves did finish out of order.
    expect(events.filter((e) => e.type === 'settle').map((e) => e.subCallId)).toEqual([
      'o:code:3',
      'o:code:2',
      'o:code:1',
    ])
  })
})
