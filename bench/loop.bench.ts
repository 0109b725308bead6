/**
 * How much does the agent loop cost per tool call? One cycle is "a model reply carrying 100
 * calls of a trivial validated tool → every result committed", through our loop (memory and
 * SQLite sessions) and through three peers with the same batch and a mock model. Also: do 10
 * concurrency-safe calls that each wait 100 ms really overlap?
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { tool as langchainTool } from '@langchain/core/tools'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt'
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite'
import {
  Agent as OpenAIAgent,
  type Model as OpenAIModel,
  type ModelResponse as OpenAIModelResponse,
  tool as openaiTool,
  Runner,
  setTracingDisabled,
  Usage,
} from '@openai/agents-core'
import { createAgent, type ModelAdapter } from '@tooltx/agent'
import { type AssistantBlock, createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession, type Session, type SessionStore, sqliteStore } from '@tooltx/session'
import { tool as aiTool, generateText, isStepCount } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import {
  type BenchSection,
  formatNs,
  type InterleavedCase,
  type Measurement,
  measure,
  measureInterleaved,
  ratio,
  target,
} from './harness.js'

const CALLS = 100
const argsOf = (i: number) => JSON.stringify({ a: i, b: 1 })

// ---- tooltx ---------------------------------------------------------------------------------

const add = defineTool({
  name: 'add',
  description: 'Adds two integers.',
  parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
  output: { schema: { type: 'integer' }, render: (_args, value) => [{ type: 'text', text: String(value) }] },
  isConcurrencySafe: () => true,
  execute: (args) => args.a + args.b,
})

const sleep = defineTool({
  name: 'sleep',
  description: 'Waits 100 ms.',
  parameters: {},
  output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'slept' }] },
  isConcurrencySafe: () => true,
  execute: () => new Promise<null>((resolve) => setTimeout(() => resolve(null), 100)),
})

/**
 * A model that answers like the peers' mocks: the whole reply as one final event, the tool
 * calls when the last message is the user's, plain text once the tool results are in.
 */
function twoStepModel(name: string, count: number): ModelAdapter {
  const calls: AssistantBlock[] = Array.from({ length: count }, (_, i) => ({
    type: 'tool-call',
    id: `call_${i}`,
    name,
    arguments: name === 'add' ? argsOf(i) : '{}',
  }))
  const usage = { inputTokens: 0, outputTokens: 0 }
  return {
    name: 'bench',
    async *stream(request) {
      const answered = request.messages.at(-1)?.role === 'tool'
      yield { type: 'message', content: answered ? [{ type: 'text', text: 'done' }] : calls, usage }
    },
  }
}

/** A store that counts its durable writes (one `append` call is one write). */
function counting(store: SessionStore): { store: SessionStore; writes: () => number } {
  let writes = 0
  return {
    store: {
      ...store,
      append(id, events) {
        writes++
        return store.append(id, events)
      },
    },
    writes: () => writes,
  }
}

/** One full cycle per call: send → `count` calls → every result committed → text reply → turn/end. */
async function ourLoop(store: SessionStore, tool: typeof add | typeof sleep, count: number, id = tool.name) {
  const session: Session = await openSession(store, { id: `bench-${id}` })
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(tool)
  const agent = createAgent({ runtime, scope, session, model: twoStepModel(tool.name, count) })
  return async () => {
    agent.send('go')
    await agent.whenIdle()
  }
}

// ---- peers ----------------------------------------------------------------------------------

const usageV4 = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
}

/** AI SDK 7: generateText with a mock model; the second step returns text (two model calls). */
function aiSdk(count: number) {
  const calls = Array.from({ length: count }, (_, i) => ({
    type: 'tool-call' as const,
    toolCallId: `call_${i}`,
    toolName: 'add',
    input: argsOf(i),
  }))
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      const answered = options.prompt.at(-1)?.role === 'tool'
      return answered
        ? {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: usageV4,
            warnings: [],
          }
        : {
            content: calls,
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage: usageV4,
            warnings: [],
          }
    },
  })
  const tools = {
    add: aiTool({
      description: 'Adds two integers.',
      inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
      execute: async ({ a, b }) => a + b,
    }),
  }
  return async () => {
    const result = await generateText({ model, tools, prompt: 'go', stopWhen: isStepCount(3) })
    if (result.steps[0]?.toolResults.length !== count) throw new Error('AI SDK: not every call has a result')
  }
}

