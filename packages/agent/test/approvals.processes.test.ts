/**
 * F2.11: a durable approval across three real `node` processes on the file, SQLite and
 * PostgreSQL stores: A runs the turn and exits at the ask, B decides, C resumes and finishes.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { fileStore, openSession, postgresStore, type SessionStore, sqliteStore } from '@tooltx/session'
import { afterEach, describe, expect, it } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { CLOSING_TYPES, OPENING_TYPES } from './loop-harness.js'

const run = promisify(execFile)
const script = fileURLToPath(new URL('./fixtures/approval-process.mjs', import.meta.url))

type Kind = 'file' | 'sqlite' | 'postgres'

async function processRun(role: string, kind: Kind, location: string, ledger: string): Promise<unknown> {
  const { stdout, stderr } = await run(process.execPath, [script, role, kind, location, ledger])
  expect(stderr).toBe('')
  return JSON.parse(stdout.trim())
}

const storeOf = (kind: Kind, location: string): SessionStore =>
  kind === 'file'
    ? fileStore(location)
    : kind === 'sqlite'
      ? sqliteStore(join(location, 'sessions.db'))
      : postgresStore(location)

/** A runs and exits at the ask; B decides; C resumes; then the log and the ledger are checked. */
async function threeProcesses(kind: Kind, location: string, dir: string): Promise<void> {
  const ledger = join(dir, 'ledger')
  const asked = (await processRun('ask', kind, location, ledger)) as {
    reason: string
    pending: { argumentsDigest: string }[]
  }
  expect(asked).toMatchObject({
    turn: 1,
    reason: 'suspended',
    pending: [{ callId: 'pay-1', name: 'pay', reason: 'moves money' }],
  })
  expect(existsSync(ledger)).toBe(false)
  const decided = (await processRun('decide', kind, location, ledger)) as Record<string, unknown>
  expect(decided).toMatchObject({
    pending: { callId: 'pay-1', argumentsDigest: asked.pending[0]!.argumentsDigest, expired: false },
    tampered: 'APPROVAL_REFUSED',
    decided: {
      callId: 'pay-1',
      outcome: 'allowed-once',
      by: 'carol',
      argumentsDigest: asked.pending[0]!.argumentsDigest,
    },
  })
  const resumed = await processRun('resume', kind, location, ledger)
  expect(resumed).toMatchObject({ turn: 1, reason: 'completed', text: 'paid 40' })
  expect(readFileSync(ledger, 'utf8')).toBe('pay pay-1\n')

  const store = storeOf(kind, location)
  const session = await openSession(store, { id: 'approval' })
  const events = session.events()
  const types = events.map((e) => e.type)
  expect(types).toEqual([
    ...OPENING_TYPES,
    'assistant/message',
    'tool/call',
    'approval/asked',
    'approval/decided',
    'turn/resumed',
    'tool/result',
    ...CLOSING_TYPES,
  ])
  const digests = events.flatMap((e) =>
    e.type === 'approval/asked' || e.type === 'approval/decided' ? [e.data.argumentsDigest] : [],
  )
  expect(digests).toEqual([asked.pending[0]!.argumentsDigest, asked.pending[0]!.argumentsDigest])
  expect(events[8]).toMatchObject({ data: { callId: 'pay-1', isError: false } })
  await session.close()
  await store.close()
}

describe('F2.11 a durable approval across three processes', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-approval-'))
    dirs.push(dir)
    return dir
  }

  for (const kind of ['file', 'sqlite'] as const) {
    it(`F2.11: ${kind} store: asked → decided → turn/resumed → result, in three processes`, async () => {
      const dir = tempDir()
      await threeProcesses(kind, kind === 'file' ? join(dir, 'sessions') : dir, dir)
    }, 60_000)
  }
})

describe('F2.10 a process killed while the resumed call runs', () => {
  it('F2.10: SIGKILL after turn/resumed, mid-body: recovery answers the approved write TOOL_OUTCOME_UNKNOWN and never runs it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-approval-'))
    try {
      const ledger = join(dir, 'ledger')
      await processRun('ask', 'sqlite', dir, ledger)
      await processRun('decide', 'sqlite', dir, ledger)
      const child = spawn(process.execPath, [script, 'hang', 'sqlite', dir, ledger], { stdio: 'ignore' })
      const exited = new Promise((resolve) => child.on('exit', resolve))
      const deadline = Date.now() + 20_000
      while (!(existsSync(ledger) && readFileSync(ledger, 'utf8') !== '') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10))
      child.kill('SIGKILL')
      await exited
      expect(readFileSync(ledger, 'utf8')).toBe('pay pay-1\n')
      expect(await processRun('recover', 'sqlite', dir, ledger)).toBeNull()
      expect(readFileSync(ledger, 'utf8')).toBe('pay pay-1\n')
      const store = sqliteStore(join(dir, 'sessions.db'))
      const session = await openSession(store, { id: 'approval' })
      const tail = session
        .events()
        .slice(5)
        .map((e) =>
          e.type === 'tool/result'
            ? `tool/result ${e.data.error?.code}`
            : e.type === 'turn/end'
              ? `turn/end ${e.data.reason}`
              : e.type,
        )
      expect(tail).toEqual([
        'approval/asked',
        'approval/decided',
        'turn/resumed',
        'tool/result TOOL_OUTCOME_UNKNOWN',
        'step/end',
        'turn/end interrupted',
      ])
      await session.close()
      await store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describePostgres('F2.11 a durable approval across three processes (PostgreSQL)', () => {
  it('F2.11: postgres store: asked → decided → turn/resumed → result, in three processes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-approval-'))
    try {
      await threeProcesses('postgres', await freshPostgres(), dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
