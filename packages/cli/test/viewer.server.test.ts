import { spawn } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  defaultSqliteDriver,
  fileReader,
  fileStore,
  loadSqliteDriver,
  openSession,
  sqliteStore,
} from '@tooltx/session'
import { describe, expect, it, onTestFinished } from 'vitest'
import { cliDefinitions } from '../src/session-timeline.js'
import { startViewerServer, type ViewerServer } from '../src/viewer/viewer-server.js'
import { openViewerSource } from '../src/viewer/viewer-source.js'
import { BIN, cleanEnv, tooltx } from './cli-harness.js'
import { codeModeTurn, DEMO_TOOLS, demoSession, numbered } from './viewer-fixtures.js'

function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-view-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function serve(db: string, options: { idleMs?: number; assets?: string } = {}): Promise<ViewerServer> {
  const source = openViewerSource(db)
  const server = await startViewerServer({ source, definitions: cliDefinitions(), ...options })
  onTestFinished(async () => {
    await server.close()
    await source.close()
  })
  return server
}

/** A GET with a `Host` header of our choosing (fetch does not let a page set it). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = ''
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Reads server-sent events from `url` until `until` accepts the ones so far. */
async function readEvents(
  url: string,
  until: (events: { event: string; data: any }[]) => boolean,
): Promise<{ event: string; data: any }[]> {
  const controller = new AbortController()
  const response = await fetch(url, { signal: controller.signal })
  const reader = response.body!.getReader()
  const events: { event: string; data: any }[] = []
  let buffer = ''
  const decoder = new TextDecoder()
  try {
    while (!until(events)) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) })
        end = buffer.indexOf('\n\n')
      }
    }
  } finally {
    controller.abort()
  }
  return events
}

