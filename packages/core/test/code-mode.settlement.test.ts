import {
  type CodeDispatchSettle,
  type CodeDispatchStart,
  createToolRuntime,
  type JsonValue,
} from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { deferred, fakeRuntime, flush, outerCall, recordingSink, tool } from './code-mode.fixtures.js'

/** A tool `slow` that runs until its signal aborts (then throws), recording what it saw. */
function slowTool(seen: { aborted: boolean[]; settled: number }) {
  return tool('slow', {
    execute: (_args: unknown, run: { signal: AbortSignal }) =>
      new Promise((_, reject) => {
        run.signal.addEventListener('abort', () => {
          seen.aborted.push(true)
          // Settling takes a few turns, so "awaited" is observable.
          void flush().then(() => {
            seen.settled++
            reject(new Error('stopped'))
          })
        })
      }),
  })
}

/** The ids and name of sub call `n` (from 1) of the outer call `o` whose root is `root`. */
const subCall = (root: string, n: number, name: string) => ({
  rootCallId: root,
  parentCallId: 'o',
  subCallId: `o:code:${n}`,
  name,
})

describe('X5 code-dispatch log events', () => {
  it('X5.1: a start event is emitted when the scheduler starts a call, with the argument snapshot', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const gate = deferred<JsonValue>()
    rt.register(tool('first', { execute: () => gate.promise }))
    rt.register(tool('second'))
    const { events, sink } = recordingSink()
    const program = fakeRuntime(async ({ tools }) => {
      const args = { deep: { list: [1, 2] } }
      const both = Promise.all([tools.first!({}), tools.second!(args)])
      args.deep.list.push(3)
      await flush()
      // second is submitted but waits behind the exclusive first: no start event yet.
      expect(events.map((e) => `${e.type}:${e.name}`)).toEqual(['start:first'])
      gate.resolve('go')
      return both
    })
    await rt.execute(outerCall(program, { rootCallId: 'root', onCodeDispatch: sink }))
    const starts = events.filter((e): e is CodeDispatchStart => e.type === 'start')
    expect(starts).toEqual([
      {
        type: 'start',
        ...subCall('root', 1, 'first'),
        arguments: {},
      },
      {
        type: 'start',
        ...subCall('root', 2, 'second'),
        arguments: { deep: { list: [1, 2] } },
      },
    ])
    expect(Object.isFrozen(starts[1]!.arguments)).toBe(true)
  })

  it('X5.2: each started call settles exactly once with content and error info, never the value; aborted calls too', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const seen = { aborted: [] as boolean[], settled: 0 }
    rt.register(tool('ok', { execute: async () => ({ secret: 'value only' }) }))
    rt.register(tool('bad', { execute: async () => Promise.reject(new Error('nope')) }))
    rt.register(slowTool(seen))
    const { events, sink } = recordingSink()
    const program = fakeRuntime(async ({ tools }) => {
      await tools.ok!({})
      await tools.bad!({}).catch(() => undefined)
      void tools.slow!({}).catch(() => undefined)
      await flush()
      return 'leaving slow running'
    })
    await rt.execute(outerCall(program, { onCodeDispatch: sink }))
    const settles = events.filter((e): e is CodeDispatchSettle => e.type === 'settle')
    expect(settles).toEqual([
      {
        type: 'settle',
        ...subCall('o', 1, 'ok'),
        isError: false,
        content: [{ type: 'text', text: '{"secret":"value only"}' }],
      },
      {
        type: 'settle',
        ...subCall('o', 2, 'bad'),
        isError: true,
        content: [{ type: 'text', text: 'Error: nope' }],
        error: { name: 'ToolFailedError', code: 'TOOL_FAILED' },
      },
      {
        type: 'settle',
        ...subCall('o', 3, 'slow'),
        isError: true,
        content: [{ type: 'text', text: 'Error: stopped' }],
        error: { name: 'ToolFailedError', code: 'TOOL_FAILED' },
      },
    ])
    for (const e of settles) expect(e).not.toHaveProperty('value')
    expect(events.filter((e) => e.type === 'start')).toHaveLength(3)
  })

  it('X5.4: a pending sink never delays a binding, and run_code returns only after every sink promise settled', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('t'))
    const held = deferred()
    let sinkSettled = false
    const sink = () =>
      held.promise.then(() => {
        sinkSettled = true
      })
    let returned = false
    const program = fakeRuntime(async ({ tools }) => {
      await tools.t!({})
      await tools.t!({})
      return 'both resolved while the sink was pending'
    })
    const done = rt.execute(outerCall(program, { onCodeDispatch: sink })).then((r) => {
      returned = true
      return r
    })
    await flush()
    expect(program.requests).toHaveLength(1)
    expect(returned).toBe(false)
    held.resolve()
    const result = await done
    expect(sinkSettled).toBe(true)
    expect(result).toMatchObject({ value: { result: 'both resolved while the sink was pending' } })
  })

  it('X5.5: a throwing or rejecting sink is reported through reportError; without a sink dispatch works the same', async () => {
    const reported: unknown[] = []
    const rt = createToolRuntime({ mode: 'code', reportError: (e) => reported.push(e) })
    rt.register(tool('t', { execute: async () => 7 }))
    let n = 0
    const sink = () => {
      n++
      if (n === 1) throw new Error('sync sink failure')
      return Promise.reject(new Error('async sink failure'))
    }
    const program = fakeRuntime(async ({ tools }) => tools.t!({}))
    expect(await rt.execute(outerCall(program, { onCodeDispatch: sink }))).toMatchObject({
      value: { result: 7 },
    })
    expect(reported.map((e) => (e as Error).message)).toEqual(['sync sink failure', 'async sink failure'])
    expect(await rt.execute(outerCall(program))).toMatchObject({ value: { result: 7 } })
  })
})

