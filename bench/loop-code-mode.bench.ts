/**
 * What does the agent loop add to a Code Mode nested call? The same `run_code` program (N
 * sequential `tools.add` calls in the QuickJS sandbox) run by the runtime alone and through
 * `createAgent` on a memory session, which records a `tool/code-dispatch-start` and a
 * `tool/code-dispatch` per nested call (X5.3), side by side.
 */
import { createAgent, type ModelAdapter } from '@tooltx/agent'
import { type AnyToolDefinition, type AssistantBlock, createToolRuntime } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { memoryStore, openSession } from '@tooltx/session'
import {
  type BenchSection,
  formatNs,
  type InterleavedCase,
  measureInterleaved,
  ratioAtMost,
} from './harness.js'

const SIZES = [1, 10, 100, 1_000] as const

const add = {
  name: 'add',
  description: 'Adds two integers.',
  parameters: {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    required: ['a', 'b'],
  },
  output: { schema: {}, render: (_args: unknown, value: unknown) => [{ type: 'text', text: String(value) }] },
  isConcurrencySafe: () => true,
  execute: (args: { a: number; b: number }) => args.a + args.b,
} as unknown as AnyToolDefinition

const program = (n: number) => ({
  code: `let s = 0\nfor (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 })\nreturn s`,
  description: 'add in a loop',
})

/** A model that asks for one `run_code` call, then answers with text once its result is in. */
function codeModel(n: number): ModelAdapter {
  const call: AssistantBlock = {
    type: 'tool-call',
    id: 'run',
    name: 'run_code',
    arguments: JSON.stringify(program(n)),
  }
  const usage = { inputTokens: 0, outputTokens: 0 }
  return {
    name: 'bench',
    async *stream(request) {
      const answered = request.messages.at(-1)?.role === 'tool'
      yield { type: 'message', content: answered ? [{ type: 'text', text: 'done' }] : [call], usage }
    },
  }
}

export default async function loopCodeModeBench(): Promise<BenchSection[]> {
  // A high compute budget: under the shared machine's load, 1,000 nested calls in one run exceeded the default 60 s.
  const sandbox = quickjsRuntime({ computeMs: 600_000, wallMs: 600_000 })
  const store = memoryStore()
  try {
    const runtime = createToolRuntime({ mode: 'code', codeRuntime: sandbox })
    runtime.register(add)
    const live = new AbortController().signal
    const alone = (n: number) => async () => {
      const result = await runtime.execute({
        callId: 'c',
        name: 'run_code',
        arguments: program(n),
        signal: live,
      })
      if (result.isError) throw new Error(result.error.message)
    }
    const cases: InterleavedCase[] = []
    for (const n of SIZES) {
      const session = await openSession(store, { id: `code-mode-${n}` })
      const scope = runtime.scope()
      const agent = createAgent({ runtime, scope, session, model: codeModel(n), codeRuntime: sandbox })
      const loop = async () => {
        const outcome = await agent.send('go')
        if (outcome.reason !== 'completed') throw new Error(`turn ended ${outcome.reason}: ${outcome.error}`)
      }
      cases.push(
        { name: `runtime alone, ${n} nested calls, per nested call`, fn: alone(n), items: n },
        { name: `agent loop (memory session), ${n} nested calls, per nested call`, fn: loop, items: n },
      )
    }
    const rows = await measureInterleaved(cases, { rounds: 5, warmup: 1 })
    const table = SIZES.map((n, i) => {
      const runtimeRow = rows[2 * i]!
      const loopRow = rows[2 * i + 1]!
      const factor = loopRow.medianNs / runtimeRow.medianNs
      return `| ${n} | ${formatNs(runtimeRow.medianNs)} | ${formatNs(loopRow.medianNs)} | ${factor.toFixed(2)}x |`
    })
    const last = rows.length - 2
    const atThousand = rows[last + 1]!.medianNs / rows[last]!.medianNs
    return [
      {
        title: 'Code Mode nested calls: agent loop vs runtime alone',
        method:
          'One `run_code` program in the QuickJS sandbox making N sequential `tools.add` calls, N = 1, 10, 100, ' +
          '1,000: by `runtime.execute` alone, and as the one call of a turn through `createAgent` on a memory ' +
          'session (turn opening, the reply, the call, its two dispatch events per nested call, the result, the ' +
          'text reply). Time per nested call, so the fixed cost of a run and of a turn is spread over N; all ' +
          'eight cases interleaved, 5 rounds after 1 warm-up.',
        rows,
        extra: [
          '| nested calls | runtime alone | agent loop | loop / runtime |',
          '|---:|---:|---:|---:|',
          ...table,
        ].join('\n'),
        targets: [ratioAtMost('loop per nested call at 1,000 ≤ 1.5x the runtime alone', atThousand, 1.5)],
      },
    ]
  } finally {
    await store.close()
    await sandbox.close()
  }
}
