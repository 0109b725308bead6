/**
 * Y6.20: a long-running tool served as a task over PostgreSQL (the 2026-07-28 Tasks extension,
 * which agent and server negotiate) survives its server's SIGKILL and
 * its agent's SIGKILL: a restarted server adopts the task and runs it again under the same
 * idempotency key, the resumed agent re-attaches to the task from its receipt instead of calling
 * the tool again, and the call completes once. Real processes, real PostgreSQL, real HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSession, postgresStore } from '@tooltx/session'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { fixture } from './mcp.fixtures.js'

requirePostgresInCi('Y6.20, Y6.28')

interface Proc {
  readonly child: ChildProcess
  /** Resolves with the first stdout line matching `pattern`. */
  line(pattern: RegExp): Promise<string>
  readonly exited: Promise<{ code: number | null; stderr: string }>
}

const running: ChildProcess[] = []

function start(script: string, args: string[]): Proc {
  const child = spawn(process.execPath, [fixture(script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  running.push(child)
  let out = ''
  let err = ''
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = []
  child.stdout!.on('data', (chunk) => {
    out += chunk
    for (const w of [...waiters]) {
      const found = out.split('\n').find((l) => w.pattern.test(l))
      if (found !== undefined) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(found)
      }
    }
  })
  child.stderr!.on('data', (chunk) => {
    err += chunk
  })
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr: err })),
  )
  return {
    child,
    exited,
    line: (pattern) =>
      Promise.race([
        new Promise<string>((resolve) => {
          const found = out.split('\n').find((l) => pattern.test(l))
          if (found !== undefined) resolve(found)
          else waiters.push({ pattern, resolve })
        }),
        exited.then(({ stderr }) => {
          throw new Error(`${script} exited before printing ${pattern}: ${stderr}`)
        }),
      ]),
  }
}

const kill = async (proc: Proc) => {
  proc.child.kill('SIGKILL')
  await proc.exited
}

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL')
})

/** The session's events of the one call: its `tool/call`, `tool/effect` and `tool/result` events. */
async function callEvents(url: string, session: string) {
  const store = postgresStore(url)
  const opened = await openSession(store, { id: session })
  const events = opened.events()
  await opened.close()
  await store.close()
  return {
    calls: events.filter((e) => e.type === 'tool/call'),
    effects: events.filter((e) => e.type === 'tool/effect'),
    results: events.filter((e) => e.type === 'tool/result'),
  }
}

/** The rows of `table` (then dropped), by `columns`. */
async function taskRows(url: string, table: string, columns: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(`SELECT ${columns} FROM ${table}`)).rows
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`)
    await client.end()
  }
}

describe.runIf(POSTGRES_URL !== undefined)('Y6.20 durable tasks across SIGKILLs', () => {
  it('Y6.20: server and agent killed mid-task, both restarted: the task completes once and the agent gets its result', async () => {
    const url = POSTGRES_URL!
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-tasks-'))
    const ledger = join(dir, 'ledger')
    const table = `tasks_${randomUUID().replaceAll('-', '').slice(0, 12)}`
    const session = `tasks-${randomUUID().slice(0, 8)}`
    try {
      const first = start('task-server.mjs', [url, table, ledger, '1500'])
      const firstUrl = JSON.parse(await first.line(/^\{/)).url as string
      const agent = start('task-agent.mjs', [url, session, firstUrl, 'run'])
      // The agent polls only after the task id is durable in its session (Y6.14).
      await agent.line(/^polling /)
      await first.line(/^started /)
      await kill(first)
      await kill(agent)

      const second = start('task-server.mjs', [url, table, ledger, '300'])
      const secondUrl = JSON.parse(await second.line(/^\{/)).url as string
      const resumed = start('task-agent.mjs', [url, session, secondUrl, 'resume'])
      const { code, stderr } = await resumed.exited
      expect(stderr).toBe('')
      expect(code).toBe(0)
      second.child.kill('SIGTERM')
      await second.exited

      const { calls, effects, results } = await callEvents(url, session)
      expect(calls).toHaveLength(1)
      expect(effects).toHaveLength(1)
      const receipt = effects[0]!.data.receipt as { mcpTask: { taskId: string } }
      expect(results).toHaveLength(1)
      expect(results[0]!.data.isError).toBe(false)
      expect(JSON.stringify(results[0]!.data.content)).toContain('2 + 3 = 5')
      // One task, created once, run twice (the first run killed), completed; created over the
      // 2026-07-28 Tasks extension, whose stateless requests have no MCP session (Y6.22).
      expect(await taskRows(url, table, 'task_id, status, runs, mcp_session')).toEqual([
        { task_id: receipt.mcpTask.taskId, status: 'completed', runs: 2, mcp_session: null },
      ])
      const lines = readFileSync(ledger, 'utf8').split('\n').filter(Boolean)
      const starts = lines.filter((l) => l.startsWith('start '))
      expect(starts).toHaveLength(2)
      expect(new Set(starts).size).toBe(1) // the same idempotency key in both runs
      expect(lines.filter((l) => l.startsWith('effect '))).toEqual([starts[0]!.replace('start', 'effect')])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe.runIf(POSTGRES_URL !== undefined)('Y6.28 an input request outlives the agent', () => {
  it('Y6.28: the agent killed while its task waits for approval; the resumed agent answers it and the tool runs once', async () => {
    const url = POSTGRES_URL!
    const dir = mkdtempSync(join(tmpdir(), 'tooltx-tasks-'))
    const ledger = join(dir, 'ledger')
    const table = `tasks_${randomUUID().replaceAll('-', '').slice(0, 12)}`
    const session = `tasks-${randomUUID().slice(0, 8)}`
    try {
      const server = start('task-server.mjs', [url, table, ledger, '200', 'ask'])
      const serverUrl = JSON.parse(await server.line(/^\{/)).url as string
      const agent = start('task-agent.mjs', [url, session, serverUrl, 'run', 'hang'])
      expect(await agent.line(/^asked /)).toMatch(
        /^asked Allow the tool call slow_sum \{"a":2,"b":3\} \(it is slow\)\?/,
      )
      await kill(agent)

      const resumed = start('task-agent.mjs', [url, session, serverUrl, 'resume', 'approve'])
      await resumed.line(/^asked /)
      const { code, stderr } = await resumed.exited
      expect(stderr).toBe('')
      expect(code).toBe(0)
      server.child.kill('SIGTERM')
      await server.exited

      const { calls, effects, results } = await callEvents(url, session)
      expect([calls.length, effects.length, results.length]).toEqual([1, 1, 1])
      expect(results[0]!.data.isError).toBe(false)
      expect(JSON.stringify(results[0]!.data.content)).toContain('2 + 3 = 5')
      const [row] = await taskRows(url, table, 'status, runs, input_responses')
      expect(row).toMatchObject({ status: 'completed', runs: 1 })
      // One approval key, answered once (the killed agent never answered it).
      const answers = JSON.parse(row!.input_responses as string) as Record<string, { action: string }>
      expect(Object.keys(answers)).toHaveLength(1)
      expect(Object.values(answers)[0]!.action).toBe('accept')
      const lines = readFileSync(ledger, 'utf8').split('\n').filter(Boolean)
      expect(lines.map((l) => l.split(' ')[0])).toEqual(['start', 'effect'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
