/**
 * Crash tests with real processes: a child appends to a file, a SQLite and a Postgres store and
 * is killed with SIGKILL at seeded random moments; after every kill the log must reopen with
 * every acknowledged event intact and be repaired into a valid conversation.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  deriveMessages,
  fileStore,
  openSession,
  planRepair,
  postgresStore,
  type Session,
  type SessionStore,
  sqliteStore,
} from '../src/index.js'
import { child, exited, lines } from './child-process.js'
import { seededRandom, toolPairingProblem } from './log-script.js'
import { describePostgres, freshPostgres } from './postgres.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-crash-')

type Kind = 'file' | 'sqlite' | 'postgres'
const RUNS = 50
const PARALLEL = 2

const storeFor = (kind: Kind, place: string): SessionStore =>
  kind === 'file' ? fileStore(place) : kind === 'sqlite' ? sqliteStore(place) : postgresStore(place)

/** A fresh place for one worker's session: a directory, a database file or a Postgres schema. */
const placeFor = async (kind: Kind, worker: number): Promise<string> =>
  kind === 'file'
    ? join(root, `${kind}-${worker}`)
    : kind === 'sqlite'
      ? join(root, `${kind}-${worker}`, 'sessions.db')
      : freshPostgres()

/**
 * Opens `id` after its writer was killed. A killed Postgres writer's server backend can outlive
 * it for a moment (it notices the closed socket, or finishes a statement, first); until it is
 * gone its lease is still live, so a refusal is retried for a few seconds.
 */
async function reopenAfterKill(store: SessionStore, id: string): Promise<Session> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openSession(store, { id })
    } catch (error) {
      if (attempt >= 100 || !/is held by another live writer/.test((error as Error).message)) throw error
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

/** One worker: `runs` kill-and-reopen cycles against its own session. */
async function crashLoop(kind: Kind, worker: number, runs: number, rand: () => number): Promise<number> {
  const place = await placeFor(kind, worker)
  const id = 'victim'
  let durable: string[] = []
  let killedMidWrite = 0
  for (let run = 0; run < runs; run++) {
    const proc = child('crash-writer.mjs', [kind, place, id, String(Math.floor(rand() * 2 ** 31))])
    const out = lines(proc)
    let stderr = ''
    proc.stderr!.on('data', (c) => {
      stderr += c
    })
    // Most kills land while appends stream; some land during startup, open and repair.
    if (rand() < 0.8) await Promise.race([out.waitFor('ok '), exited(proc)])
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 25)))
    proc.kill('SIGKILL')
    await exited(proc)
    expect(stderr, `child stderr in run ${run}`).toBe('')
    const acked = out.all.filter((l) => l.startsWith('ok ')).map((l) => l.slice(3))
    if (acked.length > 0) killedMidWrite++

    const store = storeFor(kind, place)
    const session = await reopenAfterKill(store, id)
    const events = session.events().map((e) => JSON.stringify(e))
    // Nothing durable before this run changed, and every acknowledged append survived as sent.
    expect(events.slice(0, durable.length)).toEqual(durable)
    for (const line of acked) {
      const seq = (JSON.parse(line) as { seq: number }).seq
      expect(events[seq - 1], `acked seq ${seq} in run ${run}`).toBe(line)
    }
    expect(session.events().every((e, i) => e.seq === i + 1)).toBe(true)
    expect(toolPairingProblem(session.messages())).toBeUndefined()
    expect(planRepair(session.events())).toEqual([])
    expect(JSON.stringify(session.messages())).toBe(JSON.stringify(deriveMessages(session.events())))
    durable = events
    await session.close()
    await store.close()
  }
  return killedMidWrite
}

async function crashCampaign(kind: Kind, seed: number): Promise<void> {
  const rand = seededRandom(seed)
  const per = Math.ceil(RUNS / PARALLEL)
  const counts = await Promise.all(
    Array.from({ length: PARALLEL }, (_, w) =>
      crashLoop(kind, w, per, seededRandom(Math.floor(rand() * 2 ** 31))),
    ),
  )
  // The campaign must really kill writers mid-stream, not only before their first append.
  expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(RUNS / 2)
}

describe('crash repair with real processes killed by SIGKILL', () => {
  it('L9.1 L9.5 L9.6 L1.6: a file store writer killed 50 times reopens with every resolved append intact and a valid log', async () => {
    await crashCampaign('file', 0xf11e)
  }, 120_000)

  it('L9.1 L9.5 L9.6 L1.6: a SQLite store writer killed 50 times reopens with every resolved append intact and a valid log', async () => {
    await crashCampaign('sqlite', 0x5e1)
  }, 120_000)
})

describePostgres('crash repair with real processes killed by SIGKILL (PostgreSQL)', () => {
  it('N1.3 L9.1 L9.5 L9.6 L1.6: a Postgres store writer killed 50 times reopens with every resolved append intact and a valid log', async () => {
    await crashCampaign('postgres', 0x9057)
  }, 400_000)
})

describe('two processes writing one session', () => {
  for (const kind of ['file', 'sqlite'] as const) {
    it(`L1.1: with a ${kind} store the second writer gets a conflict error and nothing written changes`, async () => {
      const place = kind === 'file' ? join(root, 'two-file') : join(root, 'two-sqlite', 'sessions.db')
      const store = storeFor(kind, place)
      const mine = await openSession(store, { id: 'shared' })
      await mine.append('turn/start', { turn: 1 })
      const proc = child('two-writers.mjs', [kind, place, 'shared'])
      const out = lines(proc)
      // The second process is refused at open: it never repairs the turn this process is running.
      const theirs = await Promise.race([out.waitFor('refused'), out.waitFor('opened')])
      expect(theirs).toMatch(
        /^refused invariant violated: session "shared" is held by another live writer \(process \d+\) whose lease runs until \S+Z unless it renews it; it was not opened and nothing in it was repaired/,
      )
      expect(theirs).toContain(`(process ${process.pid})`)
      await mine.append('step/start', { turn: 1, step: 1 })
      proc.kill('SIGKILL')
      await exited(proc)
      await store.close()
      const check = storeFor(kind, place)
      const types = (await check.load('shared')).map((e) => e.type)
      expect(types).toEqual(['turn/start', 'step/start'])
      await check.close()
    }, 30_000)
  }
})
