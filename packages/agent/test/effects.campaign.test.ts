/**
 * F1.8: SIGKILL campaigns per effect class. Each run is a real process (fixtures/effect-victim.mjs)
 * that recovers the session by effect class and starts one call, killed at a seeded random moment;
 * a last run only recovers. Then the log and the fake backend's ledger must agree, call by call.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openSession, postgresStore, type SessionEvent, sqliteStore } from '@tooltx/session'
import { afterEach, describe, expect, it } from 'vitest'
import { seededRandom } from '../../session/test/log-script.js'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'

const victim = fileURLToPath(new URL('./fixtures/effect-victim.mjs', import.meta.url))
const KILLS = 50
type Class = 'read' | 'idempotent' | 'write' | 'receipt'

function start(args: string[]): { proc: ChildProcess; resumed: Promise<void>; done: Promise<string> } {
  const proc = spawn(process.execPath, [victim, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  let onResumed: () => void = () => {}
  const resumed = new Promise<void>((resolve) => {
    onResumed = resolve
  })
  proc.stdout!.on('data', (chunk) => {
    out += chunk
    if (out.includes('resumed\n')) onResumed()
  })
  proc.stderr!.on('data', (chunk) => {
    err += chunk
  })
  const done = new Promise<string>((resolve) => proc.on('exit', () => resolve(err)))
  return { proc, resumed: Promise.race([resumed, done.then(() => {})]), done }
}

interface Verdict {
  readonly calls: number
  readonly codes: Record<string, number>
  /** Calls whose body started more than once (re-run on resume). */
  readonly rerun: number
}

/**
 * Runs one campaign and checks every call of the log against the ledger: on a SQLite file in
 * `dir`, or on the PostgreSQL at `postgres` (a fresh session id per campaign).
 */
async function campaign(cls: Class, seed: number, dir: string, postgres?: string): Promise<Verdict> {
  const db = postgres ?? join(dir, 'sessions.db')
  const id = postgres === undefined ? 'campaign' : `campaign-${cls}-${randomUUID().slice(0, 8)}`
  const ledger = join(dir, 'ledger')
  const rand = seededRandom(seed)
  for (let run = 0; run < KILLS; run++) {
    const child = start([cls, db, ledger, `call-${run}`, 'run', id])
    await child.resumed
    // A PostgreSQL turn takes longer to reach its call (network round trips), so its window is wider.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.floor(rand() * (postgres === undefined ? 30 : 150))),
    )
    child.proc.kill('SIGKILL')
    expect(await child.done, `stderr of run ${run}`).toBe('')
  }
  const last = start([cls, db, ledger, 'none', 'final', id])
  expect(await last.done).toBe('')

  const store = postgres === undefined ? sqliteStore(db) : postgresStore(db)
  const session = await openSession(store, { id })
  const events = session.events()
  await session.close()
  await store.close()
  const lines = existsSync(ledger) ? readFileSync(ledger, 'utf8').split('\n').filter(Boolean) : []
  const byCall = (kind: string, id: string) =>
    lines.filter((line) => line.startsWith(`${kind} ${id} `)).map((line) => line.split(' ')[2])
  const calls = events.filter((e) => e.type === 'tool/call').map((e) => e.data.callId)
  const codes: Record<string, number> = {}
  let rerun = 0
  for (const id of calls) {
    const results = events.filter(
      (e): e is Extract<SessionEvent, { type: 'tool/result' }> =>
        e.type === 'tool/result' && e.data.callId === id,
    )
    expect(results, `results of ${id}`).toHaveLength(1)
    const result = results[0]!.data
    const code = result.error?.code ?? 'ok'
    codes[code] = (codes[code] ?? 0) + 1
    const starts = byCall('start', id)
    const effects = byCall('effect', id)
    // The key is the same in every process that ran the call (F1.2).
    expect(new Set([...starts, ...effects]).size, `keys of ${id}`).toBeLessThanOrEqual(1)
    if (starts.length > 1) rerun++
    const receipts = events.filter((e) => e.type === 'tool/effect' && e.data.callId === id)
    switch (cls) {
      case 'read':
        expect(code, `read ${id}`).toBe('ok')
        expect(effects).toEqual([])
        break
      case 'idempotent':
        // Re-run with the same key; the backend that dedupes by key holds exactly one effect.
        expect(code, `idempotent ${id}`).toBe('ok')
        expect(effects, `effects of ${id}`).toHaveLength(1)
        break
      case 'write':
        expect(starts.length, `runs of write ${id}`).toBeLessThanOrEqual(1)
        expect(['ok', 'TOOL_OUTCOME_UNKNOWN'], `write ${id}`).toContain(code)
        if (code === 'ok') expect(effects).toHaveLength(1)
        break
      case 'receipt':
        expect(starts.length, `runs of write ${id}`).toBeLessThanOrEqual(1)
        if (receipts.length === 0) {
          expect(code, `write ${id} without a durable receipt`).toBe('TOOL_OUTCOME_UNKNOWN')
        } else if (code !== 'ok') {
          expect(code, `write ${id} with a receipt`).toBe('TOOL_EFFECT_RECORDED')
          expect(result.meta).toEqual({ receipts: [{ refund: id }] })
          expect(JSON.stringify(result.content)).toContain(`{\\"refund\\":\\"${id}\\"}`)
        }
        break
    }
  }
  return { calls: calls.length, codes, rerun }
}

