/**
 * Y6.22–Y6.27: durable tasks over the Tasks extension of the 2026-07-28 revision
 * (`io.modelcontextprotocol/tasks`): a real tooltx server over Streamable HTTP on loopback,
 * spoken to by the official SDK client (pinned to 2026-07-28, for the wire) and by `mcpTools`.
 */
import { randomUUID } from 'node:crypto'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createToolRuntime, defineTool, type JsonValue, type ToolRuntime } from '@tooltx/core'
import fc from 'fast-check'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { liftTaskCreation, liftTaskResults } from '../src/client/task-result-lift.js'
import {
  type ElicitAnswer,
  elicit,
  mcpServer,
  mcpTools,
  memoryTaskStore,
  postgresTaskStore,
  type ServeTasksOptions,
  serveHttp,
  type TaskStore,
} from '../src/index.js'
import { ANY, cleanupAll, cleanups, EXTENSION } from './mcp.fixtures.js'

requirePostgresInCi('Y6.26')
afterEach(cleanupAll)

/** An answer without the `_meta` a 2026 server stamps on every result (its `serverInfo`). */
const bare = ({ _meta, ...rest }: Record<string, unknown>) => rest

/** The arguments digest an approval form asks about. */
const digestOf = (schema: unknown) =>
  (schema as { properties: { argumentsDigest: { default: string } } }).properties.argumentsDigest.default

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A served runtime: `sum` waits `ms` then adds; `deploy` asks first; `greet` asks its own form. */
function servedRuntime(ran: string[]): ToolRuntime {
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
      effect: 'idempotent',
      async execute(args, run) {
        ran.push(`sum ${args.a} ${args.b}`)
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, args.ms ?? 0)
          run.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            resolve(undefined)
          })
        })
        return `sum ${args.a + args.b}`
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a service.',
      parameters: { service: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      effect: 'idempotent',
      execute: ({ service }) => {
        ran.push(`deploy ${service}`)
        return `deployed ${service}`
      },
    }),
  )
  runtime.register(
    defineTool({
      name: 'greet',
      description: 'Greet the person by the name they give.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      async execute(_args, run) {
        const reply = await elicit(run, {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        })
        return reply.action === 'accept' ? `hello ${String(reply.content.name)}` : `no name (${reply.action})`
      },
    }),
  )
  runtime.onPreExecute((exec, next) =>
    exec.name === 'deploy' ? { kind: 'ask', reason: 'it deploys' } : next(),
  )
  return runtime
}

/** A tooltx server with tasks for every tool, over HTTP on loopback. */
async function serve(
  store: TaskStore,
  extra: Partial<ServeTasksOptions> = {},
  approvalTimeoutMs?: number,
): Promise<{ url: URL; ran: string[]; close: () => Promise<void> }> {
  const ran: string[] = []
  const server = mcpServer(servedRuntime(ran), {
    name: 'tasks26',
    version: '1.0.0',
    tasks: { tools: ['sum', 'deploy', 'greet'], store, pollInterval: 20, ...extra },
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
  })
  const endpoint = await serveHttp(server)
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await endpoint.close()
    await server.close()
  }
  cleanups.push(close)
  return { url: endpoint.url, ran, close }
}

/** The official SDK client on 2026-07-28, declaring the extension (or not); `raw` gets each answer's text. */
async function sdkClient(url: URL, declare: boolean, elicitation = false) {
  const raw: string[] = []
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    response
      .clone()
      .text()
      .then(
        (text) => raw.push(text),
        () => undefined,
      )
    return response
  }
  const capabilities = {
    ...(declare ? { extensions: { [EXTENSION]: {} } } : {}),
    ...(elicitation ? { elicitation: { form: {} } } : {}),
  }
  const client = new Client(
    { name: 'tasks26-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities },
  )
  await client.connect(liftTaskResults(new StreamableHTTPClientTransport(url, { fetch: recording })))
  cleanups.push(() => client.close())
  const request = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, ANY)
  return { client, raw, request }
}

/** Polls `tasks/get` until `done` holds of the answer. */
async function until(
  request: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const task = await request('tasks/get', { taskId })
    if (done(task)) return task
    await pause(20)
  }
  throw new Error(`task ${taskId} never got there`)
}

