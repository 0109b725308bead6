/**
 * Workers against one PostgreSQL: turns and appends per second with 1, 2 and 4 `tooltx worker`
 * processes beside the same turns in one process on SQLite, and the takeover latency after a
 * SIGKILL. Needs a PostgreSQL: `TOOLTX_BENCH_POSTGRES` (or the tests' connection string).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent, openaiCompatible } from '@tooltx/agent'
import { openSession, postgresStore, type SessionStore, sqliteStore } from '@tooltx/session'
import { turnQueue } from '@tooltx/worker'
import { createToolset } from 'tooltx'
import type { BenchSection } from './harness.js'

const DB = process.env.TOOLTX_BENCH_POSTGRES ?? process.env.TOOLTX_TEST_PG
const CLI = fileURLToPath(new URL('../packages/cli/dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../packages/cli/sample-workspace', import.meta.url))
const SESSIONS = 40
const MESSAGES = 160
const CONCURRENCY = 2
const TAKEOVERS = 7
const VISIBILITY_S = 2

type Request = { messages: { role: string }[] }

/**
 * A stateless OpenAI-compatible model on loopback: after a user message three parallel tool
 * calls, after tool results a short answer; `hold(request)` true leaves the answer hanging.
 */
async function model(hold: (request: Request) => boolean = () => false) {
  const requests: Request[] = []
  const server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (piece: string) => {
      raw += piece
    })
    req.on('end', () => {
      const request = JSON.parse(raw) as Request
      requests.push(request)
      if (hold(request)) return
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (request.messages.at(-1)?.role === 'tool') {
        res.write(chunk({ role: 'assistant', content: 'answered' }))
        res.write(chunk({}, 'stop'))
      } else {
        const n = randomUUID()
        const calls = [
          ['read_file', '{"path":"README.md"}'],
          ['list_files', '{"path":"src"}'],
          ['grep', '{"pattern":"price"}'],
        ]
        res.write(chunk({ role: 'assistant', content: '' }))
        for (const [index, [name, args]] of calls.entries()) {
          const call = { index, id: `c${index}-${n}`, type: 'function', function: { name, arguments: args } }
          res.write(chunk({ tool_calls: [call] }))
        }
        res.write(chunk({}, 'tool_calls'))
      }
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

/** A `tooltx worker` process; `line(match)` resolves at the first printed line `match` accepts. */
function worker(queue: string, baseURL: string, flags: string[] = []) {
  const proc: ChildProcess = spawn(
    process.execPath,
    [
      CLI,
      'worker',
      '--db',
      DB!,
      '--queue',
      queue,
      '--provider',
      'openai',
      '--base-url',
      baseURL,
      '--workspace',
      SAMPLE,
      ...flags,
    ],
    { env: { ...process.env, OPENAI_API_KEY: 'bench' }, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const seen: string[] = []
  const waiting = new Set<{ match: (l: string) => boolean; resolve: (l: string) => void }>()
  let buffer = ''
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (chunk: string) => {
    buffer += chunk
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const text = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      seen.push(text)
      for (const w of waiting) {
        if (!w.match(text)) continue
        waiting.delete(w)
        w.resolve(text)
      }
    }
  })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  const line = (match: (l: string) => boolean) =>
    new Promise<string>((resolve) => {
      const found = seen.find(match)
      if (found !== undefined) resolve(found)
      else waiting.add({ match, resolve })
    })
  return { proc, line, exited }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Events in the sessions `ids` of `store`. */
async function eventsIn(store: SessionStore, ids: readonly string[]): Promise<number> {
  let total = 0
  for (const id of ids) total += (await store.load(id)).length
  return total
}

/** MESSAGES turns over SESSIONS sessions through `count` worker processes; seconds and events. */
async function workersRun(count: number): Promise<{ seconds: number; events: number }> {
  const fake = await model()
  const queueName = `bench-${randomUUID().slice(0, 8)}`
  const prefix = `bench-${randomUUID().slice(0, 8)}`
  const procs = Array.from({ length: count }, () =>
    worker(queueName, fake.baseURL, ['--concurrency', String(CONCURRENCY)]),
  )
  await Promise.all(procs.map((p) => p.line((l) => l.startsWith('tooltx worker '))))
  const queue = turnQueue({ connectionString: DB!, name: queueName })
  const ids = Array.from({ length: SESSIONS }, (_, i) => `${prefix}-${i}`)
  const started = performance.now()
  for (let m = 0; m < MESSAGES; m++) await queue.submit(ids[m % SESSIONS]!, `message ${m}`)
  while ((await queue.pending()) > 0) await sleep(50)
  const seconds = (performance.now() - started) / 1000
  for (const p of procs) p.proc.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  await queue.close()
  fake.close()
  const store = postgresStore(DB!)
  const events = await eventsIn(store, ids)
  await store.close()
  return { seconds, events }
}

/** The same turns in one process on SQLite: `CONCURRENCY` sessions at a time, no queue. */
async function sqliteRun(): Promise<{ seconds: number; events: number }> {
  const fake = await model()
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-bench-worker-'))
  const store = sqliteStore(join(dir, 'sessions.db'))
  const { runtime, scope } = createToolset({ root: SAMPLE })
  const llm = openaiCompatible({ apiKey: 'bench', baseURL: fake.baseURL, model: 'bench' })
  const ids = Array.from({ length: SESSIONS }, (_, i) => `sqlite-${i}`)
  const work = Array.from({ length: MESSAGES }, (_, m) => ({ id: ids[m % SESSIONS]!, text: `message ${m}` }))
  const busy = new Set<string>()
  const started = performance.now()
  const lane = async () => {
    for (;;) {
      const index = work.findIndex((w) => !busy.has(w.id))
      if (index === -1) return
      const [next] = work.splice(index, 1)
      busy.add(next!.id)
      const session = await openSession(store, { id: next!.id })
      await createAgent({ runtime, scope, session, model: llm }).send(next!.text)
      await session.close()
      busy.delete(next!.id)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, lane))
  const seconds = (performance.now() - started) / 1000
  const events = await eventsIn(store, ids)
  await store.close()
  fake.close()
  rmSync(dir, { recursive: true, force: true })
  return { seconds, events }
}

/** Seconds from SIGKILLing the worker in a turn to another worker finishing that turn, TAKEOVERS times. */
async function takeovers(): Promise<number[]> {
  const latencies: number[] = []
  let killed = false
  const fake = await model((request) => !killed && request.messages.at(-1)?.role === 'tool')
  const queueName = `bench-${randomUUID().slice(0, 8)}`
  const queue = turnQueue({ connectionString: DB!, name: queueName })
  const flags = ['--visibility-timeout', String(VISIBILITY_S), '--grace', '1']
  for (let round = 0; round < TAKEOVERS; round++) {
    killed = false
    const held = fake.requests.length
    const first = worker(queueName, fake.baseURL, flags)
    await first.line((l) => l.startsWith('tooltx worker '))
    const id = await queue.submit(`takeover-${randomUUID().slice(0, 8)}`, 'read three things')
    while (!fake.requests.slice(held).some((r) => r.messages.at(-1)?.role === 'tool')) await sleep(10)
    const second = worker(queueName, fake.baseURL, flags)
    await second.line((l) => l.startsWith('tooltx worker '))
    killed = true
    const t0 = performance.now()
    first.proc.kill('SIGKILL')
    await second.line((l) => l.startsWith(`job ${id} `) && l.includes('done (resume)'))
    latencies.push((performance.now() - t0) / 1000)
    second.proc.kill('SIGTERM')
    await Promise.all([first.exited, second.exited])
  }
  await queue.close()
  fake.close()
  return latencies
}

export default async function workerBench(): Promise<BenchSection[]> {
  if (DB === undefined)
    throw new Error('worker.bench.ts needs a PostgreSQL: set TOOLTX_BENCH_POSTGRES=postgres://…')
  const rows: string[] = []
  const line = (name: string, r: { seconds: number; events: number }) =>
    rows.push(
      `| ${name} | ${(MESSAGES / r.seconds).toFixed(1)} | ${(r.events / r.seconds).toFixed(0)} | ${r.seconds.toFixed(2)} s |`,
    )
  line(`one process, sqliteStore, ${CONCURRENCY} sessions at a time (no queue)`, await sqliteRun())
  for (const count of [1, 2, 4])
    line(
      `${count} worker${count > 1 ? 's' : ''} × concurrency ${CONCURRENCY}, postgresStore + pg-boss`,
      await workersRun(count),
    )
  const latencies = (await takeovers()).sort((a, b) => a - b)
  const median = latencies[Math.floor(latencies.length / 2)]!
  return [
    {
      title: 'Workers: turns and appends per second against one PostgreSQL',
      method: `${MESSAGES} submitted messages over ${SESSIONS} sessions, each turn a reply with three parallel tool calls (read_file, list_files, grep on the sample workspace) and a text answer from a loopback OpenAI-compatible model that answers at once, so the figures are the runtime's, the store's and the queue's cost. \`tooltx worker\` processes (concurrency ${CONCURRENCY} each) are started first; the clock runs from the first submit until the queue has no pending job. Appends are the durable events in the sessions afterwards. The SQLite line runs the same turns in one process with the same agent (no queue, no lease across processes). PostgreSQL 15 on loopback with its default settings (fsync on, synchronous_commit on), on the same 2 cores as the workers.`,
      rows: [],
      extra: ['| setup | turns/s | appends/s | wall time |', '|---|---:|---:|---:|', ...rows].join('\n'),
    },
    {
      title: 'Workers: takeover after a SIGKILL',
      method: `A worker is SIGKILLed while its turn waits for the model's answer (all three tool results durable); a second, idle worker is already running. Measured from the SIGKILL to the second worker's \`done (resume)\` line, i.e. the job re-offered after the visibility timeout (${VISIBILITY_S} s here; \`--visibility-timeout\`), the lease taken over, the log repaired and the resume turn completed. ${TAKEOVERS} rounds. Expected ≈ visibility timeout + up to one maintenance interval (1 s) + up to one polling interval (0.5 s).`,
      rows: [],
      extra: [
        '| takeovers | median | max | min |',
        '|---:|---:|---:|---:|',
        `| ${latencies.length} | ${median.toFixed(2)} s | ${latencies.at(-1)!.toFixed(2)} s | ${latencies[0]!.toFixed(2)} s |`,
      ].join('\n'),
    },
  ]
}
