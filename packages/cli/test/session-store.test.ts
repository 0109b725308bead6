/**
 * K3.9, K3.10: every command's `--db` goes through `session-store.ts` — a URL of another scheme is
 * a usage error, and a PostgreSQL database that cannot be reached is named without its password,
 * with what to check. The built CLI in child processes; no server is needed (port 1 refuses).
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { openSession } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { openStore } from '../src/session-store.js'
import { scratch, tooltx } from './cli-harness.js'

const DOWN = 'postgres://tooltx:hunter2@127.0.0.1:1/sessions'
const REFUSED =
  'cannot connect to postgres://tooltx@127.0.0.1:1/sessions: connection refused — is the server running and the port right?'

describe('K3.9 a --db of another scheme', () => {
  it('K3.9: sessions, replay and view refuse mysql://… and sqlite:… with exit 2, name only the scheme, and create no file', async () => {
    const cwd = scratch()
    for (const args of [
      ['sessions', '--db', 'mysql://root:hunter2@db/app'],
      ['replay', 'latest', '--db', 'mysql://root:hunter2@db/app'],
      ['view', '--db', 'sqlite:sessions.db'],
    ]) {
      const result = await tooltx(cwd, ...args)
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(
        /^tooltx: --db "(mysql|sqlite):…" is not a session store tooltx reads: pass a SQLite file path, a folder of \.jsonl logs or postgres:\/\/user@host:port\/database/,
      )
      expect(result.stderr).not.toContain('hunter2')
    }
    expect(existsSync(path.join(cwd, 'mysql:'))).toBe(false)
    expect(existsSync(path.join(cwd, 'sqlite:sessions.db'))).toBe(false)
  }, 60_000)
})

describe('K3.10 a PostgreSQL database that cannot be reached', () => {
  it('K3.10: sessions, replay and view name the address without the password and what to check (exit 1)', async () => {
    const cwd = scratch()
    for (const args of [['sessions'], ['replay', 'latest'], ['view']]) {
      const result = await tooltx(cwd, ...args, '--db', DOWN)
      expect([result.code, result.stderr.trim()]).toEqual([1, `tooltx: ${REFUSED}`])
    }
  }, 60_000)

  it('K3.10: a writing command’s store fails the same way', async () => {
    const store = openStore(DOWN, { error: () => {} })
    await expect(openSession(store, { id: 'one' })).rejects.toThrow(REFUSED)
    await store.close().catch(() => {})
  })
})

describePostgres('K3.10 messages naming a PostgreSQL store', () => {
  it('K3.10: sessions and replay name a reachable database without its password', async () => {
    const url = new URL(await freshPostgres())
    url.password = 'hunter2'
    const db = url.toString()
    const cwd = scratch()
    const listed = await tooltx(cwd, 'sessions', '--db', db)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^no sessions in postgres:\/\/tooltx@127\.0\.0\.1:\d+\/postgres yet/)
    const replayed = await tooltx(cwd, 'replay', 'nope', '--db', db)
    expect(replayed.code).toBe(1)
    expect(replayed.stderr).toMatch(
      /^tooltx: no session "nope" in postgres:\/\/tooltx@127\.0\.0\.1:\d+\/postgres: there are no sessions yet/,
    )
    expect(listed.stdout + replayed.stderr).not.toContain('hunter2')
  }, 60_000)
})
