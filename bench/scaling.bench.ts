/**
 * Do costs stay flat as sessions, catalogs and batches grow (issue 13)? Each section times one
 * operation at several sizes, interleaved (every round runs each size once in turn), so a
 * superlinear step shows at a glance and a load spike hits every size alike.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createAgent, type ModelAdapter } from '@tooltx/agent'
import {
  type AnyToolDefinition,
  type AssistantBlock,
  createToolRuntime,
  parseFrozenJson,
  type ToolRuntime,
} from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { deriveMessages, memoryStore, type NewSessionEvent, type Session } from '@tooltx/session'
import {
  type BenchSection,
  type Measurement,
  measureInterleaved,
  ratioAtMost,
  summarize,
  target,
} from './harness.js'
import { closedTurn } from './session-events.js'

const live = new AbortController().signal

function tool(name: string, execute: (args: any) => unknown = (a) => a.a + a.b): AnyToolDefinition {
  return {
    name,
    description: `Adds two integers (${name}).`,
    parameters: {
      type: 'object',
      properties: { a: { type: 'integer' }, b: { type: 'integer' } },
      required: ['a', 'b'],
    },
    output: {
      schema: {},
      render: (_args: unknown, value: unknown) => [{ type: 'text', text: String(value) }],
    },
    isConcurrencySafe: () => true,
    execute,
  } as unknown as AnyToolDefinition
}

const per = (rows: Measurement[], i: number, j: number) => rows[i]!.medianNs / rows[j]!.medianNs

// ---- session size ---------------------------------------------------------------------------

const userMessage = (i: number): NewSessionEvent => ({
  type: 'user/message',
  data: {
    turn: 1,
    step: 1,
    message: { role: 'user', content: [{ type: 'text', text: `context line ${i}` }] },
  },
})

/** A memory session holding one closed turn of `events` events. */
async function sessionOf(events: number): Promise<Session> {
  return await closedTurn(memoryStore(), `s${events}`, events, userMessage)
}

/** One tool call, then text once the result is in. */
const oneCallModel: ModelAdapter = {
  name: 'bench',
  async *stream(request) {
    const answered = request.messages.at(-1)?.role === 'tool'
    const call: AssistantBlock = { type: 'tool-call', id: 'c', name: 'add', arguments: '{"a":1,"b":2}' }
    yield {
      type: 'message',
      content: answered ? [{ type: 'text', text: 'done' }] : [call],
      usage: { inputTokens: 0, outputTokens: 0 },
    }
  },
}

async function sessionSection(): Promise<BenchSection> {
  const sizes = [1_000, 100_000, 1_000_000]
  const sessions: Session[] = []
  for (const size of sizes) sessions.push(await sessionOf(size))
  const cycles = sessions.map((session) => {
    const runtime = createToolRuntime()
    const scope = runtime.scope()
    scope.register(tool('add'))
    const agent = createAgent({ runtime, scope, session, model: oneCallModel })
    return async () => {
      agent.send('go')
      await agent.whenIdle()
    }
  })
  const rows = await measureInterleaved(
    [
      ...sizes.map((size, i) => ({
        name: `agent cycle at ${size.toLocaleString('en')} events`,
        fn: cycles[i]!,
        ops: 20,
      })),
      ...sizes.map((size, i) => ({
        name: `agent cycle + session.messages() at ${size.toLocaleString('en')} events (the old per-step copy)`,
        fn: async () => {
          await cycles[i]!()
          sessions[i]!.messages()
        },
        ops: 5,
      })),
    ],
    { rounds: 11 },
  )
  // The derivation property at 1M events: the incremental history equals a from-scratch replay.
  const big = sessions[2]!
  const replay = deriveMessages(big.events())
  const history = big.history()
  let same = replay.length === history.length
  for (let i = 0; same && i < replay.length; i++)
    same = JSON.stringify(replay[i]) === JSON.stringify(history.at(i))
  const flat = per(rows, 2, 0)
  return {
    title: 'Scaling: one agent cycle vs session size',
    method:
      'One agent cycle (send → one `add` call → result committed → text reply → turn/end, 9 events) on memory-store ' +
      'sessions already holding 1k, 100k and 1M events, interleaved, 20 cycles per round, 11 rounds. The loop hands ' +
      'the model `session.history()` (Q1.2); the second group adds one `session.messages()` per cycle, which is what ' +
      'the loop asked for each step before (a frozen copy of the whole list).',
    rows,
    ratios: [
      `cycle 100k / 1k = ${per(rows, 1, 0).toFixed(2)}x; 1M / 1k = ${flat.toFixed(2)}x`,
      `cycle + messages() 1M / 1k = ${per(rows, 5, 3).toFixed(2)}x`,
    ],
    targets: [
      ratioAtMost('agent cycle at 1M events ≤ 1.5x the cycle at 1k', flat, 1.5),
      target(
        `incremental history == from-scratch replay at ${big.events().length.toLocaleString('en')} events`,
        same ? 'identical' : 'DIFFERENT',
        same,
      ),
    ],
  }
}