describe('F1 effect-aware recovery under SIGKILL (real processes, SQLite store)', () => {
  const dirs: string[] = []
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-effects-'))
    dirs.push(dir)
    return dir
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('F1.8: a read killed mid-call is run again on resume: every call ends in a success, no unknown outcome', async () => {
    const verdict = await campaign('read', 1701, fresh())
    console.log('F1.8 read campaign', verdict)
    expect(verdict.codes).toEqual({ ok: verdict.calls })
  }, 180_000)

  it('F1.8: an idempotent call is re-run with the same key: the deduping backend counts exactly one effect per call', async () => {
    const verdict = await campaign('idempotent', 1702, fresh())
    console.log('F1.8 idempotent campaign', verdict)
    expect(verdict.codes).toEqual({ ok: verdict.calls })
  }, 180_000)

  it('F1.8: a write without a receipt is never run twice: its lost outcome is TOOL_OUTCOME_UNKNOWN', async () => {
    const verdict = await campaign('write', 1703, fresh())
    console.log('F1.8 write campaign', verdict)
    expect(verdict.rerun).toBe(0)
    expect(Object.keys(verdict.codes).filter((c) => c !== 'ok' && c !== 'TOOL_OUTCOME_UNKNOWN')).toEqual([])
  }, 180_000)

  it('F1.8: a write with a durable receipt is answered from it (TOOL_EFFECT_RECORDED), never run twice', async () => {
    const verdict = await campaign('receipt', 1704, fresh())
    console.log('F1.8 receipt campaign', verdict)
    expect(verdict.rerun).toBe(0)
    expect(
      Object.keys(verdict.codes).filter(
        (c) => c !== 'ok' && c !== 'TOOL_OUTCOME_UNKNOWN' && c !== 'TOOL_EFFECT_RECORDED',
      ),
    ).toEqual([])
  }, 180_000)
})

describe.skipIf(POSTGRES_URL === undefined)(
  'F1 effect-aware recovery under SIGKILL (real processes, PostgreSQL store)',
  () => {
    const dirs: string[] = []
    afterEach(() => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
    })

    for (const [cls, seed] of [
      ['read', 1801],
      ['idempotent', 1802],
      ['write', 1803],
      ['receipt', 1804],
    ] as const) {
      it(`F1.8: the ${cls} campaign on PostgreSQL: 50 kills, every call answered by its effect class`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'tooltx-effects-pg-'))
        dirs.push(dir)
        const verdict = await campaign(cls, seed, dir, POSTGRES_URL)
        console.log(`F1.8 ${cls} campaign on PostgreSQL`, verdict)
        const allowed = {
          read: ['ok'],
          idempotent: ['ok'],
          write: ['ok', 'TOOL_OUTCOME_UNKNOWN'],
          receipt: ['ok', 'TOOL_OUTCOME_UNKNOWN', 'TOOL_EFFECT_RECORDED'],
        }[cls]
        expect(Object.keys(verdict.codes).filter((code) => !allowed.includes(code))).toEqual([])
        if (cls === 'write' || cls === 'receipt') expect(verdict.rerun).toBe(0)
        // Each run adds one call when its kill came after the call was recorded.
        expect(verdict.calls).toBeGreaterThanOrEqual(10)
      }, 240_000)
    }
  },
)
requirePostgresInCi('F1.8 on PostgreSQL')
