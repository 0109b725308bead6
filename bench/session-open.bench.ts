/**
 * Opening a big session (issue 13, Q4): how long `openSession` takes and how much memory it
 * needs at 1k, 100k and 1M events, on the file and SQLite stores, from a checkpoint (L11.8)
 * and, for comparison, reading the whole log as before (`checkpointEvery: Infinity`). Every
 * open runs in its own child process, so its peak RSS is its own; cases are interleaved.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { type JsonValue, stringifyJson } from '@tooltx/core'
import {
  DEFAULT_CHECKPOINT_EVERY,
  deriveMessages,
  fileStore,
  openSession,
  type SessionStore,
  sqliteStore,
} from '@tooltx/session'
import { type BenchSection, formatNs, summarize, target } from './harness.js'
import { closedTurn } from './session-events.js'

const run = promisify(execFile)
const child = fileURLToPath(new URL('./session-open-child.mjs', import.meta.url))
const SIZES = [1_000, 100_000, 1_000_000]
const STORES = ['file', 'sqlite'] as const
type Kind = (typeof STORES)[number]

interface Sample {
  openMs: number
  maxRssMb: number
  baseRssMb: number
  messagesMs?: number
  messages?: number
}

/** Writes one closed turn of `size` events (user messages in batches of 1000) into `store`. */
async function fill(store: SessionStore, id: string, size: number): Promise<void> {
  const session = await closedTurn(store, id, size)
  await session.close()
}

