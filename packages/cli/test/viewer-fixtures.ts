import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createAgent, scripted } from '@tooltx/agent'
import type { NewSessionEvent, SessionEvent } from '@tooltx/session'
import { openSession, postgresStore, sqliteStore } from '@tooltx/session'
import { demoCommand } from '../src/commands/demo.js'
import type { Output } from '../src/display/output.js'
import { createWorkspaceToolset } from '../src/toolset.js'
import { scratch } from './cli-harness.js'

/** An output that keeps every line, for commands run in the test process. */
export function keptOutput(lines: string[] = []): Output & { lines: string[] } {
  return {
    lines,
    line: (text = '') => void lines.push(text),
    error: (text) => void lines.push(text),
    text: (text) => void lines.push(text),
    status() {},
    interactive: false,
    columns: undefined,
    prompt: undefined,
    onClosed: () => () => {},
  }
}

/** The tools the demo calls, in order. */
export const DEMO_TOOLS = [
  'list_files',
  'grep',
  'read_file',
  'read_file',
  'run_check',
  'run_check',
  'write_note',
]

/** Runs `tooltx demo --fast --yes` in this process into `<dir>/sessions.db`; returns the database and session id. */
export async function demoSession(dir: string): Promise<{ db: string; id: string }> {
  const db = path.join(dir, 'sessions.db')
  const { id } = await demoCommand({ db, fast: true, yes: true }, keptOutput())
  return { db, id }
}

/**
 * Session `id` of the database `db` (a SQLite file, or `postgres://…`), made by a real agent: the
 * task `<task>`, then an `edit_file` call (id `call_edit`) of a scratch workspace whose durable
 * ask expires `expiresAfterMs` after it was asked; its turn is suspended and nobody decides.
 * Resolves with the ask's `expiresAt`.
 */
export async function expiringEdit(
  db: string,
  id: string,
  options: { task: string; expiresAfterMs: number },
): Promise<string> {
  const ws = scratch()
  writeFileSync(path.join(ws, 'hello.txt'), 'one\ntwo\n')
  const { runtime, scope } = createWorkspaceToolset({ root: ws })
  const store = db.startsWith('postgres') ? postgresStore(db) : sqliteStore(db)
  const session = await openSession(store, { id })
  const edit = { path: 'hello.txt', old_text: 'two', new_text: 'TWO' }
  const agent = createAgent({
    runtime,
    scope,
    session,
    model: scripted([
      { toolCalls: [{ id: 'call_edit', name: 'edit_file', arguments: JSON.stringify(edit) }] },
    ]),
    approvals: { mode: 'durable', expiresAfterMs: options.expiresAfterMs },
  })
  await agent.send(options.task)
  const asked = session.events().findLast((event) => event.type === 'approval/asked')
  await session.close()
  await store.close()
  return asked?.type === 'approval/asked' ? (asked.data.expiresAt ?? '') : ''
}

/** Gives `events` their seqs, from 1. */
export function numbered(events: readonly NewSessionEvent[], from = 1): SessionEvent[] {
  return events.map((event, i) => ({ ...event, seq: from + i }) as SessionEvent)
}

/**
 * One turn whose single step is a Code Mode call: `run_code` runs a program that calls
 * `read_file` twice (the second one fails with NOT_FOUND) and, nested inside the first, `grep`.
 */
export function codeModeTurn(turn = 1): NewSessionEvent[] {
  const at = { turn, step: 1 }
  const root = `code-${turn}`
  const program = "const a = await tools.read_file({ path: 'a.ts' })\n// then b\nreturn 42"
  const sub = (subCallId: string, parentCallId: string, name: string): NewSessionEvent => ({
    type: 'tool/code-dispatch-start',
    data: { ...at, rootCallId: root, parentCallId, subCallId, name, arguments: { path: 'a.ts' } },
  })
  const settle = (subCallId: string, parentCallId: string, name: string, code?: string): NewSessionEvent => ({
    type: 'tool/code-dispatch',
    data: {
      ...at,
      rootCallId: root,
      parentCallId,
      subCallId,
      name,
      isError: code !== undefined,
      content: [{ type: 'text', text: code === undefined ? 'fine' : `Error: ${code}` }],
      ...(code === undefined ? {} : { error: { name: 'ToolError', code } }),
    },
  })
  return [
    { type: 'turn/start', data: { turn } },
    { type: 'step/start', data: at },
    {
      type: 'user/message',
      data: { ...at, message: { role: 'user', content: [{ type: 'text', text: 'run it' }] } },
    },
    {
      type: 'assistant/message',
      data: {
        ...at,
        content: [
          { type: 'tool-call', id: root, name: 'run_code', arguments: JSON.stringify({ code: program }) },
        ],
      },
    },
    {
      type: 'tool/call',
      data: { ...at, callId: root, name: 'run_code', arguments: JSON.stringify({ code: program }) },
    },
    sub(`${root}.1`, root, 'read_file'),
    sub(`${root}.1.1`, `${root}.1`, 'grep'),
    settle(`${root}.1.1`, `${root}.1`, 'grep'),
    settle(`${root}.1`, root, 'read_file'),
    sub(`${root}.2`, root, 'read_file'),
    settle(`${root}.2`, root, 'read_file', 'NOT_FOUND'),
    {
      type: 'tool/result',
      data: {
        ...at,
        callId: root,
        name: 'run_code',
        content: [{ type: 'text', text: '42' }],
        isError: false,
      },
    },
    { type: 'step/end', data: at },
    { type: 'turn/end', data: { turn, reason: 'completed' } },
  ]
}

/**
 * Writes session `id` with about `total` events to the SQLite database `db`: one turn of steps,
 * each an assistant message and one `list_files` call (every tenth failing with DENIED).
 */
export async function writeBigSession(db: string, id: string, total: number): Promise<number> {
  const store = sqliteStore(db)
  try {
    await store.load(id)
    const events: NewSessionEvent[] = [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      {
        type: 'user/message',
        data: {
          turn: 1,
          step: 1,
          message: { role: 'user', content: [{ type: 'text', text: 'a long session' }] },
        },
      },
      { type: 'step/end', data: { turn: 1, step: 1 } },
    ]
    for (let step = 2; events.length + 5 < total; step++) {
      const at = { turn: 1, step }
      const callId = `call-${step}`
      const failed = step % 10 === 0
      const args = JSON.stringify({ path: `src/file-${step}.ts` })
      events.push(
        { type: 'step/start', data: at },
        {
          type: 'assistant/message',
          data: { ...at, content: [{ type: 'tool-call', id: callId, name: 'list_files', arguments: args }] },
        },
        { type: 'tool/call', data: { ...at, callId, name: 'list_files', arguments: args } },
        {
          type: 'tool/result',
          data: {
            ...at,
            callId,
            name: 'list_files',
            content: [{ type: 'text', text: failed ? 'Error: denied' : `file-${step}.ts` }],
            isError: failed,
            ...(failed ? { error: { name: 'ToolError', code: 'DENIED' } } : {}),
          },
        },
        { type: 'step/end', data: at },
      )
    }
    events.push({ type: 'turn/end', data: { turn: 1, reason: 'completed' } })
    const all = numbered(events)
    for (let i = 0; i < all.length; i += 5000) await store.append(id, all.slice(i, i + 5000))
    return all.length
  } finally {
    await store.close()
  }
}