// ---- registered tools -----------------------------------------------------------------------

async function toolsSection(): Promise<BenchSection> {
  const sizes = [10, 100, 1_000, 10_000]
  const views = (mode: 'native' | 'code') =>
    sizes.map((size) => {
      const runtime = createToolRuntime({ mode })
      for (let i = 0; i < size; i++) runtime.register(tool(`tool_${String(i).padStart(5, '0')}`))
      return { runtime, view: runtime.view() }
    })
  const native = views('native')
  const code = views('code')
  const rebuild = (r: { runtime: ToolRuntime; view: ReturnType<ToolRuntime['view']> }) => () => {
    r.runtime.register(tool('zz_extra'))()
    return r.view.surface()
  }
  const cached = await measureInterleaved([
    ...sizes.map((size, i) => ({
      name: `native surface(), ${size} tools, unchanged`,
      fn: () => native[i]!.view.surface(),
      ops: 10_000,
    })),
    ...sizes.map((size, i) => ({
      name: `code surface() + SDK, ${size} tools, unchanged`,
      fn: () => code[i]!.view.surface(),
      ops: 10_000,
    })),
  ])
  const rebuilt = await measureInterleaved(
    [
      ...sizes.map((size, i) => ({
        name: `native: register + dispose, then surface(), ${size} tools`,
        fn: rebuild(native[i]!),
      })),
      ...sizes.map((size, i) => ({
        name: `code: register + dispose, then surface() + SDK, ${size} tools`,
        fn: rebuild(code[i]!),
      })),
    ],
    { rounds: 7, warmup: 1 },
  )
  const rows = [...cached, ...rebuilt]
  const nFlat = per(cached, 3, 0)
  const cFlat = per(cached, 7, 4)
  return {
    title: 'Scaling: surface() and the Code Mode SDK vs registered tools',
    method:
      'A runtime with 10, 100, 1k and 10k registered tools. `surface()` on an unchanged registry (native, and code ' +
      'mode, whose instructions carry the TypeScript SDK of every tool), 10,000 reads per round, interleaved; then ' +
      'the first `surface()` after a change (one registration and its disposal), which rebuilds once (Q2.2).',
    rows,
    ratios: [
      `native unchanged 10k / 10 = ${nFlat.toFixed(2)}x; code unchanged 10k / 10 = ${cFlat.toFixed(2)}x`,
      `rebuild after a change, native 10k / 10 = ${per(rebuilt, 3, 0).toFixed(0)}x; code 10k / 10 = ${per(rebuilt, 7, 4).toFixed(0)}x (linear in tools, paid once per change)`,
    ],
    targets: [
      ratioAtMost('native surface() at 10k tools ≤ 2x at 10 (unchanged registry)', nFlat, 2),
      ratioAtMost('Code Mode surface() + SDK at 10k tools ≤ 2x at 10 (unchanged registry)', cFlat, 2),
    ],
  }
}

// ---- argument size --------------------------------------------------------------------------

