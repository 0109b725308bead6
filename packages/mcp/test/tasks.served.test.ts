/**
 * Y6.1–Y6.12: served tasks. A real tooltx server over Streamable HTTP on loopback, spoken to by
 * the official SDK client in a 2025-11-25 session.
 */
import { Client, type StandardSchemaV1, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { afterEach, describe, expect, it } from 'vitest'
import {
  mcpServer,
  memoryTaskStore,
  type ServeTasksOptions,
  serveHttp,
  type TaskStore,
} from '../src/index.js'
import { cleanupAll, cleanups } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** Any object answer (the SDK types leave the `tasks/*` results out of its method map). */
const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
}

/** A tool that waits `ms` (abortably), then answers `a + b`; counts its runs. */
function waitingSum(name: string, effect: 'idempotent' | 'write', runs: { count: number; keys: string[] }) {
  return defineTool({
    name,
    description: 'Add two integers after a wait.',
    parameters: {
      a: { type: 'integer', required: true },
      b: { type: 'integer', required: true },
      ms: { type: 'integer' },
    },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { sum: { type: 'integer', required: true } },
      },
      render: (_args, value) => [{ type: 'text', text: `sum ${value.sum}` }],
    },
    effect,
    async execute(args, run) {
      runs.count++
      runs.keys.push(run.idempotencyKey)
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms ?? 0)
        run.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(new Error('aborted'))
        })
      })
      if (args.a < 0) throw new Error('negative')
      return { sum: args.a + args.b }
    },
  })
}

interface Served {
  runtime: ToolRuntime
  runs: { count: number; keys: string[] }
  url: URL
  close(): Promise<void>
}

async function serve(tasks: Partial<ServeTasksOptions> & { store: TaskStore }): Promise<Served> {
  const runs = { count: 0, keys: [] as string[] }
  const runtime = createToolRuntime()
  runtime.register(waitingSum('sum', 'idempotent', runs))
  runtime.register(waitingSum('pay', 'write', runs))
  runtime.register(waitingSum('quick', 'idempotent', runs))
  const server = mcpServer(runtime, {
    name: 'tasks',
    version: '1.0.0',
    tasks: { tools: ['sum', 'pay'], pollInterval: 20, leaseMs: 150, ...tasks },
  })
  const endpoint = await serveHttp(server)
  const close = async () => {
    await endpoint.close()
    await server.close()
  }
  cleanups.push(close)
  return { runtime, runs, url: endpoint.url, close }
}

async function client(url: URL, setup?: (c: Client) => void, elicit = false): Promise<Client> {
  const c = new Client(
    { name: 'test', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  )
  setup?.(c)
  await c.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => c.close())
  return c
}

const createTask = async (c: Client, name: string, args: Record<string, unknown>, ttl?: number) => {
  const answer = (await c.request({
    method: 'tools/call',
    params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } },
  })) as unknown as { task: { taskId: string; status: string; pollInterval: number; ttl: number | null } }
  return answer.task
}
const taskRequest = (c: Client, method: string, taskId: string) =>
  c.request({ method, params: { taskId } } as never, ANY)
const until = async (c: Client, taskId: string, status: string) => {
  for (let i = 0; i < 200; i++) {
    const task = await taskRequest(c, 'tasks/get', taskId)
    if (task.status === status) return task
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`task ${taskId} never became ${status}`)
}

