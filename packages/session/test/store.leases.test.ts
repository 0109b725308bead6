/**
 * L14: session leases with real processes. A child process holds a session with a turn still
 * running; another writer is refused while it lives, takes over (and only then repairs) once it
 * is killed, and a paused holder whose lease ran out is fenced when it wakes up.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  fileStore,
  type LeaseOptions,
  openSession,
  postgresStore,
  type SessionStore,
  sqliteStore,
} from '../src/index.js'
import { child, exited, lines } from './child-process.js'
import { describePostgres, freshPostgres } from './postgres.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-leases-')
let n = 0

interface Kind {
  readonly kind: string
  /** A fresh place for one test's sessions. */
  place(): Promise<string>
  open(place: string, options: LeaseOptions): SessionStore
}

const FILE_AND_SQLITE: readonly Kind[] = [
  { kind: 'file', place: async () => join(root, `f${n++}`), open: (place, o) => fileStore(place, o) },
  {
    kind: 'sqlite',
    place: async () => join(root, `s${n++}`, 'sessions.db'),
    open: (place, o) => sqliteStore(place, o),
  },
]

/** Starts a lease holder (`fixtures/lease-holder.mjs`) and waits until it holds the session. */
async function holder(kind: string, place: string, leaseMs: number) {
  const proc = child('lease-holder.mjs', [kind, place, 'held', String(leaseMs)])
  const out = lines(proc)
  const first = await Promise.race([
    out.waitFor('holding'),
    out.waitFor('refused'),
    exited(proc).then(() => 'exited'),
  ])
  expect(first).toBe('holding')
  return { proc, out }
}

/** Runs `use` with a lease holder (as `holder` starts it), then kills the holder and waits for its exit. */
async function withHolder(
  kind: string,
  place: string,
  leaseMs: number,
  use: (held: Awaited<ReturnType<typeof holder>>) => Promise<void>,
): Promise<void> {
  const held = await holder(kind, place, leaseMs)
  try {
    await use(held)
  } finally {
    held.proc.kill('SIGKILL')
    await exited(held.proc)
  }
}