describe('Y6.22–Y6.25 the Tasks extension, served', () => {
  it('Y6.22: a declaring tools/call of a long-running tool is a durable task at once; tasks/get inlines the result', async () => {
    const store = memoryTaskStore()
    const { url, ran } = await serve(store)
    const { client, raw, request } = await sdkClient(url, true)
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION]: {} })
    const listed = await client.listTools()
    expect(listed.tools.every((tool) => tool.execution === undefined)).toBe(true)

    const created = await request('tools/call', { name: 'sum', arguments: { a: 2, b: 3, ms: 150 } })
    const task = created.task as Record<string, unknown>
    expect(task).toMatchObject({ status: 'working', ttlMs: 86_400_000, pollIntervalMs: 20 })
    // On the wire: the extension's CreateTaskResult, its fields at the top.
    const wire = raw
      .map((text) => text.match(/\{"result".*\}|\{.*"result".*\}/)?.[0])
      .find((t) => t?.includes('"task"'))
    const answer = JSON.parse(wire!).result as Record<string, unknown>
    expect(answer).toMatchObject({ resultType: 'task', taskId: task.taskId, status: 'working' })
    expect(typeof answer.createdAt).toBe('string')
    // Durable before the answer, with no session: the revision is stateless.
    const stored = await store.get(task.taskId as string)
    expect(stored?.status).toBe('working')
    expect(stored?.session).toBeUndefined()

    const done = await until(request, task.taskId as string, (t) => t.status === 'completed')
    expect(done.result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'sum 5' }] })
    expect(ran).toEqual(['sum 2 3'])
    await expect(request('tasks/get', { taskId: 'nope' })).rejects.toThrow(/unknown task "nope"/)
  })

  it('Y6.22: without declaring the extension the call is an ordinary one, and tasks/* are error -32021', async () => {
    const store = memoryTaskStore()
    const { url } = await serve(store)
    const { client, request } = await sdkClient(url, false)
    const result = await client.callTool({ name: 'sum', arguments: { a: 1, b: 1 } })
    expect(result.content).toEqual([{ type: 'text', text: 'sum 2' }])
    expect(await store.list(0, 10)).toEqual([])
    await expect(request('tasks/get', { taskId: 'x' })).rejects.toMatchObject({ code: -32021 })
  })

  it('Y6.25: tasks/cancel acknowledges with an empty result and cancels a running task; an ended task is acknowledged too', async () => {
    const store = memoryTaskStore()
    const { url } = await serve(store)
    const { request } = await sdkClient(url, true)
    const created = await request('tools/call', { name: 'sum', arguments: { a: 1, b: 2, ms: 10_000 } })
    const taskId = (created.task as { taskId: string }).taskId
    expect(bare(await request('tasks/cancel', { taskId }))).toEqual({})
    const cancelled = await request('tasks/get', { taskId })
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the client' })
    expect(cancelled.result).toBeUndefined()
    expect(bare(await request('tasks/cancel', { taskId }))).toEqual({})
    await expect(request('tasks/cancel', { taskId: 'nope' })).rejects.toThrow(/unknown task/)
  })

  it('Y6.23, Y6.24: an ask is the task input_required with an approval form; tasks/update answers it, other keys are ignored', async () => {
    const store = memoryTaskStore()
    const { url, ran } = await serve(store)
    const { request } = await sdkClient(url, true, true)
    const created = await request('tools/call', { name: 'deploy', arguments: { service: 'api' } })
    const taskId = (created.task as { taskId: string }).taskId
    const asking = await until(request, taskId, (t) => t.status === 'input_required')
    expect(asking.statusMessage).toBe('waiting for approval')
    const requests = asking.inputRequests as Record<
      string,
      { method: string; params: { requestedSchema: unknown } }
    >
    const [key, ask] = Object.entries(requests)[0]!
    expect(key).toMatch(/^tooltx\/approval-[0-9a-f-]{36}$/)
    expect(ask.method).toBe('elicitation/create')
    const digest = digestOf(ask.params.requestedSchema)
    // A key that is not outstanding is ignored; the task still waits.
    expect(
      bare(
        await request('tasks/update', {
          taskId,
          inputResponses: { other: { action: 'accept', content: {} } },
        }),
      ),
    ).toEqual({})
    expect((await request('tasks/get', { taskId })).status).toBe('input_required')
    const approve = { action: 'accept', content: { approve: true, argumentsDigest: digest } }
    expect(bare(await request('tasks/update', { taskId, inputResponses: { [key]: approve } }))).toEqual({})
    const done = await until(request, taskId, (t) => t.status === 'completed')
    expect(done.result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'deployed api' }] })
    expect(ran).toEqual(['deploy api'])
    expect(JSON.parse((await store.get(taskId))!.inputResponses!)).toEqual({ [key]: approve })
    await expect(request('tasks/update', { taskId: 'nope', inputResponses: {} })).rejects.toThrow(
      /unknown task/,
    )
  })

  it('Y6.23, Y6.24: an answer that is not an object answers nothing: the task still waits, then ends DENIED', async () => {
    const { url, ran } = await serve(memoryTaskStore(), {}, 500)
    const { request } = await sdkClient(url, true, true)
    const created = await request('tools/call', { name: 'deploy', arguments: { service: 'api' } })
    const taskId = (created.task as { taskId: string }).taskId
    const asking = await until(request, taskId, (t) => t.status === 'input_required')
    const [key] = Object.keys(asking.inputRequests as object)
    await request('tasks/update', { taskId, inputResponses: { [key!]: 'yes' } })
    expect((await request('tasks/get', { taskId })).status).toBe('input_required')
    const done = await until(request, taskId, (t) => t.status === 'completed')
    expect(
      (done.result as { _meta?: Record<string, { code?: string }> })._meta?.['tooltx/result']?.code,
    ).toBe('DENIED')
    expect(ran).toEqual([])
  })

  it('Y6.23: a request without elicitation fails its asks closed; an input never given ends the ask after approvalTimeoutMs', async () => {
    const { url, ran } = await serve(memoryTaskStore(), {}, 300)
    const codeOf = (task: Record<string, unknown>) =>
      (task.result as { _meta?: Record<string, { code?: string }> })._meta?.['tooltx/result']?.code
    const bare = await sdkClient(url, true)
    const denied = await bare.request('tools/call', { name: 'deploy', arguments: { service: 'db' } })
    const deniedTask = await until(
      bare.request,
      (denied.task as { taskId: string }).taskId,
      (t) => t.status === 'completed',
    )
    expect(codeOf(deniedTask)).toBe('DENIED')
    const asked = await sdkClient(url, true, true)
    const silent = await asked.request('tools/call', { name: 'deploy', arguments: { service: 'web' } })
    const silentId = (silent.task as { taskId: string }).taskId
    await until(asked.request, silentId, (t) => t.status === 'input_required')
    const ended = await until(asked.request, silentId, (t) => t.status === 'completed')
    expect(codeOf(ended)).toBe('DENIED')
    expect(ran).toEqual([])
  })
})