describe('Y6 served tasks', () => {
  it('Y6.1: the server announces tasks for tools/call and lists long-running tools with taskSupport optional', async () => {
    const { url } = await serve({ store: memoryTaskStore() })
    const c = await client(url)
    expect(c.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    })
    const tools = (await c.listTools()).tools
    expect(tools.find((t) => t.name === 'sum')?.execution).toEqual({ taskSupport: 'optional' })
    expect(tools.find((t) => t.name === 'quick')?.execution).toBeUndefined()
  })

  it('Y6.2, Y6.4, Y6.5, Y6.6: a task call answers at once; the task completes; tasks/result gives the result with its task', async () => {
    const { url, runs } = await serve({ store: memoryTaskStore() })
    const c = await client(url)
    const task = await createTask(c, 'sum', { a: 2, b: 3, ms: 100 }, 60_000)
    expect(task).toMatchObject({ status: 'working', pollInterval: 20, ttl: 60_000 })
    expect(runs.count).toBe(1)
    // tasks/result waits for the end.
    const result = await taskRequest(c, 'tasks/result', task.taskId)
    expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    expect(result.structuredContent).toEqual({ sum: 5 })
    expect((result._meta as Record<string, unknown>)['io.modelcontextprotocol/related-task']).toEqual({
      taskId: task.taskId,
    })
    const done = await taskRequest(c, 'tasks/get', task.taskId)
    expect(done).toMatchObject({ taskId: task.taskId, status: 'completed' })
    expect(Date.parse(done.lastUpdatedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(done.createdAt as string),
    )
    // Without `task` the same tool answers as any call (Y6.2).
    const plain = await c.callTool({ name: 'sum', arguments: { a: 1, b: 1 } })
    expect(plain.content).toEqual([{ type: 'text', text: 'sum 2' }])
  })

  it('Y6.4: a failing run makes the task failed, and its result is the failure', async () => {
    const { url } = await serve({ store: memoryTaskStore() })
    const c = await client(url)
    const task = await createTask(c, 'sum', { a: -1, b: 0 })
    await until(c, task.taskId, 'failed')
    const result = await taskRequest(c, 'tasks/result', task.taskId)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('negative')
  })

  it('Y6.7: tasks/cancel cancels a running task and aborts its run; a terminal task cannot be cancelled', async () => {
    const { url } = await serve({ store: memoryTaskStore() })
    const c = await client(url)
    const task = await createTask(c, 'sum', { a: 1, b: 2, ms: 10_000 })
    const cancelled = await taskRequest(c, 'tasks/cancel', task.taskId)
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the client' })
    await expect(taskRequest(c, 'tasks/result', task.taskId)).rejects.toThrow(
      /was cancelled; it has no result/,
    )
    await expect(taskRequest(c, 'tasks/cancel', task.taskId)).rejects.toThrow(/is already cancelled/)
    await expect(taskRequest(c, 'tasks/get', 'nope')).rejects.toThrow(/unknown task "nope"/)
  })

  it('Y6.8: a task whose instance stopped is adopted by another on the store: an idempotent tool runs again under the same key', async () => {
    const store = memoryTaskStore()
    const first = await serve({ store })
    const c1 = await client(first.url)
    const task = await createTask(c1, 'sum', { a: 4, b: 5, ms: 10_000 })
    await first.close() // stops its runs without recording an outcome
    const second = await serve({ store })
    const c2 = await client(second.url)
    await new Promise((r) => setTimeout(r, 200)) // the first instance's claim lapses
    const adopted = await taskRequest(c2, 'tasks/get', task.taskId)
    expect(adopted).toMatchObject({
      status: 'working',
      statusMessage: 'resumed after the server running it stopped (run 2)',
    })
    // The second run waits 10 s too: cut it short by checking the key, then cancel.
    expect(second.runs.keys).toEqual(first.runs.keys)
    expect((await store.get(task.taskId))?.runs).toBe(2)
    await taskRequest(c2, 'tasks/cancel', task.taskId)
  })

  it('Y6.8: a write tool whose instance stopped is not run again: its task fails TOOL_OUTCOME_UNKNOWN', async () => {
    const store = memoryTaskStore()
    const first = await serve({ store })
    const task = await createTask(await client(first.url), 'pay', { a: 1, b: 1, ms: 10_000 })
    await first.close()
    const second = await serve({ store })
    const c2 = await client(second.url)
    await new Promise((r) => setTimeout(r, 200))
    expect(await taskRequest(c2, 'tasks/get', task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'its server stopped mid-run',
    })
    const result = await taskRequest(c2, 'tasks/result', task.taskId)
    expect(JSON.stringify(result.content)).toContain('TOOL_OUTCOME_UNKNOWN')
    expect(second.runs.count).toBe(0)
  })

  it('Y6.9: an ask during a task goes to the client through elicitation, with the task input_required meanwhile', async () => {
    const { url, runtime } = await serve({ store: memoryTaskStore() })
    runtime.onPreExecute((exec, next) => (exec.name === 'sum' ? { kind: 'ask', reason: 'costly' } : next()))
    let status: unknown
    let taskId = ''
    const c = await client(
      url,
      (c) =>
        c.setRequestHandler('elicitation/create', async (request) => {
          status = (await taskRequest(c, 'tasks/get', taskId)).status
          const params = request.params as {
            requestedSchema: { properties: Record<string, { default?: unknown }> }
          }
          const digest = params.requestedSchema.properties.argumentsDigest!.default as string
          return { action: 'accept', content: { approve: true, argumentsDigest: digest } }
        }),
      true,
    )
    taskId = (await createTask(c, 'sum', { a: 1, b: 2, ms: 50 })).taskId
    const result = await taskRequest(c, 'tasks/result', taskId)
    expect(status).toBe('input_required')
    expect(result.content).toEqual([{ type: 'text', text: 'sum 3' }])
    // A client without elicitation gets DENIED, as a served call does (Y1.7).
    const denied = await createTask(await client(url), 'sum', { a: 1, b: 2 })
    const failed = await taskRequest(c, 'tasks/result', denied.taskId)
    expect(failed.isError).toBe(true)
    expect((failed._meta as Record<string, { code?: string }>)['tooltx/result']?.code).toBe('DENIED')
  })

  it('Y6.10, Y6.11: tasks/list shows tasks newest first; a task past its ttl is forgotten', async () => {
    const { url } = await serve({ store: memoryTaskStore(), ttl: 60_000 })
    const c = await client(url)
    const a = await createTask(c, 'sum', { a: 1, b: 1 })
    await new Promise((r) => setTimeout(r, 5))
    const b = await createTask(c, 'sum', { a: 2, b: 2 }, 400)
    expect(b.ttl).toBe(400)
    const listed = await c.request({ method: 'tasks/list', params: {} } as never, ANY)
    expect((listed.tasks as { taskId: string }[]).map((t) => t.taskId)).toEqual([b.taskId, a.taskId])
    await expect(c.request({ method: 'tasks/list', params: { cursor: 'x' } } as never, ANY)).rejects.toThrow(
      /invalid cursor/,
    )
    await new Promise((r) => setTimeout(r, 450))
    await expect(taskRequest(c, 'tasks/get', b.taskId)).rejects.toThrow(/unknown task/)
  })

  it('Y6.12: bad task options throw INVALID_DEFINITION', () => {
    const runtime = createToolRuntime()
    const make = (tasks: unknown) => () =>
      mcpServer(runtime, { name: 's', version: '1', tasks: tasks as ServeTasksOptions })
    expect(make(null)).toThrow(/mcpServer: tasks must be/)
    expect(make({ tools: 'sum' })).toThrow(/tasks.tools must be an array of tool names/)
    expect(make({ tools: ['sum'], leaseMs: 0 })).toThrow(/tasks.leaseMs must be a positive whole number/)
  })
})