async function openIn(kind: Kind, path: string, id: string, every: number, then = ''): Promise<Sample> {
  const args = [child, kind, path, id, String(every), then]
  const { stdout } = await run(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(stdout) as Sample
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const mb = (xs: number[]) =>
  `${median(xs).toFixed(0)} MB (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`

export default async function sessionOpenBench(): Promise<BenchSection[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-open-'))
  try {
    const where = (kind: Kind) => (kind === 'file' ? join(dir, 'logs') : join(dir, 'sessions.db'))
    const sizes: string[] = []
    for (const kind of STORES) {
      const store = kind === 'file' ? fileStore(where(kind)) : sqliteStore(where(kind))
      for (const size of SIZES) await fill(store, `s${size}`, size)
      await store.close()
    }
    for (const size of SIZES)
      sizes.push(`${(statSync(join(where('file'), `s${size}.jsonl`)).size / 2 ** 20).toFixed(1)} MB`)

    const cases = STORES.flatMap((kind) =>
      SIZES.flatMap((size) => [
        { kind, size, every: DEFAULT_CHECKPOINT_EVERY, label: 'from checkpoint' },
        { kind, size, every: Number.POSITIVE_INFINITY, label: 'whole log (before)' },
      ]),
    )
    const rounds = 5
    const samples: Sample[][] = cases.map(() => [])
    // One warm-up round (page cache, JIT of the parent), then interleaved rounds.
    for (let r = 0; r <= rounds; r++) {
      for (const [i, c] of cases.entries()) {
        const sample = await openIn(c.kind, where(c.kind), `s${c.size}`, c.every)
        if (r > 0) samples[i]!.push(sample)
      }
    }
    const name = (c: (typeof cases)[number]) =>
      `${c.kind === 'file' ? 'fileStore' : 'sqliteStore'}: openSession, ${c.size.toLocaleString('en')} events, ${c.label}`
    const rows = cases.map((c, i) =>
      summarize(
        name(c),
        samples[i]!.map((s) => s.openMs * 1e6),
      ),
    )
    const rss = cases.map((c, i) => `| ${name(c)} | ${mb(samples[i]!.map((s) => s.maxRssMb))} |`)
    const base = mb(samples.flat().map((s) => s.baseRssMb))

    // The first messages() after a checkpointed open reads the events before the checkpoint.
    const lazy: Sample[][] = STORES.map(() => [])
    for (let r = 0; r < 3; r++) {
      for (const [k, kind] of STORES.entries())
        lazy[k]!.push(await openIn(kind, where(kind), 's1000000', DEFAULT_CHECKPOINT_EVERY, 'messages'))
    }
    const lazyRows = STORES.map((kind, k) => {
      const xs = lazy[k]!
      return `| ${kind === 'file' ? 'fileStore' : 'sqliteStore'}: open from checkpoint, then the first messages() of 1,000,000 events | ${formatNs(median(xs.map((s) => s.openMs)) * 1e6)} + ${formatNs(median(xs.map((s) => s.messagesMs!)) * 1e6)} | ${mb(xs.map((s) => s.maxRssMb))} |`
    })

    // Checkpoint + tail == full replay at 1M events: the same events, messages and a replay.
    const same: string[] = []
    for (const kind of STORES) {
      const a = kind === 'file' ? fileStore(where(kind)) : sqliteStore(where(kind))
      const fromCheckpoint = await openSession(a, { id: 's1000000' })
      const messages = stringifyJson(fromCheckpoint.messages() as unknown as JsonValue)
      const replay = stringifyJson(deriveMessages(fromCheckpoint.events()) as unknown as JsonValue)
      const events = stringifyJson(fromCheckpoint.events() as unknown as JsonValue)
      await fromCheckpoint.close()
      await a.close()
      const b = kind === 'file' ? fileStore(where(kind)) : sqliteStore(where(kind))
      const whole = await openSession(b, { id: 's1000000', checkpointEvery: Number.POSITIVE_INFINITY })
      const ok =
        messages === replay &&
        messages === stringifyJson(whole.messages() as unknown as JsonValue) &&
        events === stringifyJson(whole.events() as unknown as JsonValue)
      await whole.close()
      await b.close()
      same.push(`${kind}: ${ok ? 'identical' : 'DIFFERENT'}`)
    }

    const at = (kind: Kind, size: number, every: number) =>
      cases.findIndex((c) => c.kind === kind && c.size === size && c.every === every)
    const cp = (kind: Kind, size: number) => at(kind, size, DEFAULT_CHECKPOINT_EVERY)
    const targets = STORES.map((kind) => {
      const i = cp(kind, 1_000_000)
      const ms = rows[i]!.medianNs / 1e6
      const peak = median(samples[i]!.map((s) => s.maxRssMb))
      return target(
        `${kind === 'file' ? 'fileStore' : 'sqliteStore'}: 1M-event session opens in < 1 s with < 300 MB peak RSS`,
        `${ms.toFixed(1)} ms, ${peak.toFixed(0)} MB`,
        ms < 1000 && peak < 300,
      )
    })
    targets.push(
      target(
        'checkpoint + tail == full replay at 1M events (events, messages, deriveMessages)',
        same.join(', '),
        same.every((s) => s.endsWith('identical')),
      ),
    )
    const ratio = (kind: Kind) =>
      `${kind}: 1M / 1k = ${(rows[cp(kind, 1_000_000)]!.medianNs / rows[cp(kind, 1_000)]!.medianNs).toFixed(2)}x from a checkpoint, ${(rows[at(kind, 1_000_000, Number.POSITIVE_INFINITY)]!.medianNs / rows[at(kind, 1_000, Number.POSITIVE_INFINITY)]!.medianNs).toFixed(0)}x reading the whole log`
    return [
      {
        title: 'Session: open at 1k / 100k / 1M events (file and SQLite)',
        method:
          `Sessions of one closed turn of 1,000, 100,000 and 1,000,000 events (user messages written in batches of 1,000; the file logs are ${sizes.join(' / ')}), ` +
          `each opened by \`openSession\` in a fresh child process (plain Node on the built package): from its checkpoint (L11.8, saved every ${DEFAULT_CHECKPOINT_EVERY} events, so the tail read is under that many) and, ` +
          'for comparison, reading the whole log as before (`checkpointEvery: Infinity`); the 1k session is below one interval, has no checkpoint and is read whole either way. The time is from creating the store to `openSession` resolving (lease, checkpoint, tail, checks, repair check), ' +
          `measured inside the child; peak RSS is the child's \`maxRSS\` (a child that only loaded the package: ${base}). ${rounds} interleaved rounds after one warm-up round.`,
        rows,
        ratios: [...STORES.map(ratio)],
        targets,
        extra: [
          '| case | peak RSS, median (min–max) |',
          '|---|---:|',
          ...rss,
          '',
          '| the first `messages()` after an open from a checkpoint (reads the events before it) | open + messages(), medians of 3 | peak RSS |',
          '|---|---:|---:|',
          ...lazyRows,
        ].join('\n'),
      },
    ]
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
