/**
 * K3.21, K3.22: the CLI's default store is SQLite where Node has `node:sqlite` without a flag and
 * the JSONL file store folder `.tooltx/sessions/` where it does not, said once; a `--db` folder is
 * that JSONL store on any Node. The built CLI in child processes: on Node 20 the JSONL default is
 * what the machine has, and on a Node with `node:sqlite` `--no-experimental-sqlite` takes it away.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultSqliteDriver } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { cleanEnv, type Finished, scratch, tooltxWith } from './cli-harness.js'

const HAS_SQLITE = defaultSqliteDriver() === 'node:sqlite'
const POLICY = fileURLToPath(new URL('./fixtures/audit/same-policy.mjs', import.meta.url))
const NO_BETTER_SQLITE = fileURLToPath(new URL('./fixtures/without-better-sqlite3.cjs', import.meta.url))

/** The built CLI in `cwd` on a Node without `node:sqlite` (this one, or this one with it turned off). */
function withoutSqlite(cwd: string, ...args: string[]): Promise<Finished> {
  const env = cleanEnv(HAS_SQLITE ? { NODE_OPTIONS: '--no-experimental-sqlite' } : {})
  return tooltxWith({ cwd, env }, ...args)
}

const NOTICE = new RegExp(
  '^tooltx: keeping sessions as \\.jsonl files in \\.tooltx/sessions/: Node \\d+\\.\\d+\\.\\d+ has no node:sqlite ' +
    'without a flag \\(Node >= 22\\.13 keeps them in SQLite at \\.tooltx/sessions\\.db\\)\\n$',
)

describe('K3.21 the default store without node:sqlite', () => {
  it('K3.21: demo keeps its session in .tooltx/sessions/ and says so once; every reading and writing command uses that folder', async () => {
    const cwd = scratch()
    const first = await withoutSqlite(cwd, 'demo', '--fast', '--yes')
    expect(first.code).toBe(0)
    expect(first.stderr).toMatch(NOTICE)
    const id = /Session saved as (\S+) in \.tooltx\/sessions\/\./.exec(first.stdout)?.[1]
    expect(id).toMatch(/^demo-/)
    expect(first.stdout).toContain(`Replay it with: npx tooltx replay ${id}\n`)
    expect(readdirSync(path.join(cwd, '.tooltx')).sort()).toEqual(['demo-workspace', 'sessions'])
    expect(readdirSync(path.join(cwd, '.tooltx/sessions'))).toContain(`${id}.jsonl`)

    const second = await withoutSqlite(cwd, 'demo', '--fast', '--durable')
    expect([second.code, second.stderr]).toEqual([0, ''])
    const waiting = /Session saved as (\S+) in /.exec(second.stdout)![1]!

    const listed = await withoutSqlite(cwd, 'sessions')
    expect(listed.stdout).toMatch(new RegExp(`${id} +31 +\\S+ +completed `))
    expect(listed.stdout).toMatch(new RegExp(`${waiting} +\\d+ +\\S+ +suspended `))
    const replayed = await withoutSqlite(cwd, 'replay', id!)
    expect(replayed.stdout).toContain(`session ${id} (31 events)`)
    const approvals = await withoutSqlite(cwd, 'approvals')
    expect(approvals.stdout).toContain(`${waiting}  call call_note  write_note  expires `)
    const digest = /digest: ([0-9a-f]{64})/.exec(approvals.stdout)![1]!
    const approved = await withoutSqlite(cwd, 'approve', waiting, 'call_note', '--digest', digest)
    expect([approved.code, approved.stderr]).toEqual([0, ''])
    const forked = await withoutSqlite(cwd, 'fork', id!, '--at', '12', '--id', 'demo-fork')
    expect([forked.code, forked.stderr]).toEqual([0, ''])
    expect(forked.stdout).toContain(`Forked ${id} at seq 12 into demo-fork (15 events).`)
    const audited = await withoutSqlite(cwd, 'audit', id!, '--policy', POLICY)
    expect([audited.code, audited.stderr]).toEqual([0, ''])
    expect(audited.stdout).toMatch(/\d+ calls in 1 session: 0 would change/)
    expect(existsSync(path.join(cwd, '.tooltx/sessions.db'))).toBe(false)
  }, 120_000)

  it.skipIf(!HAS_SQLITE)(
    'K3.21: where Node has node:sqlite the default stays .tooltx/sessions.db, with nothing said',
    async () => {
      const cwd = scratch()
      const demo = await tooltxWith({ cwd, env: cleanEnv() }, 'demo', '--fast', '--yes')
      expect([demo.code, demo.stderr]).toEqual([0, ''])
      expect(demo.stdout).toMatch(/Session saved as demo-\S+ in \.tooltx\/sessions\.db\./)
      expect(existsSync(path.join(cwd, '.tooltx/sessions'))).toBe(false)
    },
    60_000,
  )
})

