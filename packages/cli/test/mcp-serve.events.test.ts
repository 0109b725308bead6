/**
 * `tooltx mcp serve --http … --session ID --db postgres://…` keeps the events of its resumable
 * streams in that database (Y3.8): a real server process, a real PostgreSQL, the official client.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { stdoutLines } from '../../mcp/test/mcp.fixtures.js'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../sample-workspace', import.meta.url))
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The events stored for MCP session `session` in the database `url`. */
async function storedEvents(url: string, session: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const found = await client.query(
      'SELECT count(*)::int AS n FROM tooltx_mcp_events WHERE stream LIKE $1',
      [`${session}/%`],
    )
    return (found.rows[0] as { n: number }).n
  } finally {
    await client.end()
  }
}

describePostgres('Y3.8 tooltx mcp serve keeps stream events in the session database', () => {
  it('Y3.8 with --db postgres://… the events of the calls land in tooltx_mcp_events and the header says so', async () => {
    const db = await freshPostgres()
    const child = spawn(
      process.execPath,
      [BIN, 'mcp', 'serve', '--workspace', SAMPLE, '--http', ':0', '--session', 'served', '--db', db],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    cleanups.push(() => child.kill())
    const lines = stdoutLines(child)
    const url = new URL(/at (\S+)/.exec(await lines.first)![1]!)
    const client = new Client({ name: 'test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(url)
    await client.connect(transport)
    cleanups.push(() => client.close())
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } })
    expect(read.isError).toBe(false)
    expect(lines.line(2)).toMatch(/^Resumable streams keep their events in postgres:\/\/tooltx@/)
    expect(await storedEvents(db, transport.sessionId!)).toBeGreaterThan(0)
  })
})