describe('X7 settlement and drain', () => {
  it('X7.1: the run-scoped signal aborts when the outer signal aborts', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const controller = new AbortController()
    let runSignal: AbortSignal | undefined
    const program = fakeRuntime(
      ({ signal }) =>
        new Promise((_, reject) => {
          runSignal = signal
          signal.addEventListener('abort', () => reject(new Error('aborted')))
        }),
    )
    const done = rt.execute(outerCall(program, { signal: controller.signal }))
    await flush()
    expect(runSignal!.aborted).toBe(false)
    controller.abort()
    expect(runSignal!.aborted).toBe(true)
    expect(await done).toMatchObject({ error: { info: { code: 'ABORTED' } } })
  })

  it('X7.1: the run-scoped signal aborts when the run settles, whatever the outcome', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    for (const fail of [false, true]) {
      let runSignal: AbortSignal | undefined
      const program = fakeRuntime(({ signal }) => {
        runSignal = signal
        expect(signal.aborted).toBe(false)
        if (fail) throw new Error('x')
        return 1
      })
      await rt.execute(outerCall(program))
      expect(runSignal!.aborted).toBe(true)
    }
  })

  it('X7.2: on settlement queued calls are abandoned, in-flight ones aborted and awaited, sinks drained, for each reason', async () => {
    for (const reason of ['completed', 'failed', 'aborted'] as const) {
      const rt = createToolRuntime({ mode: 'code' })
      const seen = { aborted: [] as boolean[], settled: 0 }
      rt.register(slowTool(seen))
      let queuedStarted = false
      rt.register(
        tool('queued', {
          execute: async () => {
            queuedStarted = true
            return 1
          },
        }),
      )
      const { events, sink } = recordingSink()
      const controller = new AbortController()
      const abandoned: unknown[] = []
      const program = fakeRuntime(async ({ tools }) => {
        void tools.slow!({}).catch(() => undefined)
        void tools.queued!({}).catch((e: unknown) => abandoned.push(e))
        void tools.queued!({}).catch((e: unknown) => abandoned.push(e))
        await flush()
        if (reason === 'failed') throw new Error('program failed')
        if (reason === 'aborted') {
          controller.abort()
          throw new Error('aborted')
        }
        return 'done'
      })
      const result = await rt.execute(outerCall(program, { onCodeDispatch: sink, signal: controller.signal }))
      expect(result.isError).toBe(reason !== 'completed')
      expect(seen).toEqual({ aborted: [true], settled: 1 })
      expect(queuedStarted).toBe(false)
      await flush()
      expect(abandoned.map((e) => (e as Error).message)).toEqual([
        `run_code run is over (${reason}); queued tool call abandoned`,
        `run_code run is over (${reason}); queued tool call abandoned`,
      ])
      // Abandoned calls are never logged; the in-flight one settled before run_code returned.
      expect(events.map((e) => `${e.type}:${e.name}`)).toEqual(['start:slow', 'settle:slow'])
    }
  })

  it('X7.3: a binding called after the run is over throws "not dispatched", and late results are dropped', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const dispatched: string[] = []
    rt.register(tool('t'))
    rt.onResult((exec) => void dispatched.push(exec.callId))
    let kept: ((args: JsonValue) => Promise<JsonValue>) | undefined
    const program = fakeRuntime(({ tools }) => {
      kept = tools.t
      return 1
    })
    await rt.execute(outerCall(program))
    await expect(kept!({})).rejects.toThrow('run_code run is over (completed); t not dispatched')
    expect(dispatched).toEqual(['o'])

    // A result arriving after the run is over never resolves the binding.
    const rt2 = createToolRuntime({ mode: 'code' })
    const gate = deferred<JsonValue>()
    rt2.register(
      tool('late', {
        execute: async (_a: unknown, run: { signal: AbortSignal }) => {
          run.signal.addEventListener('abort', () => gate.resolve('late'))
          return gate.promise
        },
      }),
    )
    let lateSettled = false
    const program2 = fakeRuntime(async ({ tools }) => {
      void tools.late!({}).then(
        () => (lateSettled = true),
        () => (lateSettled = true),
      )
      await flush()
      return 'over'
    })
    expect(await rt2.execute(outerCall(program2))).toMatchObject({
      isError: false,
      value: { result: 'over' },
    })
    await flush()
    expect(lateSettled).toBe(false)
  })

  it('X7.4: an outer call aborted at entry is ABORTED_BEFORE_DISPATCH and the code runtime is never invoked', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const controller = new AbortController()
    controller.abort()
    const program = fakeRuntime(() => 1)
    const result = await rt.execute(outerCall(program, { signal: controller.signal }))
    expect(result).toMatchObject({
      isError: true,
      error: { message: 'tool call aborted before dispatch', info: { code: 'ABORTED_BEFORE_DISPATCH' } },
    })
    expect(program.requests).toHaveLength(0)
  })

  it('X7.5: an outer abort after the program completed with a value gives ABORTED', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const controller = new AbortController()
    const held = deferred()
    // The sink holds run_code open after the program completed; the abort lands then.
    let completed = false
    const program = fakeRuntime(async ({ tools }) => {
      await tools.t!({})
      completed = true
      return 'value'
    })
    rt.register(tool('t'))
    const done = rt.execute(
      outerCall(program, { signal: controller.signal, onCodeDispatch: () => held.promise }),
    )
    await flush()
    expect(completed).toBe(true)
    controller.abort()
    held.resolve()
    expect(await done).toMatchObject({
      isError: true,
      error: { message: 'tool call aborted', info: { code: 'ABORTED' } },
    })
  })
})