/** `mcpTools` over the extension: an importer whose `onElicit` answers with `answer`. */
async function importer(
  url: URL,
  answer?: (question: { message: string; requestedSchema: unknown }) => ElicitAnswer,
) {
  const set = await mcpTools(
    { url },
    { name: 'remote', tasks: true, trusted: true, ...(answer === undefined ? {} : { onElicit: answer }) },
  )
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  const progress: JsonValue[] = []
  runtime.onProgress((_exec, update) => progress.push(update))
  const call = (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    runtime.execute({
      callId: `c_${randomUUID()}`,
      name: `mcp__remote__${name}`,
      arguments: args,
      signal: new AbortController().signal,
      ...extra,
    })
  return { call, progress, client: set.client }
}

describe('Y6.27 mcpTools over the Tasks extension', () => {
  it('Y6.27: an opted-in call speaks the extension: a receipt before it waits, polls as progress, the result from tasks/get', async () => {
    const store = memoryTaskStore()
    const { url } = await serve(store)
    const { call, progress, client } = await importer(url)
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const receipts: JsonValue[] = []
    const result = await call(
      'sum',
      { a: 2, b: 3, ms: 120 },
      { onEffect: async ({ receipt }: { receipt: JsonValue }) => receipts.push(receipt) },
    )
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([{ type: 'text', text: 'sum 5' }])
    const [task] = await store.list(0, 10)
    expect(task?.session).toBeUndefined()
    expect(receipts).toEqual([
      { 'tooltx/resumable': true, mcpTask: { server: 'remote', tool: 'sum', taskId: task!.taskId } },
    ])
    expect(progress.at(-1)).toMatchObject({ message: `task ${task!.taskId} completed` })
    // A receipt of an earlier attempt re-attaches: nothing is called again.
    const again = await call('sum', { a: 2, b: 3 }, { receipts })
    expect(again.content).toEqual([{ type: 'text', text: 'sum 5' }])
    expect(await store.list(0, 10)).toHaveLength(1)
  })

  it('Y6.27, Y6.23: an approval is answered through onElicit: approved it runs; declined, or for other arguments, it is DENIED', async () => {
    const { url, ran } = await serve(memoryTaskStore())
    let mode: 'approve' | 'decline' | 'forge' = 'approve'
    const asked: string[] = []
    const { call, progress } = await importer(url, (question): ElicitAnswer => {
      asked.push(question.message)
      if (mode === 'decline') return { action: 'decline' }
      // Leaving the digest out takes the form's default: the digest asked about.
      if (mode === 'approve') return { action: 'accept', content: { approve: true } }
      return { action: 'accept', content: { approve: true, argumentsDigest: '0'.repeat(64) } }
    })
    const approved = await call('deploy', { service: 'api' })
    expect(approved.content).toEqual([{ type: 'text', text: 'deployed api' }])
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatch(/^Allow the tool call deploy \{"service":"api"\} \(it deploys\)\?/)
    expect(
      progress.some((p) => /input_required: waiting for approval$/.test((p as { message: string }).message)),
    ).toBe(true)
    mode = 'decline'
    const declined = await call('deploy', { service: 'db' })
    expect(declined.isError && declined.error.info.code).toBe('DENIED')
    mode = 'forge'
    const forged = await call('deploy', { service: 'web' })
    expect(forged.isError && forged.error.info.code).toBe('DENIED')
    expect(asked).toHaveLength(3)
    expect(ran).toEqual(['deploy api'])
  })

  it("Y6.27, Y6.23: a body's own form is an input request of the task, answered through onElicit", async () => {
    const { url } = await serve(memoryTaskStore())
    const { call } = await importer(url, () => ({ action: 'accept', content: { name: 'Ada' } }))
    expect((await call('greet', {})).content).toEqual([{ type: 'text', text: 'hello Ada' }])
    const { call: unasked } = await importer(url)
    expect((await unasked('greet', {})).content).toEqual([{ type: 'text', text: 'no name (cancel)' }])
  })
})

describe('Y6.27 the lift of task creations', () => {
  it('Y6.27: a task creation is lifted with every field kept under task; any other message is left as it is', () => {
    const json = fc.jsonValue() as fc.Arbitrary<unknown>
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), json),
        fc.oneof(fc.constant('task'), fc.string(), json),
        (fields, type) => {
          const { resultType: _ignored, _meta, ...rest } = fields
          const message = { jsonrpc: '2.0' as const, id: 7, result: { ...rest, resultType: type } }
          const lifted = liftTaskCreation(message as never)
          if (type !== 'task') expect(lifted).toBe(message)
          else
            expect(lifted).toEqual({
              jsonrpc: '2.0',
              id: 7,
              result: { resultType: 'complete', content: [], task: rest },
            })
        },
      ),
    )
    const request = { jsonrpc: '2.0' as const, id: 1, method: 'tools/call', params: { resultType: 'task' } }
    expect(liftTaskCreation(request as never)).toBe(request)
  })
})

