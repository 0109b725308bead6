/**
 * `tooltx mcp serve --http … --session ID --db <database>` keeps the events of its resumable
 * streams in that database (Y3.8 PostgreSQL, Y3.9 SQLite): real server processes, a real
 * database, the official client, and a raw client that drops a call's stream, has the server
 * killed and started again on the same database, and resumes with `Last-Event-ID`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { defaultSqliteDriver, loadSqliteDriver } from '@tooltx/session'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { stdoutLines } from '../../mcp/test/mcp.fixtures.js'
import { messageOf, rawSession, readAll, type SseEvent, send, sseEvents } from '../../mcp/test/sse-client.js'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { scratch } from './cli-harness.js'

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))
const STEPS = fileURLToPath(new URL('./fixtures/tools/steps.mjs', import.meta.url))
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A database the served calls are recorded in, and how many stored stream messages match `like`. */
interface Database {
  readonly db: string
  storedMessages(session: string, like: string): Promise<number>
}

async function postgresDatabase(): Promise<Database> {
  const db = await freshPostgres()
  return {
    db,
    async storedMessages(session, like) {
      const client = new pg.Client({ connectionString: db })
      await client.connect()
      try {
        const found = await client.query(
          'SELECT count(*)::int AS n FROM tooltx_mcp_events WHERE stream LIKE $1 AND message LIKE $2',
          [`${session}/%`, like],
        )
        return (found.rows[0] as { n: number }).n
      } finally {
        await client.end()
      }
    },
  }
}

function sqliteDatabase(): Database {
  const db = join(scratch(), 'sessions.db')
  return {
    db,
    async storedMessages(session, like) {
      const connection = loadSqliteDriver(defaultSqliteDriver()).open(db, { readOnly: true })
      try {
        const row = connection
          .prepare('SELECT count(*) AS n FROM tooltx_mcp_events WHERE stream LIKE ? AND message LIKE ?')
          .get(`${session}/%`, like)
        return Number((row as { n: number }).n)
      } finally {
        connection.close()
      }
    },
  }
}

/** `tooltx mcp serve --http :0 --session served --db <db>` with `extra` flags; its URL and stdout lines. */
async function serve(db: string, ...extra: string[]) {
  const child = spawn(
    process.execPath,
    [BIN, 'mcp', 'serve', '--http', ':0', '--session', 'served', '--db', db, ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  cleanups.push(() => child.kill('SIGKILL'))
  const lines = stdoutLines(child)
  const url = new URL(/at (\S+)/.exec(await lines.first)![1]!)
  return { child, url, lines }
}

/** Kills `child` with SIGKILL, as a crash would, and waits until it is gone. */
async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** The header line, and the events of an official client's calls landing in the database. */
async function eventsLand(database: Database) {
  const { url, lines } = await serve(database.db, '--workspace', SAMPLE)
  const client = new Client({ name: 'test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(url)
  await client.connect(transport)
  cleanups.push(() => client.close())
  const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } })
  expect(read.isError).toBe(false)
  expect(await database.storedMessages(transport.sessionId!, '%')).toBeGreaterThan(0)
  return lines.line(2)
}

/**
 * A call's stream dropped after its first step; the call finishes; the server is killed and
 * started again on the same database; a GET with the old session and the last event id seen
 * gets every later step and the result.
 */
async function resumesAfterRestart(database: Database) {
  const first = await serve(database.db, '--tools', STEPS)
  const headers = await rawSession(first.url)
  const call = await send(first.url, 'POST', headers, {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'count', arguments: { to: 4 }, _meta: { progressToken: 'p' } },
  })
  const seen: SseEvent[] = []
  for await (const event of sseEvents(call.res)) {
    seen.push(event)
    if (messageOf(event)?.params?.progress === 1) break
  }
  call.drop()
  const session = headers['mcp-session-id']!
  while ((await database.storedMessages(session, '%counted 4%')) === 0)
    await new Promise((resolve) => setTimeout(resolve, 100))
  await killed(first.child)
  const second = await serve(database.db, '--tools', STEPS)
  const resumed = await send(second.url, 'GET', { ...headers, 'last-event-id': seen.at(-1)!.id! })
  expect(resumed.res.statusCode).toBe(200)
  const missed = (await readAll(resumed.res)).map(messageOf)
  expect(missed.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([
    2,
    3,
    4,
    '"counted 4"',
  ])
}

describePostgres('Y3.8 tooltx mcp serve keeps stream events in the PostgreSQL session database', () => {
  it('Y3.8 with --db postgres://… the events of the calls land in tooltx_mcp_events and the header says so', async () => {
    const header = await eventsLand(await postgresDatabase())
    expect(header).toMatch(/^Resumable streams keep their events in postgres:\/\/tooltx@/)
  })

  it('Y3.8 a stream dropped before a kill is resumed from the database by the restarted server', async () => {
    await resumesAfterRestart(await postgresDatabase())
  })
})

describe('Y3.9 tooltx mcp serve keeps stream events in the SQLite session file', () => {
  it('Y3.9 with --db file.db the events of the calls land in the file and the header says so', async () => {
    const database = sqliteDatabase()
    expect(await eventsLand(database)).toBe(`Resumable streams keep their events in ${database.db}`)
  })

  it('Y3.9 a stream dropped before a kill is resumed from the file by the restarted server', async () => {
    await resumesAfterRestart(sqliteDatabase())
  })
})