/** OpenAI Agents SDK: Runner with a scripted Model; the second model call returns a message. */
function openaiAgents(count: number) {
  setTracingDisabled(true)
  const calls = Array.from({ length: count }, (_, i) => ({
    type: 'function_call' as const,
    callId: `call_${i}`,
    name: 'add',
    arguments: argsOf(i),
    status: 'completed' as const,
  }))
  const model: OpenAIModel = {
    async getResponse(request): Promise<OpenAIModelResponse> {
      const input = request.input
      const answered = Array.isArray(input) && input.at(-1)?.type === 'function_call_result'
      return {
        usage: new Usage(),
        output: answered
          ? [
              {
                type: 'message',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: 'done' }],
              },
            ]
          : calls,
      }
    },
    getStreamedResponse() {
      throw new Error('not used: the benchmark runs without streaming')
    },
  }
  const agent = new OpenAIAgent({
    name: 'bench',
    instructions: 'Add.',
    model,
    tools: [
      openaiTool({
        name: 'add',
        description: 'Adds two integers.',
        parameters: z.object({ a: z.number().int(), b: z.number().int() }),
        execute: async ({ a, b }) => a + b,
      }),
    ],
  })
  const runner = new Runner({ tracingDisabled: true })
  return async () => {
    const result = await runner.run(agent, 'go', { maxTurns: 3 })
    if (result.finalOutput !== 'done') throw new Error('Agents SDK: the run did not finish')
  }
}

/**
 * LangGraph: the agent loop of its docs, a `StateGraph` over `MessagesAnnotation` with a model
 * node (scripted: the tool calls, then text once the tool messages are in), a `ToolNode` and
 * `toolsCondition`, compiled with `checkpointer` when given (a fresh thread per cycle).
 */
function langGraph(count: number, checkpointer?: SqliteSaver) {
  const tools = new ToolNode([
    langchainTool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
      name: 'add',
      description: 'Adds two integers.',
      schema: z.object({ a: z.number().int(), b: z.number().int() }),
    }),
  ])
  const toolCalls = Array.from({ length: count }, (_, i) => ({
    id: `call_${i}`,
    name: 'add',
    args: { a: i, b: 1 },
  }))
  const model = (state: typeof MessagesAnnotation.State) => ({
    messages: [
      state.messages.at(-1)?.getType() === 'tool'
        ? new AIMessage('done')
        : new AIMessage({ content: '', tool_calls: toolCalls }),
    ],
  })
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('model', model)
    .addNode('tools', tools)
    .addEdge(START, 'model')
    .addConditionalEdges('model', toolsCondition, ['tools', END])
    .addEdge('tools', 'model')
    .compile(checkpointer === undefined ? {} : { checkpointer })
  let thread = 0
  return async () => {
    const config = { configurable: { thread_id: `t${thread++}` }, recursionLimit: 10 }
    const out = await graph.invoke({ messages: [new HumanMessage('go')] }, config)
    if (out.messages.length !== count + 3) throw new Error('LangGraph: not every call has a result')
  }
}

/** Our loop with the `add` tool, `count` calls per reply, on session `bench-<id>` of `store`. */
const loopOf = (store: SessionStore, count: number, id: string) => ourLoop(store, add, count, id)

// ---- run --------------------------------------------------------------------------------------

/**
 * The case `name` timed by `make`'s function, or `undefined` (with the reason in `failures`)
 * when a first run throws, so a peer that cannot run on this Node leaves only its row out.
 */
