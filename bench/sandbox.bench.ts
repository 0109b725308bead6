/**
 * What does isolation cost? The QuickJS sandbox (fresh context per run, in a pooled worker
 * thread) against the same program run with `node:vm` in the host process, which isolates
 * nothing and is the floor any sandbox pays on top of.
 */
import vm from 'node:vm'
import type { CodeBinding, JsonValue } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { transform } from 'sucrase'
import { type BenchSection, formatNs, type Measurement, measure, ratio, target } from './harness.js'

const SIX_CALLS = `
const sum = await tools.add({ a: 1, b: 2 })
const [x, y] = await Promise.all([tools.add({ a: sum, b: 3 }), tools.add({ a: 4, b: 5 })])
const echoed = await tools.echo({ items: [x, y], note: 'six calls' })
const more = await tools.add({ a: x, b: y })
const final: { total: number } = await tools.echo({ total: more + (echoed as { items: number[] }).items.length })
console.log('total', final.total)
return final
`

const ROUND_TRIPS = 200
const LOOP = `for (let i = 0; i < ${ROUND_TRIPS}; i++) await tools.echo({ i })\nreturn 1`

const bindings: Record<string, CodeBinding> = Object.assign(Object.create(null), {
  add: async (args: JsonValue) => {
    const { a, b } = args as { a: number; b: number }
    return a + b
  },
  echo: async (args: JsonValue) => args,
})

/** The same program in a fresh `node:vm` context: transpiled the same way, no isolation at all. */
async function runInVm(program: string): Promise<unknown> {
  const { code } = transform(`(async () => {${program}\n})`, {
    transforms: ['typescript'],
    disableESTransforms: true,
  })
  const logs: string[] = []
  const context = vm.createContext({
    tools: bindings,
    console: { log: (...values: unknown[]) => logs.push(values.map((v) => String(v)).join(' ')) },
  })
  const fn = vm.runInContext(code, context) as () => Promise<unknown>
  return fn()
}

/**
 * Start latency as a caller sees it when runs are not back to back: the worker has had time
 * to prepare its next context. Times single runs with a pause between them.
 */
async function spacedStart(name: string, runOnce: () => Promise<unknown>, rounds = 40): Promise<Measurement> {
  const times: number[] = []
  for (let i = 0; i < rounds + 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 15))
    const start = performance.now()
    await runOnce()
    if (i >= 3) times.push((performance.now() - start) * 1e6)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.round(q * (times.length - 1))]!
  return { name, medianNs: at(0.5), p10Ns: at(0.1), p90Ns: at(0.9), rounds, opsPerRound: 1 }
}

export default async (): Promise<BenchSection[]> => {
  const signal = new AbortController().signal
  const warmRuntime = quickjsRuntime()
  const coldRuntime = quickjsRuntime({ poolSize: 0 })
  await warmRuntime.warm()
  const check = await warmRuntime.run({ program: SIX_CALLS, bindings, signal })
  if (check.error !== undefined || JSON.stringify(check.value) !== '{"total":17}')
    throw new Error(`six-call program went wrong: ${JSON.stringify(check)}`)

  const run = (runtime: typeof warmRuntime, program: string) => () =>
    runtime.run({ program, bindings, signal })
  const warm = await measure(
    'sandbox start, warm pool, back to back (`return 1`)',
    run(warmRuntime, 'return 1'),
    {
      rounds: 30,
    },
  )
  const spaced = await spacedStart(
    'sandbox start, warm pool, 15 ms apart (`return 1`)',
    run(warmRuntime, 'return 1'),
  )
  const cold = await measure('sandbox start, cold worker (`return 1`)', run(coldRuntime, 'return 1'), {
    rounds: 10,
    opsPerRound: 3,
  })
  const vmStart = await measure('node:vm start (`return 1`)', () => runInVm('return 1'))
  const six = await measure('6-call program, sandbox (warm)', run(warmRuntime, SIX_CALLS), { rounds: 30 })
  const sixVm = await measure('6-call program, node:vm', () => runInVm(SIX_CALLS))
  const loop = await measure(`${ROUND_TRIPS} sequential binding calls, sandbox`, run(warmRuntime, LOOP), {
    rounds: 20,
  })
  const loopVm = await measure(`${ROUND_TRIPS} sequential binding calls, node:vm`, () => runInVm(LOOP))
  await warmRuntime.close()
  await coldRuntime.close()

  const roundTripNs = (loop.medianNs - warm.medianNs) / ROUND_TRIPS
  const vmRoundTripNs = (loopVm.medianNs - vmStart.medianNs) / ROUND_TRIPS
  return [
    {
      title: 'Sandbox: QuickJS in a worker vs node:vm in process',
      method:
        'Each case runs a whole program through `run` (sucrase transpile, fresh QuickJS runtime and context in a pooled worker thread, bridge set-up, run, teardown). "Back to back" runs one after another, so a worker may still be preparing its next context when the next run arrives; "15 ms apart" is the latency of a run that arrives at an idle worker. "Cold" uses `poolSize: 0`, so every run starts and terminates its own worker. The node:vm rows transpile the same way and run in a fresh `vm` context in the host process with the host bindings passed straight in: the unsafe floor. The round trip is (the 200-call loop − the empty program) / 200, from medians.',
      rows: [warm, spaced, cold, vmStart, six, sixVm, loop, loopVm],
      ratios: [
        `warm start / node:vm start = ${ratio(warm, vmStart)}`,
        `cold start / warm start = ${ratio(cold, warm)}`,
        `6-call program: sandbox / node:vm = ${ratio(six, sixVm)}`,
        `binding round trip: sandbox ${formatNs(roundTripNs)}, node:vm ${formatNs(vmRoundTripNs)}`,
      ],
      targets: [
        target('warm start under 2 ms (runs 15 ms apart)', formatNs(spaced.medianNs), spaced.medianNs < 2e6),
        target('warm start under 2 ms (back to back)', formatNs(warm.medianNs), warm.medianNs < 2e6),
        target('binding round trip under 150 µs', formatNs(roundTripNs), roundTripNs < 150e3),
      ],
    },
  ]
}
