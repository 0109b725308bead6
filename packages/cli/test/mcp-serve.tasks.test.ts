/**
 * Y6.21: `tooltx mcp serve --tasks` as real processes (needs `npm run build`): tasks over
 * Streamable HTTP, kept in PostgreSQL with `--session … --db postgres://…`, so a second server
 * answers for a task the first one was killed in the middle of.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Client, type StandardSchemaV1, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it } from 'vitest'
import { stdoutLines } from '../../mcp/test/mcp.fixtures.js'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { BIN, tooltx } from './cli-harness.js'

requirePostgresInCi('Y6.21')

const TOOLS = fileURLToPath(new URL('./fixtures/mcp/slow-tools.mjs', import.meta.url))
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const ANY: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => ({ value: value as Record<string, unknown> }),
  },
}

/** `tooltx mcp serve --http :0 <args>`: the child and the URL it printed. */
async function serve(args: string[]): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', ':0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  cleanups.push(() => child.kill('SIGKILL'))
  const line = await stdoutLines(child).first
  return { child, url: new URL(/ at (\S+)/.exec(line)![1]!) }
}

async function client(url: URL): Promise<Client> {
  const c = new Client({ name: 'test', version: '1.0.0' })
  await c.connect(new StreamableHTTPClientTransport(url))
  cleanups.push(() => c.close())
  return c
}

describe('Y6.21 tooltx mcp serve --tasks', () => {
  it('Y6.21: a name the server does not serve is a usage error naming the served tools', async () => {
    const done = await tooltx(tmpdir(), 'mcp', 'serve', '--tools', TOOLS, '--tasks', 'slow_sum,nope')
    expect(done.code).toBe(2)
    expect(done.stderr).toContain('--tasks: no served tool is named "nope"; the served tools are slow_sum')
  })

  it.runIf(POSTGRES_URL !== undefined)(
    'Y6.21: over PostgreSQL a task outlives the server killed in its middle: the next server runs it again and answers its result',
    async () => {
      const db = POSTGRES_URL!
      const args = (session: string) => [
        '--tools',
        TOOLS,
        '--tasks',
        'slow_sum',
        '--session',
        session,
        '--db',
        db,
      ]
      const first = await serve(args(`tasks-${randomUUID().slice(0, 8)}`))
      const c1 = await client(first.url)
      expect((await c1.listTools()).tools[0]?.execution).toEqual({ taskSupport: 'optional' })
      const created = (await c1.request({
        method: 'tools/call',
        params: { name: 'slow_sum', arguments: { a: 2, b: 3, ms: 1_000 }, task: {} },
      })) as unknown as { task: { taskId: string; status: string } }
      expect(created.task.status).toBe('working')
      first.child.kill('SIGKILL')

      const second = await serve(args(`tasks-${randomUUID().slice(0, 8)}`))
      const c2 = await client(second.url)
      const result = await c2.request(
        { method: 'tasks/result', params: { taskId: created.task.taskId } } as never,
        ANY,
      )
      expect(result.content).toEqual([{ type: 'text', text: '5' }])
      const task = await c2.request(
        { method: 'tasks/get', params: { taskId: created.task.taskId } } as never,
        ANY,
      )
      expect(task).toMatchObject({ status: 'completed' })
      const pg = new (await import('pg')).default.Client({ connectionString: db })
      await pg.connect()
      await pg.query('DELETE FROM tooltx_mcp_tasks WHERE task_id = $1', [created.task.taskId])
      await pg.end()
    },
    60_000,
  )
})