function argumentOf(bytes: number): string {
  const items: unknown[] = []
  let text = '{"items":[]}'
  for (let i = 0; text.length < bytes; i++) {
    items.push({ id: i, name: `item number ${i}`, tags: ['alpha', 'beta'], score: i / 7, ok: i % 2 === 0 })
    if (i % 64 === 0) text = JSON.stringify({ items })
  }
  return JSON.stringify({ items })
}

async function argumentSection(): Promise<BenchSection> {
  const sizes: [string, number][] = [
    ['1 KB', 1_000],
    ['100 KB', 100_000],
    ['1 MB', 1_000_000],
    ['10 MB', 10_000_000],
  ]
  const runtime = createToolRuntime()
  runtime.register({
    ...tool('take', () => null),
    parameters: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
    output: { schema: { type: 'null' }, render: () => [{ type: 'text', text: 'ok' }] },
  } as unknown as AnyToolDefinition)
  const raws = sizes.map(([, bytes]) => argumentOf(bytes))
  const check = await runtime.execute({
    callId: 'c',
    name: 'take',
    arguments: JSON.parse(raws[0]!),
    signal: live,
  })
  if (check.isError) throw new Error(check.error.message)
  const ops = (bytes: number) => Math.max(1, Math.round(2_000_000 / bytes))
  const rows = await measureInterleaved(
    sizes.flatMap(([label, bytes], i) => [
      { name: `JSON.parse, ${label}`, fn: () => JSON.parse(raws[i]!), ops: ops(bytes) },
      {
        name: `execute(JSON.parse(raw)), ${label}`,
        fn: () =>
          runtime.execute({ callId: 'c', name: 'take', arguments: JSON.parse(raws[i]!), signal: live }),
        ops: ops(bytes),
      },
      {
        name: `execute(parseFrozenJson(raw)), ${label} (raw string in)`,
        fn: () => {
          const parsed = parseFrozenJson(raws[i]!, 'arguments')
          if (!parsed.ok) throw new Error(parsed.reason)
          return runtime.execute({ callId: 'c', name: 'take', arguments: parsed.value, signal: live })
        },
        ops: ops(bytes),
      },
    ]),
    { rounds: 9 },
  )
  const ratios = sizes.map(
    ([label], i) =>
      `${label}: execute(parseFrozenJson(raw)) / JSON.parse = ${per(rows, 3 * i + 2, 3 * i).toFixed(2)}x; ` +
      `execute(JSON.parse(raw)) / JSON.parse = ${per(rows, 3 * i + 1, 3 * i).toFixed(2)}x`,
  )
  const big = per(rows, 11, 9)
  return {
    title: 'Scaling: argument size through execute',
    method:
      'A tool whose parameters are an object with an `items` array (validated), body returning `null`; the ' +
      'argument is an array of small records of 1 KB, 100 KB, 1 MB and 10 MB as JSON text. `execute` includes ' +
      'the `JSON.parse` of the raw string, the entry snapshot and freeze, validation and the result; the raw-string ' +
      'row parses with `parseFrozenJson` (Q3.2: the parsed tree frozen in place, no copy), which `execute` takes ' +
      'as is (Q3.1) and validates without the lossless re-check; both are compared with `JSON.parse` of the same ' +
      'string in the same rounds.',
    rows,
    ratios,
    targets: [ratioAtMost('10 MB argument through execute ≤ 2x JSON.parse of it', big, 2)],
  }
}

// ---- calls in flight ------------------------------------------------------------------------

