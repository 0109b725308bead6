/**
 * L11 store integrity: every stored event carries a checksum that load verifies; a torn write
 * is told from a damaged complete line; logs from before checksums stay readable; deep data
 * survives the durable stores (L1.9); the SQLite driver is chosen and loaded as L11.6 says.
 */
import { spawnSync } from 'node:child_process'
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import Module from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type JsonValue, stringifyJson, ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { fileStore, openSession, type SessionStore, sqliteStore } from '../src/index.js'
import { loadSqliteDriver } from '../src/stores/sqlite/sqlite-driver.js'
import { SQLITE_DRIVERS } from './sqlite-drivers.js'
import { tempRoot } from './temp-root.js'

const root = tempRoot('tooltx-integrity-')
let n = 0
const fresh = (): string => join(root, `i${n++}`)
const T = { turn: 1, step: 1 }
const text = (t: string) => ({ role: 'user' as const, content: [{ type: 'text', text: t }] })

/** Writes a complete turn whose user message says `paid 100`, then closes the store. */
async function paidTurn(store: SessionStore): Promise<void> {
  const s = await openSession(store, { id: 'pay' })
  await s.append('turn/start', { turn: 1 })
  await s.append('step/start', T)
  await s.append('user/message', { ...T, message: text('paid 100') })
  await s.append('step/end', T)
  await s.append('turn/end', { turn: 1, reason: 'completed' })
  await store.close()
}

async function rejection(promise: Promise<unknown>, what?: string): Promise<ToolError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error, what).toBeInstanceOf(ToolError)
  expect((error as ToolError).code).toBe('INVARIANT')
  return error as ToolError
}

/** A value nested `depth` levels deep, alternating arrays and objects. */
function deep(depth: number): JsonValue {
  let value: JsonValue = 'bottom'
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { next: value }
  return value
}

describe('L11 file store integrity', () => {
  it('L11.1: an edit inside a line (paid 100 -> paid 900) is refused with the session, file, line and seq', async () => {
    const dir = fresh()
    await paidTurn(fileStore(dir))
    const file = join(dir, 'pay.jsonl')
    const edited = readFileSync(file, 'utf8').replace('paid 100', 'paid 900')
    writeFileSync(file, edited)
    const error = await rejection(openSession(fileStore(dir), { id: 'pay' }))
    expect(error.message).toBe(
      `invariant violated: session "pay": file ${file} is damaged at line 3, seq 3 (its checksum does not match its content: it was changed after it was written); it was left unchanged — restore it from a backup or move it aside`,
    )
    expect(readFileSync(file, 'utf8')).toBe(edited)
  })

  it('L11.4: one damaged byte in the acknowledged last line is refused, not cut as a torn write', async () => {
    const dir = fresh()
    await paidTurn(fileStore(dir))
    const file = join(dir, 'pay.jsonl')
    const intact = readFileSync(file, 'utf8')
    for (const damaged of [
      intact.replace('"completed"', '"completeD"'),
      intact.replace('"completed"', '"complete\u0000"'),
      `${intact.slice(0, -2)}]\n`,
      `${intact.slice(0, -1)}x`,
    ]) {
      writeFileSync(file, damaged)
      const store = fileStore(dir)
      const error = await rejection(openSession(store, { id: 'pay' }), JSON.stringify(damaged.slice(-40)))
      expect(error.message).toMatch(
        /^invariant violated: session "pay": file .*pay\.jsonl is damaged at line 5, seq 5 \(/,
      )
      expect(readFileSync(file, 'utf8')).toBe(damaged)
      await store.close()
    }
    // Only an unfinished line is a torn write: a prefix of the last line is cut and the turn repaired.
    writeFileSync(file, intact.slice(0, -20))
    const store = fileStore(dir)
    const s = await openSession(store, { id: 'pay' })
    expect(s.events().map((e) => e.type)).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'step/end',
      'turn/end',
    ])
    expect(s.events()[4]!.data).toEqual({ turn: 1, reason: 'interrupted' })
    await store.close()
  })

  it('L11.7: a log from before checksums stays readable; new lines get checksums and must keep them', async () => {
    const dir = fresh()
    const file = join(dir, 'old.jsonl')
    mkdirSync(dir)
    writeFileSync(
      file,
      '{"seq":1,"type":"turn/start","data":{"turn":1}}\n{"seq":2,"type":"turn/end","data":{"turn":1,"reason":"completed"}}\n',
    )
    const store = fileStore(dir)
    const s = await openSession(store, { id: 'old' })
    expect(s.events()).toHaveLength(2)
    await s.append('turn/start', { turn: 2 })
    await store.close()
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines[2]).toMatch(/^\{"crc":"[0-9a-f]{8}","seq":3,"type":"turn\/start","data":\{"turn":2\}\}$/)
    // A line without a checksum after one with a checksum is not an old line: it is refused.
    appendFileSync(file, '{"seq":4,"type":"turn/end","data":{"turn":2,"reason":"completed"}}\n')
    const error = await rejection(fileStore(dir).load('old'))
    expect(error.message).toMatch(
      /session "old": file .*old\.jsonl is damaged at line 4, seq 4 \(it has no checksum although earlier lines have one\)/,
    )
  })
})

