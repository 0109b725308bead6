/**
 * Where a session's `server/request` events (L1.10) meet the features that read a log whole:
 * a fork at every cut, its replay and its continuation (A2.1, A2.2, V1.12), `tooltx audit`
 * (A1) and compaction (T3.5). The session is made by an agent whose tool body hands an MCP
 * server's requests to `agent.sampler` and `agent.elicitor`, as `mcpTools` does (Y2.30, Y2.35).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { deriveMessages, forkSession, openSession, type SessionEvent, sqliteStore } from '@tooltx/session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderSession } from '../src/session-timeline.js'
import { BIN, tooltx } from './cli-harness.js'

/** The value a form answer carries: a log must never hold it (L1.10, P8.19). */
const SECRET = 'FORM-VALUE-7'
const POLICY = fileURLToPath(new URL('./fixtures/audit/markdown-policy.mjs', import.meta.url))

let dir: string
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tooltx-server-requests-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * Runs one turn of two steps in session `id` of `db`: each step's `read_file` call asks the
 * server's completion and form while it runs; resolves with the events and how many requests
 * reached the agent. `maxTokens` sets a context budget (compaction by clearing tool results).
 */
async function recorded(db: string, id: string, maxTokens?: number) {
  const store = sqliteStore(db)
  const session = await openSession(store, { id, verify: true })
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  const read = (callId: string, file: string) => ({
    id: callId,
    name: 'read_file',
    arguments: JSON.stringify({ path: file }),
  })
  const agent = createAgent({
    runtime,
    scope,
    session,
    model: scripted([
      { toolCalls: [read('c1', 'notes.md')] },
      { toolCalls: [read('c2', 'src/a.ts')] },
      { text: 'done' },
    ]),
    ...(maxTokens === undefined ? {} : { context: { maxTokens, strategy: 'clear-tool-results' as const } }),
  })
  const sampler = agent.sampler({
    policy: 'allow',
    model: scripted([{ text: 'a summary' }, { text: 'another' }]),
  })
  const elicitor = agent.elicitor({ answer: () => ({ action: 'accept', content: { code: SECRET } }) })
  let asked = 0
  scope.register(
    defineTool({
      name: 'read_file',
      description: 'Reads a file, asking the server for a summary and the person for a code.',
      parameters: { path: { type: 'string', required: true } },
      execute: async ({ path: file }, run) => {
        const calls = [run.callId]
        asked++
        const reply = await sampler({
          server: 'docs',
          messages: [{ role: 'user', content: { type: 'text', text: `summarise ${file}` } }],
          maxTokens: 50,
          calls,
          signal: run.signal,
        })
        asked++
        const form = await elicitor({
          server: 'docs',
          message: 'Which code?',
          requestedSchema: { properties: { code: { type: 'string' } }, required: ['code'] },
          calls,
          signal: run.signal,
        })
        return `${reply.text} (${form.action}) ${'line of the file '.repeat(30)}`
      },
    }),
  )
  const outcome = await agent.send('read both')
  expect(outcome.reason).toBe('completed')
  const events = session.events()
  await session.close()
  await store.close()
  return { events, asked: () => asked, runtime, scope }
}

const requests = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.type === 'server/request' ? [JSON.stringify(e.data)] : []))
const exchanged = (lines: readonly string[]) => lines.filter((line) => line.includes('⇄'))

describe('server requests where a log is read whole (V1.12)', () => {
  it('V1.12 A2.1 A2.2: a fork at every cut copies the server requests up to it, asks nothing again, replays the same lines and holds no form value', async () => {
    const db = path.join(dir, 'fork.db')
    const { events, asked } = await recorded(db, 'asks')
    const all = requests(events)
    expect(all).toHaveLength(4)
    const sourceLines = exchanged(renderSession(events))
    expect(sourceLines).toHaveLength(4)
    const before = asked()
    const store = sqliteStore(db)
    try {
      for (const { seq: at } of events) {
        const fork = await forkSession(store, 'asks', { at, id: `f${at}` })
        const forked = fork.events()
        await fork.close()
        const kept = requests(events.filter((e) => e.seq <= at))
        expect(requests(forked)).toEqual(kept)
        expect(exchanged(renderSession(forked))).toEqual(sourceLines.slice(0, kept.length))
        expect(JSON.stringify(forked)).not.toContain(SECRET)
        // Reopening the fork repairs nothing: it was closed as it was made (A2.2).
        const reopened = await openSession(store, { id: `f${at}`, verify: true })
        expect(reopened.events()).toHaveLength(forked.length)
        await reopened.close()
      }
    } finally {
      await store.close()
    }
    expect(asked()).toBe(before)
    // The fork cut just after the first completion was recorded, inside c1's run: replay shows it.
    const firstRequest = events.find((e) => e.type === 'server/request')!.seq
    const replay = await tooltx(dir, 'replay', `f${firstRequest}`, '--db', db)
    expect(replay.stderr).toBe('')
    expect(replay.code).toBe(0)
    expect(replay.stdout).toContain(
      '⇄ MCP server "docs" asked scripted for a completion (1 message, 18 characters, at most 50 tokens) during call c1: answered, allowed by the host\'s policy: "a summary"',
    )
    // The fork closed the call it cut inside, which the source ran (A2.6).
    expect(replay.stdout).toContain('✗ read_file failed (TOOL_OUTCOME_UNKNOWN)')
    expect(replay.stdout).not.toContain(SECRET)
  }, 60_000)

  it('V1.12 A1: tooltx audit of sessions holding server requests decides their tool calls again, and only those', async () => {
    expect(BIN).toBeTruthy()
    const db = path.join(dir, 'audit.db')
    const { events } = await recorded(db, 'audited')
    const cut = events.findLast((e) => e.type === 'server/request')!.seq
    const store = sqliteStore(db)
    await (await forkSession(store, 'audited', { at: cut, id: 'audited-fork' })).close()
    await store.close()
    const result = await tooltx(
      dir,
      'audit',
      'audited',
      'audited-fork',
      '--policy',
      POLICY,
      '--db',
      db,
      '--json',
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(1)
    const doc = JSON.parse(result.stdout) as {
      sessions: {
        id: string
        calls: { callId: string; before: { kind: string }; after: { kind: string } }[]
      }[]
    }
    const decided = doc.sessions.map((s) => [
      s.id,
      s.calls.map((c) => `${c.callId} ${c.before.kind} → ${c.after.kind}`),
    ])
    // The Markdown read would now be denied; the requests of the server are not calls.
    expect(decided).toEqual([
      ['audited', ['c1 execute → deny', 'c2 execute → execute']],
      ['audited-fork', ['c1 execute → deny', 'c2 unknown → execute']],
    ])
  }, 60_000)

  it('V1.12 T3.5: compaction in a turn holding server requests derives the same messages live, from scratch and reopened; the requests derive none', async () => {
    const db = path.join(dir, 'compact.db')
    const { events } = await recorded(db, 'compacted', 250)
    const compactions = events.filter((e) => e.type === 'context/compacted')
    expect(compactions.length).toBeGreaterThan(0)
    expect(requests(events)).toHaveLength(4)
    const derived = deriveMessages(events)
    // user, two assistant replies with one result each, the final reply: no message of a request.
    expect(derived.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(JSON.stringify(derived)).not.toContain('a summary (accept)')
    const store = sqliteStore(db)
    const reopened = await openSession(store, { id: 'compacted', verify: true })
    expect(JSON.stringify(reopened.messages())).toBe(JSON.stringify(derived))
    await reopened.close()
    await store.close()
  }, 60_000)
})
