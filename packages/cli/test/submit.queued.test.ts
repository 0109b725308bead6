/**
 * N2.15: `tooltx submit` records the message in the session at once, so `sessions`, `replay
 * --follow` and `view` show the session as queued, titled by the message, before any worker
 * takes it; a real PostgreSQL, the built CLI in child processes and a real `tooltx worker`.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { openSession, postgresStore } from '@tooltx/session'
import { turnQueue } from '@tooltx/worker'
import { describe, expect, it, onTestFinished } from 'vitest'
import { POSTGRES_URL, requirePostgresInCi } from '../../worker/test/postgres.js'
import { BIN, cleanEnv, tooltxWith } from './cli-harness.js'
import { fakeModel } from './fake-model.js'
import { startWorker } from './worker-processes.js'

/** A child process whose stdout is collected, killed when the test ends. */
function collected(args: string[]): { output: () => string; until: (text: string) => Promise<void> } {
  const proc = spawn(process.execPath, [BIN, ...args], { env: cleanEnv() })
  const exit = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  onTestFinished(async () => {
    proc.kill('SIGTERM')
    await exit
  })
  let stdout = ''
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  return {
    output: () => stdout,
    async until(text) {
      for (let i = 0; i < 1200 && !stdout.includes(text); i++) await new Promise((r) => setTimeout(r, 25))
      if (!stdout.includes(text)) throw new Error(`never printed ${JSON.stringify(text)}:\n${stdout}`)
    },
  }
}

/** The sessions-page rows `tooltx view` at `url` serves (G3.1). */
async function viewRows(url: string): Promise<{ id: string; title: string; status: string }[]> {
  return ((await (await fetch(`${url}/api/sessions`)).json()) as { sessions: [] }).sessions
}

/** The `tooltx sessions` row of `session`, split into its columns after the id. */
async function sessionRow(db: string, session: string): Promise<string | undefined> {
  const listed = await tooltxWith({ cwd: '.', env: cleanEnv() }, 'sessions', '--db', db)
  expect(listed.code).toBe(0)
  return listed.stdout.split('\n').find((line) => line.startsWith(`${session} `))
}

describe.runIf(POSTGRES_URL !== undefined)('N2.15 tooltx submit creates the session at once', () => {
  it('N2.15: a submitted session is listed as queued with its message as the title by sessions, replay --follow and view until a worker takes it, then answered once', async () => {
    const db = POSTGRES_URL!
    const queue = `q-${randomUUID().slice(0, 8)}`
    const session = `queued-${randomUUID().slice(0, 8)}`
    const submitted = await tooltxWith(
      { cwd: '.', env: cleanEnv() },
      'submit',
      session,
      'list the open TODOs',
      '--db',
      db,
      '--queue',
      queue,
    )
    expect(submitted.stderr).toBe('')
    expect(submitted.code).toBe(0)
    const id = /^submitted ([0-9a-f-]{36}) to session /.exec(submitted.stdout)?.[1]
    expect(id).toMatch(/^[0-9a-f-]{36}$/)

    // No worker runs yet: every reader sees the session as queued, titled by its message.
    expect(await sessionRow(db, session)).toMatch(/\s1\s+\S+\s+queued\s+list the open TODOs$/)
    const follow = collected(['replay', session, '--db', db, '--follow'])
    await follow.until(`queued: "list the open TODOs" (submission ${id}); a worker answers it`)
    const view = collected(['view', '--db', db])
    await view.until('Press Ctrl-C')
    const url = /at (http:\/\/\S+?)\/?\n/.exec(view.output())![1]!
    expect((await viewRows(url)).find((row) => row.id === session)).toMatchObject({
      title: 'list the open TODOs',
      status: 'queued',
    })

    // A worker takes it: the follower sees the user's message and the answer as they land.
    const model = await fakeModel(() => ({ text: 'there are two' }))
    const worker = startWorker({ db, queue, baseURL: model.baseURL })
    onTestFinished(() => {
      if (worker.proc.exitCode === null) worker.proc.kill('SIGKILL')
    })
    await worker.waitFor((line) => line === `job ${id} ${session}: done (fresh)`, 60_000)
    worker.proc.kill('SIGTERM')
    expect(await worker.exited).toBe(0)
    await follow.until('── turn 1 completed ──')
    const printed = follow.output()
    expect(printed.indexOf('queued: "list the open TODOs"')).toBeLessThan(
      printed.indexOf('user: list the open TODOs'),
    )
    expect(printed).toContain('assistant: there are two')
    expect(await sessionRow(db, session)).toMatch(/\scompleted\s+list the open TODOs$/)
    expect((await viewRows(url)).find((row) => row.id === session)?.status).toBe('completed')
    // Real processes (submit, replay --follow, view, a worker on pg-boss): about 25 s unloaded.
  }, 120_000)

  it('N2.15: a session another live writer holds is not written to (its lease is not taken); the message is queued all the same', async () => {
    const db = POSTGRES_URL!
    const session = `held-${randomUUID().slice(0, 8)}`
    const queue = `q-${randomUUID().slice(0, 8)}`
    const store = postgresStore(db)
    onTestFinished(() => store.close())
    const holder = await openSession(store, { id: session })
    await holder.append('turn/start', { turn: 1 })
    const submitted = await tooltxWith(
      { cwd: '.', env: cleanEnv() },
      'submit',
      session,
      'while you work',
      '--db',
      db,
      '--queue',
      queue,
    )
    expect(submitted.stderr).toBe('')
    expect(submitted.code).toBe(0)
    expect(submitted.stdout).toMatch(/^submitted [0-9a-f-]{36} to session /)
    // The holder still writes: its lease was never taken over.
    await holder.append('step/start', { turn: 1, step: 1 })
    expect(holder.events().map((event) => event.type)).toEqual(['turn/start', 'step/start'])
    await holder.close()
    const queued = turnQueue({ connectionString: db, name: queue })
    onTestFinished(() => queued.close())
    expect(await queued.pending()).toBe(1)
  })
})

requirePostgresInCi('N2.15')