async function probe(
  name: string,
  make: () => (() => Promise<void>) | Promise<() => Promise<void>>,
  failures: string[],
  ops = 1,
  items = 1,
): Promise<InterleavedCase | undefined> {
  try {
    const fn = await make()
    await fn()
    return { name, fn, ops, items }
  } catch (error) {
    failures.push(
      `${name}: could not run on Node ${process.version}: ${error instanceof Error ? error.message : String(error)}`,
    )
    return undefined
  }
}

const present = <T>(values: (T | undefined)[]): T[] => values.filter((v): v is T => v !== undefined)

export default async function loopBench(): Promise<BenchSection[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-bench-loop-'))
  const stores: SessionStore[] = []
  try {
    const memory = memoryStore()
    const sqlite = sqliteStore(join(dir, 'sessions.db'))
    stores.push(memory, sqlite)
    const failures: string[] = []
    const checkpoints = SqliteSaver.fromConnString(join(dir, 'langgraph.db'))
    const cases = present([
      await probe('tooltx loop, memory session', () => loopOf(memory, CALLS, 'main'), failures, 4),
      await probe(
        'tooltx loop, SQLite session (fsync per commit)',
        () => loopOf(sqlite, CALLS, 'main'),
        failures,
        2,
      ),
      await probe('AI SDK 7 generateText (MockLanguageModelV4)', () => aiSdk(CALLS), failures, 4),
      await probe('OpenAI Agents SDK Runner (scripted Model)', () => openaiAgents(CALLS), failures),
      await probe(
        'LangGraph StateGraph: model node + ToolNode, no checkpointer',
        () => langGraph(CALLS),
        failures,
        2,
      ),
      await probe(
        'LangGraph StateGraph + SqliteSaver (fresh thread per cycle)',
        () => langGraph(CALLS, checkpoints),
        failures,
      ),
    ])
    const measured = await measureInterleaved(cases, { rounds: 15, warmup: 2 })
    const ours = measured[0]!
    const oursSqlite = measured[1]!
    const peers = measured.slice(2)
    const graphSqlite = peers.find((p) => p.name.includes('SqliteSaver'))

    // Calls per reply: 1, 10 and 100 for our loop and each peer, per call, interleaved.
    const perReplyCases: (InterleavedCase | undefined)[] = []
    for (const count of [1, 10, 100]) {
      // Several cycles per round for the small batches, so each sample spans about the same time.
      const ops = Math.max(1, 20 / count)
      perReplyCases.push(
        await probe(
          `tooltx loop, memory, ${count} per reply`,
          () => loopOf(memory, count, `n${count}`),
          failures,
          ops,
          count,
        ),
        await probe(`AI SDK 7 generateText, ${count} per reply`, () => aiSdk(count), failures, ops, count),
        await probe(
          `OpenAI Agents SDK Runner, ${count} per reply`,
          () => openaiAgents(count),
          failures,
          ops,
          count,
        ),
        await probe(`LangGraph StateGraph, ${count} per reply`, () => langGraph(count), failures, ops, count),
      )
    }
    const perReply = present(perReplyCases)
    const scaling = await measureInterleaved(perReply, { rounds: 11, warmup: 2 })
    const byName = (name: string) => scaling.find((m) => m.name === name)
    const perCallRow = (label: string, prefix: string) => {
      const cells = [1, 10, 100].map((count) => byName(`${prefix}, ${count} per reply`))
      return `| ${label} | ${cells.map((m) => (m === undefined ? '—' : formatNs(m.medianNs))).join(' | ')} | ${
        cells[0] !== undefined && cells[2] !== undefined
          ? `${(cells[2].medianNs / cells[0].medianNs).toFixed(2)}x`
          : '—'
      } |`
    }
    const scalingTable = [
      '| per call, calls per reply → | 1 | 10 | 100 | 100 / 1 |',
      '|---|---:|---:|---:|---:|',
      perCallRow('tooltx loop, memory session', 'tooltx loop, memory'),
      perCallRow('AI SDK 7 generateText', 'AI SDK 7 generateText'),
      perCallRow('OpenAI Agents SDK Runner', 'OpenAI Agents SDK Runner'),
      perCallRow('LangGraph StateGraph (no checkpointer)', 'LangGraph StateGraph'),
    ].join('\n')
    // How many durable writes one cycle costs, counted on a separate session.
    const counted = counting(memoryStore())
    const once = await ourLoop(counted.store, add, CALLS, 'counted')
    await once()
    const writesPerCycle = counted.writes()
    // The latency of one durable write on this disk, in the directory the SQLite file is in.
    const fd = openSync(join(dir, 'fsync.bin'), 'a')
    const line = Buffer.from(`${'x'.repeat(200)}\n`)
    const fsync = await measure(
      'raw floor: writeSync + fsyncSync (one write)',
      () => {
        writeSync(fd, line)
        fsyncSync(fd)
      },
      { rounds: 15, opsPerRound: 20, warmup: 2 },
    )
    closeSync(fd)
    const single = await measure(
      'tooltx loop, 1 call per reply, memory session',
      await ourLoop(memory, add, 1, 'one'),
      {
        rounds: 25,
        opsPerRound: 40,
        warmup: 3,
      },
    )
    const singleSqlite = await measure(
      'tooltx loop, 1 call per reply, SQLite session',
      await ourLoop(sqlite, add, 1, 'one'),
      { rounds: 25, opsPerRound: 20, warmup: 3 },
    )
    const sleepy = await measure(
      'tooltx loop, 10 × sleep(100 ms), memory session',
      await ourLoop(memoryStore(), sleep, 10),
      {
        rounds: 5,
        opsPerRound: 1,
        warmup: 1,
      },
    )

    const perCall = (m: Measurement) => `${m.name}: ${formatNs(m.medianNs / CALLS)} per call`
    return [
      {
        title: 'Agent loop: a reply with 100 tool calls → every result committed',
        method:
          `One operation is a full cycle: a model reply carrying ${CALLS} calls of a trivial validated tool ` +
          '(`add {a, b}`, integer schema, concurrency-safe), every call validated and executed, every result ' +
          'committed, then a second model request that answers with plain text. Our loop logs ' +
          `\`turn/start … tool/call × 100, tool/result × 100 … turn/end\` (209 events) into the session in ${writesPerCycle} ` +
          'durable writes: bookkeeping that lands together shares a write, the reply rides on the first round of ' +
          'tool/call events, and each later round of the pool (default 10 slots) is one write carrying the ' +
          "previous round's results and the next round's tool/call events. The SQLite store fsyncs (WAL, " +
          'synchronous=FULL) every write. Peers, each through its public API and full path with the same batch: ' +
          '**AI SDK 7** `generateText` with `MockLanguageModelV4` and a zod `tool` (`stopWhen: isStepCount(3)`): ' +
          'two model calls, per call the JSON parse and zod validation, `execute` and the tool-result part, the ' +
          'step results; no log. **OpenAI Agents SDK** `Runner.run` (tracing disabled) with a scripted `Model` and ' +
          'a zod `tool`: two model calls, the run loop, the function-call items and results; no log. **LangGraph** ' +
          'the agent loop of its docs: a `StateGraph` over `MessagesAnnotation` with a model node (a scripted ' +
          'function returning the AIMessage with the tool_calls, then text once the ToolMessages are in), a ' +
          '`ToolNode` (zod tool) and `toolsCondition`, `invoke` from a HumanMessage to the final AIMessage, with ' +
          'no checkpointer, and again with `SqliteSaver` (`@langchain/langgraph-checkpoint-sqlite`: WAL with ' +
          'synchronous=NORMAL, so its commits are not fsynced; 5 checkpoints and 7 pending-write rows per ' +
          '100-call cycle), its log next to our SQLite loop; each cycle a fresh thread, so its checkpoints never grow with ' +
          'earlier cycles (ours stay on one session). All cases are timed interleaved (each round runs every ' +
          'case once in turn), 15 rounds after 2 warm-ups.',
        rows: [ours, oursSqlite, ...peers, fsync],
        ratios: [
          ...peers.map((p) => `${p.name} / tooltx memory = ${ratio(p, ours)}`),
          `tooltx SQLite / tooltx memory = ${ratio(oursSqlite, ours)}`,
          `durable writes per cycle: ${writesPerCycle}; SQLite − memory = ${formatNs(oursSqlite.medianNs - ours.medianNs)} ` +
            `= ${((oursSqlite.medianNs - ours.medianNs) / fsync.medianNs).toFixed(1)} × the raw fsync (${formatNs(fsync.medianNs)})`,
          perCall(ours),
          perCall(oursSqlite),
        ],
        targets: [
          target(
            'tooltx memory faster than every peer',
            peers.map((p) => `${ratio(p, ours)} (${p.name})`).join(', '),
            peers.every((p) => p.medianNs > ours.medianNs),
          ),
          ...(graphSqlite === undefined
            ? []
            : [
                target(
                  'tooltx SQLite faster than LangGraph + SqliteSaver',
                  ratio(graphSqlite, oursSqlite),
                  graphSqlite.medianNs > oursSqlite.medianNs,
                ),
              ]),
          target(
            'tooltx SQLite within 2x of tooltx memory',
            ratio(oursSqlite, ours),
            oursSqlite.medianNs <= 2 * ours.medianNs,
          ),
        ],
        extra: [
          '- Why SQLite stays above 2x: a round of the pool can only start once its `tool/call` events are durable ' +
            '(L4.4) and it is known only when the previous round has finished, so 100 calls on 10 slots cost at ' +
            'least 10 sequential fsyncs, plus the turn opening and the closing text reply. The SQLite cycle is ' +
            'bounded below by memory + that many fsyncs; the ratio line above shows how close it gets.',
          ...failures.map((f) => `- ${f}`),
        ].join('\n'),
      },
      {
        title: 'Agent loop: 1, 10 and 100 calls per reply, per call',
        method:
          'The same cycle with 1, 10 and 100 `add` calls in the reply, for our loop (memory session) and the three ' +
          'peers as above (LangGraph without a checkpointer), all twelve cases interleaved, 11 rounds after 2 ' +
          'warm-ups; each figure is the cycle time divided by the calls, so a flat row means a per-call cost that ' +
          "does not grow with the batch. The OpenAI Agents SDK's 100-call figure is dominated by a quadratic in its " +
          'own `findToolInvocationCompletionEvidence` (for each call it scans the run items and throws and catches ' +
          'an error per candidate that does not match), so its 100-call row measures that, not its per-call path; ' +
          'its 1- and 10-call figures are the fair comparison.',
        rows: scaling,
        extra: scalingTable,
      },
      {
        title: 'Agent loop: one call per reply',
        method:
          'One operation is a full cycle with a reply carrying a single `add` call: turn opening, the reply and ' +
          'its tool/call in one write, the result, the step boundary, the text reply and turn/end. A single call ' +
          'never waits for siblings before its result is written, so this is the latency of a lone call.',
        rows: [single, singleSqlite],
        ratios: [`tooltx SQLite / tooltx memory = ${ratio(singleSqlite, single)}`],
      },
      {
        title: 'Agent loop: 10 concurrency-safe calls that each wait 100 ms',
        method:
          'One operation is a full cycle through our loop with a memory session: a reply with 10 calls of a ' +
          'concurrency-safe tool that waits 100 ms, all results committed, then the text reply. Serial ' +
          'execution would take at least 1 s.',
        rows: [sleepy],
        targets: [
          target(
            '10 concurrency-safe 100 ms calls finish in under 130 ms',
            formatNs(sleepy.medianNs),
            sleepy.medianNs < 130e6,
          ),
        ],
      },
    ]
  } finally {
    for (const store of stores) await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
