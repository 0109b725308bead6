/**
 * A small benchmark harness: every case is timed in rounds, side by side in one process,
 * and reported as the median time per operation. Ratios are computed from medians taken in
 * the same run, never across runs.
 */
import { performance } from 'node:perf_hooks'

/** One measured case: its median and the spread of the rounds, in nanoseconds per operation. */
export interface Measurement {
  name: string
  medianNs: number
  p10Ns: number
  p90Ns: number
  rounds: number
  opsPerRound: number
  /** The fastest and slowest round, when measured by `measureInterleaved`. */
  minNs?: number
  maxNs?: number
}

/** A titled group of measurements with free-form notes, rendered as one Markdown section. */
export interface BenchSection {
  title: string
  /** What is measured and how, one paragraph. */
  method: string
  rows: Measurement[]
  /** Ratio lines such as `pipeline / floor = 2.1x`, computed from this run's medians. */
  ratios?: string[]
  /** Target lines with a verdict, e.g. `compile ≥ 100x faster than ajv: 412x — met`. */
  targets?: string[]
  /** Extra Markdown (tables of counts, token numbers). */
  extra?: string
}

/** Options of `measure`. */
export interface MeasureOptions {
  /** Number of timed rounds (default 30). */
  rounds?: number
  /** Operations per round; chosen automatically to fill about `roundMs` when omitted. */
  opsPerRound?: number
  /** Target duration of one round when `opsPerRound` is automatic (default 20 ms). */
  roundMs?: number
  /** Untimed warm-up rounds (default 3). */
  warmup?: number
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))
  return sorted[index]!
}

/**
 * Times `fn` (sync or async) and returns the median nanoseconds per call over `rounds`
 * rounds. Async functions are awaited one at a time.
 */
export async function measure(
  name: string,
  fn: () => unknown,
  options: MeasureOptions = {},
): Promise<Measurement> {
  const rounds = options.rounds ?? 30
  const warmup = options.warmup ?? 3
  let ops = options.opsPerRound
  if (ops === undefined) {
    ops = 1
    const roundMs = options.roundMs ?? 20
    for (;;) {
      const t = await runRound(fn, ops)
      if (t >= roundMs * 1e6 || ops >= 1 << 24) break
      ops *= t < roundMs * 1e5 ? 10 : 2
    }
  }
  for (let i = 0; i < warmup; i++) await runRound(fn, ops)
  const perOp: number[] = []
  for (let i = 0; i < rounds; i++) perOp.push((await runRound(fn, ops)) / ops)
  perOp.sort((a, b) => a - b)
  return {
    name,
    medianNs: quantile(perOp, 0.5),
    p10Ns: quantile(perOp, 0.1),
    p90Ns: quantile(perOp, 0.9),
    rounds,
    opsPerRound: ops,
  }
}

async function runRound(fn: () => unknown, ops: number): Promise<number> {
  const start = performance.now()
  for (let i = 0; i < ops; i++) {
    const r = fn()
    if (r !== null && typeof r === 'object' && typeof (r as Promise<unknown>).then === 'function') await r
  }
  return (performance.now() - start) * 1e6
}

/** One case of `measureInterleaved`. */
export interface InterleavedCase {
  name: string
  fn: () => unknown
  /** Calls of `fn` per round (default 1). */
  ops?: number
  /** Items one call of `fn` handles; the reported time is per item (default 1). */
  items?: number
}

/**
 * Times `cases` interleaved: every round runs each case once in turn (A B C A B C …), so a
 * load spike on the shared machine hits every case alike. Reports the median, p10, p90 and
 * min–max per item over `rounds` rounds.
 */
export async function measureInterleaved<const T extends readonly InterleavedCase[]>(
  cases: T,
  options: { rounds?: number; warmup?: number } = {},
): Promise<{ -readonly [K in keyof T]: Measurement }> {
  const rounds = options.rounds ?? 15
  const warmup = options.warmup ?? 2
  const times: number[][] = cases.map(() => [])
  for (let r = 0; r < warmup + rounds; r++) {
    for (let c = 0; c < cases.length; c++) {
      const { fn, ops = 1, items = 1 } = cases[c]!
      const t = await runRound(fn, ops)
      if (r >= warmup) times[c]!.push(t / ops / items)
    }
  }
  return cases.map(({ name, ops = 1 }, c) => summarize(name, times[c]!, ops)) as {
    -readonly [K in keyof T]: Measurement
  }
}

/** The median, p10, p90 and min–max of per-operation samples (nanoseconds), one per round. */
export function summarize(name: string, samples: number[], opsPerRound = 1): Measurement {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    name,
    medianNs: quantile(sorted, 0.5),
    p10Ns: quantile(sorted, 0.1),
    p90Ns: quantile(sorted, 0.9),
    minNs: sorted[0]!,
    maxNs: sorted[sorted.length - 1]!,
    rounds: sorted.length,
    opsPerRound,
  }
}

/** Formats nanoseconds with a unit that keeps three significant digits. */
export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toPrecision(3)} ns`
  if (ns < 1_000_000) return `${(ns / 1_000).toPrecision(3)} µs`
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toPrecision(3)} ms`
  return `${(ns / 1_000_000_000).toPrecision(3)} s`
}

/** `a / b` as a ratio string with two decimals, e.g. `3.41x`. */
export function ratio(a: Measurement, b: Measurement): string {
  return `${(a.medianNs / b.medianNs).toFixed(2)}x`
}

/** Renders a section as Markdown: method, a table of medians, ratios, targets, extra. */
export function renderSection(section: BenchSection): string {
  const lines = [`## ${section.title}`, '', section.method, '']
  if (section.rows.length > 0) {
    const spread = section.rows.some((row) => row.minNs !== undefined)
    lines.push(
      `| case | median | p10 | p90 |${spread ? ' min–max |' : ''} rounds × ops |`,
      `|---|---:|---:|---:|${spread ? '---:|' : ''}---:|`,
    )
    for (const row of section.rows) {
      const range =
        row.minNs === undefined ? (spread ? ' — |' : '') : ` ${formatNs(row.minNs)}–${formatNs(row.maxNs!)} |`
      lines.push(
        `| ${row.name} | ${formatNs(row.medianNs)} | ${formatNs(row.p10Ns)} | ${formatNs(row.p90Ns)} |${range} ${row.rounds} × ${row.opsPerRound} |`,
      )
    }
    lines.push('')
  }
  if (section.ratios?.length)
    lines.push('Ratios (medians of this run):', '', ...section.ratios.map((r) => `- ${r}`), '')
  if (section.targets?.length) lines.push('Targets:', '', ...section.targets.map((t) => `- ${t}`), '')
  if (section.extra) lines.push(section.extra, '')
  return lines.join('\n')
}

/** A target verdict line: `<label>: <measured> — met` or `— missed`. */
export function target(label: string, measured: string, met: boolean): string {
  return `${label}: ${measured} — ${met ? 'met' : 'missed'}`
}

/** The target that `ratio`, shown as `1.23x`, is at most `bound`. */
export function ratioAtMost(label: string, ratio: number, bound: number): string {
  return target(label, `${ratio.toFixed(2)}x`, ratio <= bound)
}

/** The target that `speedup`, shown as `123x`, is at least `bound`. */
export function speedupAtLeast(label: string, speedup: number, bound: number): string {
  return target(label, `${speedup.toFixed(0)}x`, speedup >= bound)
}