/** Opens `held` on a new store object, retrying while it is refused; resolves with the session and how long that took. */
async function takeOver(k: Kind, place: string, leaseMs: number, deadline: number) {
  const started = Date.now()
  let last: unknown
  while (Date.now() - started < deadline) {
    const store = k.open(place, { leaseMs })
    try {
      return { store, session: await openSession(store, { id: 'held' }), ms: Date.now() - started }
    } catch (error) {
      last = error
      await store.close()
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw last
}

const types = (store: SessionStore) => store.load('held').then((events) => events.map((e) => e.type))
const RUNNING = ['turn/start', 'step/start', 'assistant/message', 'tool/call']
const REPAIRED = [...RUNNING, 'tool/result', 'step/end', 'turn/end']

function leaseSuite(kinds: readonly Kind[]): void {
  for (const k of kinds) {
    describe(`L14 session leases: ${k.kind} store`, () => {
      it('L14.2: a live holder renews its lease by a heartbeat, so it is still refused to others long after leaseMs; leaseMs is checked', async () => {
        const place = await k.place()
        const mine = k.open(place, { leaseMs: 1500 })
        const other = k.open(place, { leaseMs: 1500 })
        try {
          await openSession(mine, { id: 'beat' })
          await new Promise((r) => setTimeout(r, 3500))
          // Postgres names every holder by process and host, the others this process's own objects apart.
          await expect(openSession(other, { id: 'beat' })).rejects.toThrow(
            new RegExp(
              `is held by another live writer \\((another store object in this process|process ${process.pid} on [^)]+)\\)`,
            ),
          )
        } finally {
          await mine.close()
          await other.close()
        }
        for (const leaseMs of [99, 1.5, Number.NaN]) {
          expect(() => k.open(place, { leaseMs })).toThrow(
            `leaseMs must be a whole number of milliseconds >= 100, got ${leaseMs}`,
          )
        }
      }, 30_000)

      it('L14.4: session.close() gives its lease back and store.close() gives back every lease, so another store object opens at once', async () => {
        const place = await k.place()
        // A long lease: without release, the other store object would be refused for a minute.
        const mine = k.open(place, { leaseMs: 60_000 })
        const other = k.open(place, { leaseMs: 60_000 })
        try {
          const a = await openSession(mine, { id: 'one' })
          await openSession(mine, { id: 'two' })
          await expect(openSession(other, { id: 'one' })).rejects.toThrow(/is held by another live writer/)
          await a.close()
          const reopened = await openSession(other, { id: 'one' })
          await expect(openSession(other, { id: 'two' })).rejects.toThrow(/is held by another live writer/)
          await mine.close()
          await expect(openSession(other, { id: 'two' })).resolves.toMatchObject({ id: 'two' })
          await reopened.close()
        } finally {
          await mine.close()
          await other.close()
        }
      }, 30_000)

      it(`L14.1: while one process holds a session, another process and another store object are refused with the holder and its lease expiry, and nothing is repaired`, async () => {
        const place = await k.place()
        await withHolder(k.kind, place, 5000, async ({ proc }) => {
          const store = k.open(place, { leaseMs: 5000 })
          const error = (await openSession(store, { id: 'held' }).catch((e: unknown) => e)) as Error
          expect(error.message).toMatch(
            new RegExp(
              `^invariant violated: session "held" is held by another live writer \\(process ${proc.pid}\\b[^)]*\\) whose lease runs until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z unless it renews it; it was not opened and nothing in it was repaired`,
            ),
          )
          const second = child('lease-holder.mjs', [k.kind, place, 'held', '5000'])
          const refused = await lines(second).waitFor('refused')
          await exited(second)
          expect(refused).toContain(`is held by another live writer (process ${proc.pid}`)
          expect(await types(store)).toEqual(RUNNING)
          await store.close()
        })
      }, 60_000)

      it(`L14.3: once the holding process is killed another writer takes the lease over within the lease time, and only then repairs the turn`, async () => {
        const leaseMs = 4000
        const place = await k.place()
        const { proc } = await holder(k.kind, place, leaseMs)
        proc.kill('SIGKILL')
        await exited(proc)
        const { store, session, ms } = await takeOver(k, place, leaseMs, leaseMs + 5000)
        expect(ms).toBeLessThan(leaseMs + 2000)
        expect(session.events().map((e) => e.type)).toEqual(REPAIRED)
        expect(session.events().at(-1)?.data).toEqual({ turn: 1, reason: 'interrupted' })
        await store.close()
      }, 60_000)

      it(`L14.5: a paused writer whose lease ran out and was taken over cannot append when it wakes (fencing)`, async () => {
        const leaseMs = 1500
        const place = await k.place()
        await withHolder(k.kind, place, leaseMs, async ({ proc, out }) => {
          proc.kill('SIGSTOP')
          const { store, session, ms } = await takeOver(k, place, leaseMs, leaseMs + 10_000)
          // The paused process is alive, so only its lease running out lets the taker in: at the
          // earliest `leaseMs` after its last heartbeat, which came at most a third of it earlier.
          expect(ms).toBeGreaterThanOrEqual((leaseMs * 2) / 3 - 100)
          expect(session.events().map((e) => e.type)).toEqual(REPAIRED)
          proc.kill('SIGCONT')
          proc.stdin!.write('append\n')
          const answer = await Promise.race([out.waitFor('ok'), out.waitFor('error')])
          expect(answer).toMatch(/^error invariant violated: session "held" has another writer \(.+\) that/)
          expect(answer).toMatch(/wrote nothing/)
          expect(await types(store)).toEqual(REPAIRED)
          await store.close()
        })
      }, 60_000)
    })
  }
}

leaseSuite(FILE_AND_SQLITE)
describePostgres('N1.4: leases on PostgreSQL', () => {
  leaseSuite([{ kind: 'postgres', place: freshPostgres, open: (place, o) => postgresStore(place, o) }])
})
