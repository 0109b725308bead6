/**
 * Y6.13–Y6.17, Y6.18: task calls from `mcpTools` against a real tooltx server with tasks over
 * Streamable HTTP on loopback; and the run context's `receipts`.
 */
import {
  createToolRuntime,
  defineTool,
  type JsonValue,
  RESUMABLE_RECEIPT_KEY,
  type ToolRuntime,
} from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, mcpTools, memoryTaskStore, serveHttp, type TaskStore } from '../src/index.js'
import { cleanupAll, cleanups, fixture } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** A server whose `sum` is long-running; `calls` counts the bodies that started. */
async function taskServer(store: TaskStore): Promise<{ url: URL; calls: { count: number } }> {
  const calls = { count: 0 }
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'sum',
      description: 'Add two integers after a wait.',
      parameters: {
        a: { type: 'integer', required: true },
        b: { type: 'integer', required: true },
        ms: { type: 'integer' },
      },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      async execute(args, run) {
        calls.count++
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, args.ms ?? 0)
          run.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            resolve()
          })
        })
        return `sum ${args.a + args.b}`
      },
    }),
  )
  const server = mcpServer(runtime, {
    name: 'tasks',
    version: '1.0.0',
    tasks: { tools: ['sum'], store, pollInterval: 20 },
  })
  const endpoint = await serveHttp(server)
  cleanups.push(async () => {
    await endpoint.close()
    await server.close()
  })
  return { url: endpoint.url, calls }
}

async function importer(url: URL, tasks: boolean | string[]): Promise<ToolRuntime> {
  const set = await mcpTools({ url }, { name: 'remote', tasks })
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  return runtime
}

const call = (
  runtime: ToolRuntime,
  extra: Record<string, unknown> = {},
  args: Record<string, unknown> = { a: 2, b: 3, ms: 100 },
) =>
  runtime.execute({
    callId: 'c1',
    name: 'mcp__remote__sum',
    arguments: args,
    signal: new AbortController().signal,
    ...extra,
  })

describe('Y6 task calls', () => {
  it('Y6.13, Y6.14, Y6.15: an opted-in call is a task: its id is recorded as a resumable receipt before it waits, and each poll is progress', async () => {
    const store = memoryTaskStore()
    const { url } = await taskServer(store)
    const runtime = await importer(url, true)
    const order: string[] = []
    const progress: JsonValue[] = []
    runtime.onProgress((_exec, update) => {
      order.push('progress')
      progress.push(update)
    })
    const receipts: JsonValue[] = []
    const result = await call(runtime, {
      onEffect: async (effect: { receipt: JsonValue }) => {
        order.push('receipt')
        receipts.push(effect.receipt)
      },
    })
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    const [task] = await store.list(0, 10)
    expect(receipts).toEqual([
      { [RESUMABLE_RECEIPT_KEY]: true, mcpTask: { server: 'remote', tool: 'sum', taskId: task!.taskId } },
    ])
    expect(order[0]).toBe('receipt')
    expect(progress.at(-1)).toMatchObject({ message: `task ${task!.taskId} completed` })
    expect(progress[0]).toMatchObject({ progress: 1 })
    expect(progress.map((p) => (p as { progress: number }).progress)).toEqual(progress.map((_p, i) => i + 1))
  })

  it('Y6.13, Y6.15: over a 2025 session (stdio) a task call is the 2025-11-25 utility: task {}, polls, tasks/result', async () => {
    const set = await mcpTools(
      { command: process.execPath, args: [fixture('task-stdio-server.mjs')], stderr: 'ignore' },
      { name: 'remote', tasks: true },
    )
    cleanups.push(() => set.close())
    expect(set.client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
    const runtime = createToolRuntime()
    set.register(runtime)
    const progress: JsonValue[] = []
    runtime.onProgress((_exec, update) => progress.push(update))
    const receipts: JsonValue[] = []
    const result = await call(runtime, {
      onEffect: async (effect: { receipt: JsonValue }) => receipts.push(effect.receipt),
    })
    expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    const taskId = (receipts[0] as { mcpTask: { taskId: string } }).mcpTask.taskId
    expect(progress.at(-1)).toMatchObject({ message: `task ${taskId} completed` })
  })

  it('Y6.13: without opting in (or for a tool not named) the call is an ordinary tools/call', async () => {
    const store = memoryTaskStore()
    const { url } = await taskServer(store)
    for (const tasks of [false, ['other']]) {
      const result = await call(await importer(url, tasks))
      expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    }
    expect(await store.list(0, 10)).toEqual([])
  })

  it('Y6.16: a call given the receipt of its earlier attempt polls that task and calls nothing again', async () => {
    const store = memoryTaskStore()
    const { url, calls } = await taskServer(store)
    const runtime = await importer(url, true)
    let receipt: JsonValue = null
    const first = new AbortController()
    // The first attempt dies right after recording its receipt (as a crashed agent would).
    const abandoned = runtime.execute({
      callId: 'c1',
      name: 'mcp__remote__sum',
      arguments: { a: 2, b: 3, ms: 300 },
      signal: first.signal,
      onEffect: async (effect) => {
        receipt = effect.receipt
      },
    })
    while (receipt === null) await new Promise((r) => setTimeout(r, 10))
    const again = await call(runtime, { receipts: [receipt] }, { a: 2, b: 3, ms: 300 })
    expect(again.content).toEqual([{ type: 'text', text: 'sum 5' }])
    expect(calls.count).toBe(1)
    expect(await store.list(0, 10)).toHaveLength(1)
    first.abort()
    await abandoned
  })

  it('Y6.17: an aborted task call fails ABORTED and cancels its task', async () => {
    const store = memoryTaskStore()
    const { url } = await taskServer(store)
    const runtime = await importer(url, true)
    const controller = new AbortController()
    let started = false
    runtime.onProgress(() => {
      started = true
    })
    const pending = call(runtime, { signal: controller.signal }, { a: 1, b: 1, ms: 10_000 })
    while (!started) await new Promise((r) => setTimeout(r, 10))
    controller.abort()
    const result = await pending
    expect(result.isError && result.error.info.code).toBe('ABORTED')
    const [task] = await store.list(0, 10)
    for (let i = 0; i < 100 && (await store.get(task!.taskId))?.status !== 'cancelled'; i++)
      await new Promise((r) => setTimeout(r, 20))
    expect((await store.get(task!.taskId))?.status).toBe('cancelled')
  })

  it('Y6.18: run.receipts holds the input receipts, frozen, and [] without; malformed receipts are an invariant breach', async () => {
    const runtime = createToolRuntime()
    const seen: unknown[] = []
    runtime.register(
      defineTool({
        name: 'peek',
        description: 'Reports its receipts.',
        parameters: {},
        execute(_args, run) {
          seen.push(run.receipts, Object.isFrozen(run.receipts))
          return 'ok'
        },
      }),
    )
    const signal = new AbortController().signal
    await runtime.execute({ callId: 'a', name: 'peek', arguments: {}, signal })
    await runtime.execute({ callId: 'b', name: 'peek', arguments: {}, signal, receipts: [{ n: 1 }] })
    expect(seen).toEqual([[], true, [{ n: 1 }], true])
    await expect(
      runtime.execute({ callId: 'c', name: 'peek', arguments: {}, signal, receipts: 'no' as never }),
    ).rejects.toThrow(/receipts must be an array of lossless JSON receipts/)
  })
})