describe('K3.22 a --db folder', () => {
  it('K3.22: --db DIR/ keeps sessions as .jsonl files on any Node, and --db DIR (an existing folder) reads them', async () => {
    const cwd = scratch()
    const demo = await tooltxWith({ cwd, env: cleanEnv() }, 'demo', '--fast', '--yes', '--db', 'logs/')
    expect([demo.code, demo.stderr]).toEqual([0, ''])
    const id = /Session saved as (\S+) in logs\/\./.exec(demo.stdout)![1]!
    expect(demo.stdout).toContain(`Replay it with: npx tooltx replay ${id} --db logs/\n`)
    expect(readdirSync(path.join(cwd, 'logs'))).toContain(`${id}.jsonl`)
    const replayed = await tooltxWith({ cwd, env: cleanEnv() }, 'replay', 'latest', '--db', 'logs')
    expect(replayed.stdout).toContain(`session ${id} (31 events)`)
    mkdirSync(path.join(cwd, 'empty'))
    const none = await tooltxWith({ cwd, env: cleanEnv() }, 'sessions', '--db', 'empty')
    expect(none.stdout).toBe('no sessions in empty yet; run `tooltx demo` to make one\n')
    expect(existsSync(path.join(cwd, '.tooltx/sessions.db'))).toBe(false)
  }, 60_000)
})

describe('K3.24 a SQLite --db where no SQLite binding loads', () => {
  it('K3.24: run and demo with --db file.db on a Node without node:sqlite or better-sqlite3 fail saying to pass --db DIR/ instead, and make nothing', async () => {
    const cwd = scratch()
    const env = cleanEnv({
      NODE_OPTIONS: `${HAS_SQLITE ? '--no-experimental-sqlite ' : ''}--require ${NO_BETTER_SQLITE}`,
    })
    const expected =
      `tooltx: --db runs.db is a SQLite file, and Node ${process.versions.node} has no node:sqlite and cannot load better-sqlite3. ` +
      'Pass --db runs/ to keep sessions as .jsonl files in that folder (nothing to install), or leave out --db for the default store; ' +
      'or run on Node >= 22.13, or install better-sqlite3 (npm install better-sqlite3@12).\n'
    const ran = await tooltxWith(
      { cwd, env },
      'run',
      '--db',
      'runs.db',
      '--base-url',
      'http://127.0.0.1:9/v1',
      'hi',
    )
    expect([ran.code, ran.stderr, ran.stdout]).toEqual([1, expected, ''])
    const demo = await tooltxWith({ cwd, env }, 'demo', '--fast', '--yes', '--db', 'runs.db')
    expect([demo.code, demo.stderr]).toEqual([1, expected])
    expect(existsSync(path.join(cwd, 'runs.db'))).toBe(false)

    // What it says works, with the same environment.
    const folder = await tooltxWith({ cwd, env }, 'demo', '--fast', '--yes', '--db', 'runs/')
    expect([folder.code, folder.stderr]).toEqual([0, ''])
    expect(readdirSync(path.join(cwd, 'runs')).some((name) => name.endsWith('.jsonl'))).toBe(true)
  }, 60_000)
})
