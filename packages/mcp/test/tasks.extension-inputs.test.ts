/**
 * Y6.29, Y6.30: a 2026-07-28 task's completion requests. A body's `sample(run, …)` in a task is
 * an input request of the task; `mcpTools` answers it through `onSample` (so through
 * `agent.sampler()`, recorded as `server/request`), and refuses what it cannot answer with the
 * JSON-RPC error of the same request sent alone. A real tooltx server over Streamable HTTP on
 * loopback, the official SDK client pinned to 2026-07-28 for the wire.
 */
import { randomUUID } from 'node:crypto'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool, type JsonValue } from '@tooltx/core'
import { errorMessage } from '@tooltx/core/internal'
import { memoryStore, openSession } from '@tooltx/session'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { inputAnswerer } from '../src/client/input-answers.js'
import { liftTaskResults } from '../src/client/task-result-lift.js'
import { mcpServer, mcpTools, memoryTaskStore, type SampleHandler, sample, serveHttp } from '../src/index.js'
import { ANY, cleanupAll, cleanups, EXTENSION } from './mcp.fixtures.js'

afterEach(cleanupAll)

/** A server whose `complete` asks the client's model for a completion of its prompt, as a task. */
async function serve(): Promise<URL> {
  const runtime = createToolRuntime()
  runtime.register(
    defineTool({
      name: 'complete',
      description: "Ask the client's model for a completion.",
      parameters: { prompt: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      async execute(args, run) {
        try {
          const reply = await sample(run, {
            messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }],
            systemPrompt: 'Be brief.',
            maxTokens: 50,
          })
          return `${reply.model}: ${(reply.content as { text: string }).text}`
        } catch (error) {
          return `no completion: ${errorMessage(error)}`
        }
      },
    }),
  )
  const server = mcpServer(runtime, {
    name: 'inputs26',
    version: '1.0.0',
    tasks: { tools: ['complete'], store: memoryTaskStore(), pollInterval: 20 },
  })
  const endpoint = await serveHttp(server)
  cleanups.push(async () => {
    await endpoint.close()
    await server.close()
  })
  return endpoint.url
}

/** `mcpTools` with tasks over the extension and `onSample`, registered in a runtime; `call` runs its `complete`. */
async function importer(url: URL, onSample?: SampleHandler) {
  const set = await mcpTools({ url }, { name: 'remote', tasks: true, ...(onSample ? { onSample } : {}) })
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  const progress: string[] = []
  runtime.onProgress((_exec, update) => progress.push((update as { message?: string }).message ?? ''))
  const call = async (prompt: string) => {
    const result = await runtime.execute({
      callId: `c_${randomUUID()}`,
      name: 'mcp__remote__complete',
      arguments: { prompt },
      signal: new AbortController().signal,
    })
    return (result.content[0] as { text: string }).text
  }
  return { set, call, progress }
}