async function inFlightSection(): Promise<BenchSection> {
  const sizes = [1_000, 10_000, 100_000]
  // A full collection before each round, so one size's garbage is not collected on another's time.
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  let release: () => void = () => {}
  let gate = Promise.resolve()
  const runtime = createToolRuntime()
  runtime.register(tool('wait', () => gate.then(() => 1)))
  const start: number[][] = sizes.map(() => [])
  const settle: number[][] = sizes.map(() => [])
  for (let round = 0; round < 11; round++) {
    for (let s = 0; s < sizes.length; s++) {
      const n = sizes[s]!
      gc()
      gate = new Promise<void>((resolve) => {
        release = resolve
      })
      const calls: Promise<unknown>[] = []
      const t0 = performance.now()
      for (let i = 0; i < n; i++) {
        calls.push(
          runtime.execute({ callId: `c${i}`, name: 'wait', arguments: { a: i, b: 1 }, signal: live }),
        )
      }
      // Every call reaches its body (and waits on the gate) before the gate opens.
      await new Promise((resolve) => setImmediate(resolve))
      const t1 = performance.now()
      release()
      await Promise.all(calls)
      const t2 = performance.now()
      if (round < 2) continue
      start[s]!.push(((t1 - t0) * 1e6) / n)
      settle[s]!.push(((t2 - t1) * 1e6) / n)
    }
  }
  const rows = [
    ...sizes.map((n, s) => summarize(`start, per call, ${n.toLocaleString('en')} in flight`, start[s]!)),
    ...sizes.map((n, s) => summarize(`settle, per call, ${n.toLocaleString('en')} in flight`, settle[s]!)),
  ]
  const flat = per(rows, 5, 3)
  return {
    title: 'Scaling: calls in flight',
    method:
      'N calls of a validated tool start through `runtime.execute` (one shared caller signal, as the agent loop ' +
      'passes its turn signal) and all wait on one gate inside the body; then the gate opens and every call ' +
      'settles. Start and settle are timed apart, per call, for N = 1k, 10k, 100k, interleaved, 9 rounds after 2 ' +
      'warm-ups, a full GC before each round. Core keeps live calls in a `Map` (O(1) delete); the agent scheduler ' +
      'keeps results in an array indexed by call position and counts running calls, so neither scans on settle.',
    rows,
    ratios: [
      `settle 100k / 1k = ${flat.toFixed(2)}x; 10k / 1k = ${per(rows, 4, 3).toFixed(2)}x`,
      `start 100k / 1k = ${per(rows, 2, 0).toFixed(2)}x`,
    ],
    targets: [ratioAtMost('per-call settle at 100k in flight ≤ 1.5x at 1k', flat, 1.5)],
  }
}

// ---- Code Mode nested calls -----------------------------------------------------------------

async function codeModeSection(): Promise<BenchSection> {
  const sizes = [1, 10, 100, 1_000]
  // A high compute budget: under the shared machine's load, 1,000 nested calls in one run exceeded the default 60 s.
  const sandbox = quickjsRuntime({ computeMs: 600_000, wallMs: 600_000 })
  try {
    const runtime = createToolRuntime({ mode: 'code', codeRuntime: sandbox })
    runtime.register(tool('add'))
    const run = (n: number) => async () => {
      const result = await runtime.execute({
        callId: 'c',
        name: 'run_code',
        arguments: {
          code: `let s = 0\nfor (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 })\nreturn s`,
          description: 'add in a loop',
        },
        signal: live,
      })
      if (result.isError) throw new Error(result.error.message)
    }
    const rows = await measureInterleaved(
      sizes.map((n) => ({ name: `run_code with ${n} nested calls, per nested call`, fn: run(n), items: n })),
      { rounds: 5, warmup: 1 },
    )
    return {
      title: 'Scaling: Code Mode nested calls',
      method:
        'One `run_code` program in the QuickJS sandbox making N sequential `tools.add` calls (each a full pipeline ' +
        'call of the host runtime), N = 1, 10, 100, 1,000, interleaved; time per nested call, so the fixed cost of ' +
        'a run (context, transpile) is spread over N.',
      rows,
      ratios: [
        `per nested call 1000 / 100 = ${per(rows, 3, 2).toFixed(2)}x; 100 / 10 = ${per(rows, 2, 1).toFixed(2)}x`,
      ],
    }
  } finally {
    await sandbox.close()
  }
}

export default async function scalingBench(): Promise<BenchSection[]> {
  const sections: BenchSection[] = []
  for (const section of [toolsSection, argumentSection, inFlightSection, codeModeSection, sessionSection]) {
    process.stderr.write(`  ${section.name}\n`)
    sections.push(await section())
  }
  return sections
}
