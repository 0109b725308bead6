/**
 * N1.5: the CLI on a PostgreSQL session database — `sessions` and `replay` with
 * `--db postgres://…`, and `replay --follow` printing events as another process writes them
 * (LISTEN/NOTIFY), with a real server and the built CLI in a child process.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { openSession, postgresStore, sqliteStore } from '@tooltx/session'
import { expect, it } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { BIN, cleanEnv, scratch, tooltx } from './cli-harness.js'
import { expiringEdit } from './viewer-fixtures.js'

describePostgres('N1.5 tooltx on a PostgreSQL session database', () => {
  it('N1.5: replay --follow prints the stored timeline, then each event as another writer appends it; sessions lists it; Ctrl-C exits 130', async () => {
    const db = await freshPostgres()
    const store = postgresStore(db)
    const session = await openSession(store, { id: 'live' })
    const at = { turn: 1, step: 1 }
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', at)
    await session.append('user/message', {
      ...at,
      message: { role: 'user', content: [{ type: 'text', text: 'hello follow' }] },
    })

    const proc = spawn(process.execPath, [BIN, 'replay', 'live', '--follow', '--db', db], { env: cleanEnv() })
    let stdout = ''
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
    const waitFor = async (text: string): Promise<void> => {
      for (let i = 0; i < 400 && !stdout.includes(text); i++) await new Promise((r) => setTimeout(r, 25))
      expect(stdout).toContain(text)
    }
    try {
      await waitFor('user: hello follow')
      expect(stdout.startsWith('session live (3 events)\n')).toBe(true)
      await session.append('assistant/message', {
        ...at,
        content: [{ type: 'text', text: 'first live line' }],
      })
      await waitFor('assistant: first live line')
      await session.append('step/end', at)
      await session.append('turn/end', { turn: 1, reason: 'completed' })
      await session.append('turn/start', { turn: 2 })
      await waitFor('── turn 2 ──')
      const lines = stdout.split('\n')
      expect(lines.filter((l) => l.includes('assistant: first live line'))).toHaveLength(1)
      expect(lines.indexOf('── turn 1 ──')).toBeLessThan(
        lines.findIndex((l) => l.includes('first live line')),
      )
      const listed = await tooltx(scratch(), 'sessions', '--db', db)
      expect(listed.code).toBe(0)
      expect(listed.stdout).toMatch(/^live\s+7\s/m)
    } finally {
      proc.kill('SIGINT')
    }
    expect(await exit).toBe(130)
    await store.close()
  }, 60_000)

  it("K5.18: replay --follow prints a durable ask's expiry when it comes, with no new event, once", async () => {
    const db = await freshPostgres()
    const expiresAt = await expiringEdit(db, 'asks', { task: 'shout', expiresAfterMs: 5000 })
    const proc = spawn(process.execPath, [BIN, 'replay', 'asks', '--follow', '--db', db], { env: cleanEnv() })
    const expired = `    ? approval for edit_file expired ${expiresAt}: nobody decided in time, so the call is denied`
    let stdout = ''
    let askedSeenAt: number | undefined
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      if (stdout.includes('+TWO')) askedSeenAt ??= Date.now()
    })
    const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)))
    try {
      for (let i = 0; i < 400 && !stdout.includes(expired); i++) await new Promise((r) => setTimeout(r, 25))
      await new Promise((r) => setTimeout(r, 300))
      // The ask was printed waiting before it expired; nothing was appended since.
      expect(stdout).toContain(`(durable: waiting for approval until ${expiresAt})`)
      expect(askedSeenAt).toBeLessThan(Date.parse(expiresAt))
      expect(stdout.split('\n').filter((line) => line.includes('nobody decided in time'))).toEqual([expired])
      expect(stdout.endsWith(`${expired}\n`)).toBe(true)
    } finally {
      proc.kill('SIGINT')
    }
    expect(await exit).toBe(130)
  }, 60_000)
})

it('N1.5: replay --follow on a SQLite database fails with exit 2, saying it needs PostgreSQL', async () => {
  const dir = scratch()
  const db = path.join(dir, 'sessions.db')
  const store = sqliteStore(db)
  await openSession(store, { id: 'local' })
  await store.close()
  const result = await tooltx(dir, 'replay', 'local', '--follow', '--db', db)
  expect(result.code).toBe(2)
  expect(result.stderr).toBe(
    `tooltx: --follow needs a PostgreSQL session database (--db postgres://…), whose appends notify readers; ${db} is a SQLite file\nsee tooltx replay --help\n`,
  )
})