describe('Y6.29 a task asks the client for completions', () => {
  it('Y6.29: on the wire a body’s sample is an input request of the task, input_required, and an answer with tasks/update completes it', async () => {
    const url = await serve()
    const client = new Client(
      { name: 'raw', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { extensions: { [EXTENSION]: {} }, sampling: {} },
      },
    )
    await client.connect(liftTaskResults(new StreamableHTTPClientTransport(url)))
    cleanups.push(() => client.close())
    const request = (method: string, params: Record<string, unknown>) =>
      client.request({ method, params } as never, ANY)
    const created = await request('tools/call', { name: 'complete', arguments: { prompt: 'Summarise.' } })
    const taskId = (created.task as { taskId: string }).taskId
    let task: Record<string, unknown> = {}
    for (let i = 0; i < 100 && task.status !== 'input_required'; i++) {
      task = await request('tasks/get', { taskId })
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(task.statusMessage).toBe('waiting for a completion')
    const [key, ask] = Object.entries(task.inputRequests as Record<string, JsonValue>)[0]!
    expect(key).toMatch(/^tooltx\/sample-[0-9a-f-]{36}$/)
    expect(ask).toEqual({
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise.' } }],
        systemPrompt: 'Be brief.',
        maxTokens: 50,
      },
    })
    const completion = { role: 'assistant', content: { type: 'text', text: 'Short.' }, model: 'm1' }
    await request('tasks/update', { taskId, inputResponses: { [key]: completion } })
    for (let i = 0; i < 100 && task.status !== 'completed'; i++) {
      task = await request('tasks/get', { taskId })
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(task.result).toMatchObject({ content: [{ type: 'text', text: 'm1: Short.' }] })
  })

  it('Y6.29: mcpTools answers the input request through onSample, once, with the calls it came during', async () => {
    const url = await serve()
    const questions: {
      server: string
      maxTokens: number
      calls: readonly string[]
      systemPrompt?: string
    }[] = []
    const { call, progress } = await importer(url, (question) => {
      questions.push(question)
      return {
        model: 'host-model',
        text: `about ${(question.messages[0]!.content as { text: string }).text}`,
      }
    })
    expect(await call('the repo')).toBe('host-model: about the repo')
    expect(questions).toHaveLength(1)
    expect(questions[0]).toMatchObject({ server: 'remote', maxTokens: 50, systemPrompt: 'Be brief.' })
    expect(questions[0]!.calls).toHaveLength(1)
    expect(progress.some((m) => m.endsWith('input_required: waiting for a completion'))).toBe(true)
  })

  it('Y6.29, Y2.30, L1.10: through agent.sampler the agent’s model answers and the session records server/request', async () => {
    const url = await serve()
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    const session = await openSession(memoryStore(), { id: 's' })
    const model = scripted([
      {
        toolCalls: [
          { id: 'c1', name: 'mcp__remote__complete', arguments: '{"prompt":"Summarise the repo."}' },
        ],
      },
      { text: 'It is a tool runtime.' },
      { text: 'done' },
    ])
    const agent = createAgent({ runtime, scope, session, model, approver: () => 'allowed-once' })
    const set = await mcpTools(
      { url },
      { name: 'remote', tasks: true, onSample: agent.sampler({ policy: 'allow' }) },
    )
    cleanups.push(() => set.close())
    set.register(scope)
    expect((await agent.send('go')).reason).toBe('completed')
    const events = session.events()
    const result = events.find((e) => e.type === 'tool/result')
    expect(result?.type === 'tool/result' && result.data.content).toEqual([
      { type: 'text', text: 'scripted: It is a tool runtime.' },
    ])
    const recorded = events.flatMap((e) => (e.type === 'server/request' ? [e.data] : []))
    expect(recorded).toMatchObject([
      {
        kind: 'sampling',
        server: 'remote',
        calls: ['c1'],
        outcome: 'answered',
        by: 'policy',
        reply: 'It is a tool runtime.',
      },
    ])
  })
})

describe('Y6.30 an input request the client cannot answer is refused, not left unanswered', () => {
  it('Y6.30: a throwing onSample refuses: the body’s sample rejects with its message and the task completes at once', async () => {
    const url = await serve()
    const { call } = await importer(url, () => {
      throw new Error('the person said no')
    })
    const started = Date.now()
    expect(await call('x')).toBe('no completion: sample: the client refused: the person said no')
    // Refused, not timed out (approvalTimeoutMs is a minute by default).
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('Y6.30: whatever a server puts in an input request, the answerer resolves with an answer or a refusal and never throws (property)', async () => {
    const answer = inputAnswerer({ server: 'remote', running: [] }, {})
    const signal = new AbortController().signal
    const method = fc.oneof(
      fc.constantFrom('elicitation/create', 'sampling/createMessage', 'roots/list'),
      fc.string(),
      fc.jsonValue(),
    )
    const request = fc.oneof(
      fc.jsonValue(),
      fc.record({ method, params: fc.jsonValue() }, { requiredKeys: [] }),
    )
    await fc.assert(
      fc.asyncProperty(request, async (value) => {
        const given = await answer(value, signal)
        const error = (given as { error?: { code?: unknown; message?: unknown } }).error
        if (error === undefined) expect(given).toEqual({ action: 'cancel' })
        else {
          expect([-32601, -32602]).toContain(error.code)
          expect(typeof error.message).toBe('string')
        }
      }),
    )
  })

  it('Y6.30: each kind without its handler, and an unknown method, is refused with the JSON-RPC error it would get alone', async () => {
    const side = { server: 'remote', running: [] }
    const signal = new AbortController().signal
    const bare = inputAnswerer(side, {})
    await expect(
      bare({ method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } }, signal),
    ).resolves.toEqual({
      error: {
        code: -32601,
        message: 'this client cannot answer sampling/createMessage: it has no sampling handler (onSample)',
      },
    })
    await expect(bare({ method: 'roots/list' }, signal)).resolves.toEqual({
      error: { code: -32601, message: 'this client cannot answer roots/list: it announces no roots' },
    })
    await expect(bare({ method: 'files/read', params: {} }, signal)).resolves.toEqual({
      error: { code: -32601, message: 'this client cannot answer files/read: it knows no such request' },
    })
    await expect(
      bare(
        {
          method: 'elicitation/create',
          params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        },
        signal,
      ),
    ).resolves.toEqual({ action: 'cancel' })
    const full = inputAnswerer(side, { onSample: () => ({ model: 'm', text: 't' }), roots: ['/work/repo'] })
    await expect(
      full({ method: 'sampling/createMessage', params: { messages: 'no', maxTokens: 5 } }, signal),
    ).resolves.toEqual({
      error: { code: -32602, message: 'the sampling request is malformed' },
    })
    await expect(full({ method: 'roots/list' }, signal)).resolves.toEqual({
      roots: [{ uri: 'file:///work/repo', name: 'repo' }],
    })
  })
})