const pgTable = `tasks26_${randomUUID().replaceAll('-', '').slice(0, 12)}`
afterAll(async () => {
  if (POSTGRES_URL === undefined) return
  const pg = await import('pg')
  const client = new pg.default.Client({ connectionString: POSTGRES_URL })
  await client.connect()
  await client.query(`DROP TABLE IF EXISTS ${pgTable}`)
  await client.end()
})

describe.runIf(POSTGRES_URL !== undefined)('Y6.26 any instance on PostgreSQL', () => {
  it('Y6.26: a task run by one instance is seen and answered through another; after its instance stops, a resumed run asks nobody', async () => {
    const storeA = postgresTaskStore(POSTGRES_URL!, { table: pgTable })
    const storeB = postgresTaskStore(POSTGRES_URL!, { table: pgTable })
    cleanups.push(
      () => storeA.close(),
      () => storeB.close(),
    )
    const a = await serve(storeA, { leaseMs: 600 })
    const b = await serve(storeB, { leaseMs: 600 })
    const viaA = await sdkClient(a.url, true, true)
    const viaB = await sdkClient(b.url, true, true)
    const created = await viaA.request('tools/call', { name: 'deploy', arguments: { service: 'api' } })
    const taskId = (created.task as { taskId: string }).taskId
    const asking = await until(viaB.request, taskId, (t) => t.status === 'input_required')
    const [key, ask] = Object.entries(
      asking.inputRequests as Record<string, { params: { requestedSchema: unknown } }>,
    )[0]!
    const approve = {
      action: 'accept',
      content: { approve: true, argumentsDigest: digestOf(ask.params.requestedSchema) },
    }
    await viaB.request('tasks/update', { taskId, inputResponses: { [key]: approve } })
    const done = await until(viaB.request, taskId, (t) => t.status === 'completed')
    expect(done.result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'deployed api' }] })
    expect([a.ran, b.ran]).toEqual([['deploy api'], []])

    // A stops while its task waits for input; B adopts it, and the resumed run's ask fails closed.
    const second = await viaA.request('tools/call', { name: 'deploy', arguments: { service: 'db' } })
    const secondId = (second.task as { taskId: string }).taskId
    await until(viaA.request, secondId, (t) => t.status === 'input_required')
    await a.close()
    await pause(700)
    const adopted = await until(viaB.request, secondId, (t) => t.status === 'completed')
    expect((await storeB.get(secondId))?.runs).toBe(2)
    const code = (adopted.result as { _meta?: Record<string, { code?: string }> })._meta?.['tooltx/result']
      ?.code
    expect(code).toBe('DENIED')
    expect(b.ran).toEqual([])
  }, 30_000)
})