describe('G2 store access and the server', () => {
  it('G2.1: fileReader reads a JSONL log another store is writing, without its lock and without cutting a torn tail', async () => {
    const dir = scratchDir()
    const store = fileStore(dir)
    const session = await openSession(store, { id: 's1' })
    await session.append('turn/start', { turn: 1 })
    const reader = fileReader(dir)!
    expect((await reader.read('s1'))?.map((e) => e.type)).toEqual(['turn/start'])
    // The writer still holds the lock: it can go on appending after the reader read.
    await session.append('step/start', { turn: 1, step: 1 })
    const file = path.join(dir, 's1.jsonl')
    appendFileSync(file, '{"crc":"0000')
    expect((await reader.read('s1'))?.map((e) => e.type)).toEqual(['turn/start', 'step/start'])
    expect(readFileSync(file, 'utf8').endsWith('{"crc":"0000')).toBe(true)
    expect((await reader.listSessions()).map((info) => [info.id, info.events])).toEqual([['s1', 2]])
    expect(await reader.read('s2')).toBeUndefined()
    expect(await reader.read('../etc')).toBeUndefined()
    expect(fileReader(path.join(dir, 'missing'))).toBeUndefined()
    await session.close()
    await store.close()
  })

  it('G2.1: a path that is no store fails naming it and what to pass', () => {
    expect(() => openViewerSource('/nonexistent/sessions.db')).toThrow(
      'there is no session store at /nonexistent/sessions.db; run `tooltx demo` first, or pass --db with a SQLite file or a folder of .jsonl logs',
    )
  })

  it('G2.3: the API lists sessions newest first with their rows, serves entries and raw events, and names what is missing', async () => {
    const dir = scratchDir()
    const { db, id } = await demoSession(dir)
    const store = sqliteStore(db)
    await store.load('zz-code')
    await store.append('zz-code', numbered(codeModeTurn()))
    await store.close()
    const server = await serve(db)
    const list = (await (await fetch(`${server.url}/api/sessions`)).json()) as { sessions: any[] }
    expect(list.sessions.map((s) => [s.id, s.status, s.turns, s.calls, s.failures])).toEqual([
      // The Code Mode call succeeded; one of its nested calls failed (G3.7).
      ['zz-code', 'completed', 1, 1, 1],
      [id, 'completed', 1, 7, 2],
    ])
    expect(list.sessions[1].title).toBe(
      'Find the open TODOs in this workspace, run the checks, and save a summary note.',
    )
    const payload = (await (await fetch(`${server.url}/api/sessions/${id}`)).json()) as any
    expect(payload.lastSeq).toBe(31)
    expect(payload.entries.filter((e: any) => e.kind === 'call').map((e: any) => e.name)).toEqual(DEMO_TOOLS)
    const raw = (await (await fetch(`${server.url}/api/sessions/${id}/events/5`)).json()) as any
    expect(raw).toMatchObject({ seq: 5, type: 'tool/call', data: { name: 'list_files' } })
    const missing = await fetch(`${server.url}/api/sessions/nope`)
    expect([missing.status, await missing.json()]).toEqual([404, { error: `no session "nope" in ${db}` }])
    const noEvent = await fetch(`${server.url}/api/sessions/${id}/events/99`)
    expect([noEvent.status, await noEvent.json()]).toEqual([404, { error: `no event 99 in session "${id}"` }])
  }, 120_000)

  it('G2.3: another Host is refused, only GET is served, and the page forbids every other origin', async () => {
    const dir = scratchDir()
    const { db } = await demoSession(dir)
    const server = await serve(db)
    const port = new URL(server.url).port
    const evil = await getWithHost(`${server.url}/api/sessions`, `evil.example:${port}`)
    expect(evil.status).toBe(403)
    expect(evil.body).toBe(
      `this viewer answers only to its own address (Host evil.example:${port} refused)\n`,
    )
    expect((await getWithHost(`${server.url}/api/sessions`, `localhost:${port}`)).status).toBe(200)
    expect((await fetch(`${server.url}/api/sessions`, { method: 'POST' })).status).toBe(405)
    const page = await fetch(`${server.url}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'")
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'")
    expect(await page.text()).toContain('<div id="app"></div>')
  }, 120_000)

  it('G2.5: a damaged log and a foreign .jsonl file show as damaged; every other session is served', async () => {
    const dir = scratchDir()
    const store = fileStore(dir)
    for (const id of ['good', 'bad']) {
      await store.load(id)
      await store.append(id, numbered(codeModeTurn()))
    }
    await store.close()
    // A bad JSON line in the middle of one log, and two files that are no tooltx logs at all.
    const bad = path.join(dir, 'bad.jsonl')
    const lines = readFileSync(bad, 'utf8').split('\n')
    lines[2] = '{"seq": 3, oops'
    writeFileSync(bad, lines.join('\n'))
    writeFileSync(path.join(dir, 'notes.jsonl'), '{"hello":"world"}\n{"hello":"again"}\n')
    writeFileSync(path.join(dir, 'my notes.jsonl'), 'not json at all\n')
    const reader = fileReader(dir)!
    expect((await reader.listSessions()).map((info) => info.id).sort()).toEqual([
      'bad',
      'good',
      'my notes',
      'notes',
    ])
    await expect(reader.read('bad')).rejects.toThrow(/bad\.jsonl is damaged at line 3, seq 3 \(not JSON/)
    await expect(reader.read('my notes')).rejects.toThrow(
      /my notes\.jsonl is not a tooltx session log: "my notes" is not a session id/,
    )
    expect((await reader.read('good'))?.length).toBe(codeModeTurn().length)

    const server = await serve(dir)
    const list = await fetch(`${server.url}/api/sessions`)
    expect(list.status).toBe(200)
    const rows = ((await list.json()) as { sessions: any[] }).sessions
    const row = (id: string) => rows.find((s) => s.id === id)
    expect(row('good')).toMatchObject({ status: 'completed', calls: 1 })
    expect(row('bad')).toMatchObject({
      status: 'damaged',
      title: expect.stringMatching(/is damaged at line 3/),
    })
    expect(row('notes')).toMatchObject({
      status: 'damaged',
      title: expect.stringMatching(
        /notes\.jsonl is damaged at line 1, seq 1 \(expected an event with seq 1\)/,
      ),
    })
    expect(row('my notes')).toMatchObject({
      status: 'damaged',
      title: expect.stringMatching(/not a tooltx session log/),
    })

    const good = await fetch(`${server.url}/api/sessions/good`)
    expect(good.status).toBe(200)
    expect(((await good.json()) as any).entries.some((e: any) => e.kind === 'call')).toBe(true)
    for (const suffix of ['', '/stream', '/events/1']) {
      const damaged = await fetch(`${server.url}/api/sessions/bad${suffix}`)
      expect(damaged.status).toBe(422)
      expect(await damaged.json()).toEqual({
        error: expect.stringMatching(/is damaged at line 3/),
        damaged: true,
      })
    }
    const foreign = await fetch(`${server.url}/api/sessions/${encodeURIComponent('my notes')}`)
    expect(foreign.status).toBe(422)
    // The page itself loads and shows the API's error; the list is still served afterwards.
    expect((await fetch(`${server.url}/session/bad`)).status).toBe(200)
    expect((await fetch(`${server.url}/api/sessions`)).status).toBe(200)
  }, 60_000)

  it('G2.5: a damaged row in a SQLite database fails only its own session', async () => {
    const dir = scratchDir()
    const db = path.join(dir, 'sessions.db')
    const store = sqliteStore(db)
    for (const id of ['good', 'hurt']) {
      await store.load(id)
      await store.append(id, numbered(codeModeTurn()))
    }
    await store.close()
    const raw = loadSqliteDriver(defaultSqliteDriver()).open(db)
    raw.prepare("UPDATE events SET crc = NULL WHERE session = 'hurt'").run()
    raw.prepare("UPDATE events SET data = '{broken' WHERE session = 'hurt' AND seq = 2").run()
    raw.close()
    const server = await serve(db)
    const rows = ((await (await fetch(`${server.url}/api/sessions`)).json()) as { sessions: any[] }).sessions
    expect(rows.map((row) => [row.id, row.status])).toEqual([
      ['hurt', 'damaged'],
      ['good', 'completed'],
    ])
    expect(rows[0].title).toMatch(/session "hurt" in .* is damaged at seq 2/)
    expect((await fetch(`${server.url}/api/sessions/good`)).status).toBe(200)
    const hurt = await fetch(`${server.url}/api/sessions/hurt`)
    expect(hurt.status).toBe(422)
    expect(((await hurt.json()) as any).error).toMatch(/is damaged at seq 2/)
  }, 60_000)

  it('G2.3: without a built page the server says how to build it', async () => {
    const dir = scratchDir()
    const { db } = await demoSession(dir)
    mkdirSync(path.join(dir, 'empty'))
    const server = await serve(db, { assets: path.join(dir, 'empty') })
    const page = await fetch(`${server.url}/`)
    expect(page.status).toBe(500)
    expect(await page.text()).toContain("the viewer's page is not built")
  }, 120_000)
})

describe('G4 live follow', () => {
  it('G4.1, G4.2: the stream sends the entries another store appends, then says the session went idle', async () => {
    const dir = scratchDir()
    const db = path.join(dir, 'sessions.db')
    const store = sqliteStore(db)
    await store.load('live')
    const events = numbered(codeModeTurn())
    await store.append('live', events.slice(0, 2))
    const server = await serve(db, { idleMs: 400 })
    const streamed = readEvents(`${server.url}/api/sessions/live/stream?after=2`, (got) =>
      got.some((e) => e.event === 'state' && e.data.idle === true && got.some((g) => g.event === 'entries')),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    await store.append('live', events.slice(2, 5))
    const got = await streamed
    const entries = got.filter((e) => e.event === 'entries').flatMap((e) => e.data.entries)
    expect(entries.map((e: any) => `${e.seq}:${e.kind}`)).toEqual(['3:message', '5:call'])
    expect(
      got
        .filter((e) => e.event === 'state')
        .map((e) => e.data.idle)
        .slice(-2),
    ).toEqual([false, true])
    await store.close()
  })
})

describe('G2.4 tooltx view', () => {
  it('G2.4: prints the URL of the session it was given, serves it, and stops on Ctrl-C', async () => {
    const dir = scratchDir()
    const { db, id } = await demoSession(dir)
    const child = spawn(process.execPath, [BIN, 'view', 'latest', '--db', db], { env: cleanEnv() })
    onTestFinished(() => {
      child.kill('SIGKILL')
    })
    let stdout = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    const url = await new Promise<string>((resolve) => {
      child.stdout.on('data', () => {
        const match = /at (http:\/\/127\.0\.0\.1:\d+\S*)\nPress Ctrl-C/.exec(stdout)
        if (match !== null) resolve(match[1]!)
      })
    })
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/session/${id}$`))
    expect(stdout).toContain(`tooltx view: serving ${db} at ${url}\nPress Ctrl-C to stop.\n`)
    const page = await fetch(url)
    expect(page.status).toBe(200)
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    child.kill('SIGINT')
    expect(await exit).toBe(0)
  }, 120_000)

  it('G2.4: a missing store fails (exit 1), a bad port is a usage error (exit 2), and demo says how to view', async () => {
    const dir = scratchDir()
    const missing = await tooltx(dir, 'view', '--db', 'nowhere.db')
    expect([missing.code, missing.stderr]).toEqual([
      1,
      'tooltx: there is no session store at nowhere.db; run `tooltx demo` first, or pass --db with a SQLite file or a folder of .jsonl logs\n',
    ])
    const port = await tooltx(dir, 'view', '--port', 'eighty')
    expect(port.code).toBe(2)
    expect(port.stderr).toContain('tooltx: --port must be a number from 0 to 65535, got "eighty"')
    const demo = await tooltx(dir, 'demo', '--fast', '--db', 'd/s.db')
    const id = /Session saved as (\S+) /.exec(demo.stdout)?.[1]
    expect(demo.stdout).toContain(`View it in a browser with: npx tooltx view ${id} --db d/s.db\n`)
  }, 120_000)
})

describe('G5 packaging', () => {
  it('G5.1: the tooltx package ships the built page and not its source; the page builders are devDependencies', async () => {
    const cli = path.resolve(import.meta.dirname, '..')
    const { execFile } = await import('node:child_process')
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: cli }, (error, out) =>
        error ? reject(error) : resolve(out),
      ),
    )
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path)
    expect(files).toContain('dist/web/index.html')
    expect(files.filter((f) => /^dist\/web\/assets\/index-[\w-]+\.(js|css)$/.test(f))).toHaveLength(2)
    expect(files.filter((f) => f.startsWith('web/'))).toEqual([])
    const pkg = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8'))
    expect(Object.keys(pkg.dependencies)).not.toContain('preact')
    expect(pkg.devDependencies.preact).toBeDefined()
    expect(pkg.scripts.prepack).toBe('tsc -b && vite build --config web/vite.config.ts')
  })
})