describe('L11 SQLite store integrity', () => {
  for (const { driver, problem } of SQLITE_DRIVERS) {
    if (problem !== undefined) {
      it.skip(`L11.1 L11.7: driver ${driver} is not tested here: ${problem}`, () => {})
      continue
    }
    it(`L11.1: an edited row (paid 100 -> paid 900) is refused with the session and seq (${driver})`, async () => {
      const path = join(fresh(), 'sessions.db')
      await paidTurn(sqliteStore(path, { driver }))
      const db = loadSqliteDriver(driver).open(path)
      db.prepare("UPDATE events SET data = replace(data, 'paid 100', 'paid 900') WHERE seq = 3").run()
      db.close()
      const store = sqliteStore(path, { driver })
      const error = await rejection(openSession(store, { id: 'pay' }))
      expect(error.message).toBe(
        `invariant violated: session "pay" in ${path} is damaged at seq 3 (user/message): its checksum does not match its content: the row was changed after it was written; it was left unchanged — restore it from a backup`,
      )
      await store.close()
    })

    it(`L11.7: a database from before checksums is read and migrated; new rows are checked (${driver})`, async () => {
      const path = join(fresh(), 'sessions.db')
      mkdirSync(dirname(path))
      const db = loadSqliteDriver(driver).open(path)
      db.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, created TEXT NOT NULL, updated TEXT NOT NULL, events INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE events (session TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session, seq)) WITHOUT ROWID;
        INSERT INTO sessions VALUES ('old', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 2);
        INSERT INTO events VALUES ('old', 1, 'turn/start', '{"turn":1}'), ('old', 2, 'turn/end', '{"turn":1,"reason":"completed"}');`)
      db.close()
      const store = sqliteStore(path, { driver })
      const s = await openSession(store, { id: 'old' })
      expect(s.events()).toHaveLength(2)
      await s.append('turn/start', { turn: 2 })
      await store.close()
      const check = loadSqliteDriver(driver).open(path)
      const crcs = check.prepare('SELECT crc FROM events ORDER BY seq').all() as { crc: number | null }[]
      expect(crcs.map((r) => typeof r.crc)).toEqual(['object', 'object', 'number'])
      check.prepare("INSERT INTO events (session, seq, type, data) VALUES ('old', 4, 'turn/end', '{}')").run()
      check.close()
      const error = await rejection(sqliteStore(path, { driver }).load('old'))
      expect(error.message).toMatch(
        /damaged at seq 4 \(turn\/end\): it has no checksum although earlier rows have one/,
      )
    })
  }
})

describe('L1.9 deep data in the durable stores', () => {
  const stores: [string, () => SessionStore][] = [['fileStore', () => fileStore(fresh())]]
  for (const { driver, problem } of SQLITE_DRIVERS) {
    if (problem === undefined)
      stores.push([`sqliteStore (${driver})`, () => sqliteStore(join(fresh(), 'db'), { driver })])
  }
  for (const [name, make] of stores) {
    it(`L1.9: a tool/result whose meta is nested 5,000 levels deep is stored (verify on) and reloaded intact (${name})`, async () => {
      const store = make()
      const s = await openSession(store, { id: 'deep', verify: true })
      await s.append('turn/start', { turn: 1 })
      await s.append('step/start', T)
      await s.append('assistant/message', {
        ...T,
        content: [{ type: 'tool-call', id: 'c', name: 'x', arguments: '' }],
      })
      await s.append('tool/call', { ...T, callId: 'c', name: 'x', arguments: '' })
      const meta = deep(5_000)
      await s.append('tool/result', { ...T, callId: 'c', name: 'x', content: [], isError: false, meta })
      const reloaded = await store.load('deep')
      const last = reloaded[4]!
      expect(last.type === 'tool/result' && stringifyJson(last.data.meta!)).toBe(stringifyJson(meta))
      await store.close()
    })
  }
})

describe('L11.6 SQLite drivers', () => {
  it('L11.6: node:sqlite is the default where Node has it, better-sqlite3 otherwise; a bad driver name is refused', () => {
    const builtin = process.getBuiltinModule?.('node:sqlite') !== undefined
    expect(SQLITE_DRIVERS.find((d) => d.isDefault)?.driver).toBe(builtin ? 'node:sqlite' : 'better-sqlite3')
    const node = SQLITE_DRIVERS.find((d) => d.driver === 'node:sqlite')!
    if (!builtin) {
      expect(node.problem).toBe(
        `invariant violated: sqliteStore driver "node:sqlite" needs Node >= 22.13 (this is Node ${process.versions.node}); use the driver "better-sqlite3" (npm install better-sqlite3@12)`.replace(
          'invariant violated: ',
          '',
        ),
      )
    }
    expect(() => sqliteStore(':memory:', { driver: 'sqlite3' as never })).toThrow(
      'sqliteStore driver must be "node:sqlite" or "better-sqlite3", got "sqlite3"',
    )
  })

  it('L11.6: without better-sqlite3 installed, its driver throws INVALID_DEFINITION naming what to install', () => {
    const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown }
    const load = loader._load
    loader._load = (request, ...rest) => {
      if (request === 'better-sqlite3') {
        throw Object.assign(new Error("Cannot find module 'better-sqlite3'"), { code: 'MODULE_NOT_FOUND' })
      }
      return load(request, ...rest)
    }
    try {
      const error = (() => {
        try {
          sqliteStore(':memory:', { driver: 'better-sqlite3' })
        } catch (e) {
          return e
        }
      })()
      expect(error).toBeInstanceOf(ToolError)
      expect((error as ToolError).code).toBe('INVALID_DEFINITION')
      expect((error as ToolError).message).toBe(
        'sqliteStore driver "better-sqlite3" needs the package better-sqlite3, which is not installed: npm install better-sqlite3@12 (or run on Node >= 22.13, whose node:sqlite needs no package)',
      )
    } finally {
      loader._load = load
    }
  })

  it('L11.6: a process using only the memory and file stores never loads better-sqlite3', () => {
    const repo = fileURLToPath(new URL('../../../', import.meta.url))
    const script = `
      import { createRequire } from 'node:module'
      import { fileStore, memoryStore, openSession } from './packages/session/src/index.ts'
      const dir = process.argv[1]
      for (const store of [memoryStore(), fileStore(dir)]) {
        const s = await openSession(store, { id: 'x' })
        await s.append('turn/start', { turn: 1 })
        await store.close()
      }
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('better-sqlite3'))
      console.log(JSON.stringify(loaded))`
    const out = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, fresh()],
      {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, TSX_TSCONFIG_PATH: join(repo, 'tsconfig.test.json') },
      },
    )
    expect(out.stderr).toBe('')
    expect(out.stdout.trim()).toBe('[]')
  })
})
