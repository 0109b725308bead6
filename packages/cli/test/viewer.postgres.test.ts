/**
 * G2.6: `tooltx view --db postgres://…` — a real server over a fresh schema, the built CLI in a
 * child process, and a session stream that receives an event another store object appends.
 */
import { spawn } from 'node:child_process'
import { openSession, postgresStore } from '@tooltx/session'
import { expect, it, onTestFinished } from 'vitest'
import { describePostgres, freshPostgres } from '../../session/test/postgres.js'
import { BIN, cleanEnv } from './cli-harness.js'

/** Starts `tooltx view --db <db>` and resolves with its URL and output once it prints the URL. */
async function startView(db: string): Promise<{ url: string; stdout: string }> {
  const proc = spawn(process.execPath, [BIN, 'view', '--db', db], { env: cleanEnv() })
  const exit = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  onTestFinished(async () => {
    proc.kill('SIGTERM')
    await exit
  })
  let stdout = ''
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  for (let i = 0; i < 400 && !stdout.includes('Press Ctrl-C'); i++)
    await new Promise((r) => setTimeout(r, 25))
  const url = /at (http:\/\/\S+)/.exec(stdout)?.[1]
  if (url === undefined) throw new Error(`tooltx view printed no URL: ${stdout}`)
  return { url: url.replace(/\/$/, ''), stdout }
}

/** Reads a server-sent event stream until `until` accepts the events so far. */
async function readStream(url: string, until: (events: { event: string; data: any }[]) => boolean) {
  const controller = new AbortController()
  const response = await fetch(url, { signal: controller.signal })
  const reader = response.body!.getReader()
  const events: { event: string; data: any }[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    while (!until(events)) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) })
      }
    }
  } finally {
    controller.abort()
  }
  return events
}

describePostgres('G2.6 tooltx view on a PostgreSQL session database', () => {
  it('G2.6: view --db postgres://… lists the sessions, serves a session, and streams an event another store appends; the password is never shown', async () => {
    const db = await freshPostgres()
    const store = postgresStore(db)
    onTestFinished(() => store.close())
    const session = await openSession(store, { id: 'pg-live' })
    const at = { turn: 1, step: 1 }
    await session.append('turn/start', { turn: 1 })
    await session.append('step/start', at)
    await session.append('user/message', {
      ...at,
      message: { role: 'user', content: [{ type: 'text', text: 'hello from postgres' }] },
    })

    // A password in the address (the test server trusts the connection and ignores it).
    const withPassword = new URL(db)
    withPassword.password = 'hunter2'
    const { url, stdout } = await startView(withPassword.toString())
    expect(stdout).toMatch(/^tooltx view: serving postgres:\/\/tooltx@127\.0\.0\.1:\d+\/postgres at http/)
    expect(stdout).not.toContain('hunter2')
    const list = (await (await fetch(`${url}/api/sessions`)).json()) as { store: string; sessions: any[] }
    expect(list.sessions.map((s) => [s.id, s.title])).toEqual([['pg-live', 'hello from postgres']])
    expect(list.store).toMatch(/^postgres:\/\/tooltx@/)
    expect(list.store).not.toContain('hunter2')
    const page = (await (await fetch(`${url}/api/sessions/pg-live`)).json()) as any
    expect(page.lastSeq).toBe(3)
    expect(JSON.stringify(page.entries)).toContain('hello from postgres')

    // The stream opens (its first state event), then another store object appends.
    const appended = readStream(`${url}/api/sessions/pg-live/stream?after=3`, (events) => {
      if (events.length === 1) {
        void session.append('assistant/message', { ...at, content: [{ type: 'text', text: 'live from pg' }] })
      }
      return events.some((e) => e.event === 'entries')
    })
    const events = await appended
    const entries = events.find((e) => e.event === 'entries')!.data
    expect(JSON.stringify(entries.entries)).toContain('live from pg')
    await session.close()
  }, 60_000)
})
