/**
 * A server's request of the host on the timeline and in the viewer (Y4.12): one display entry
 * (G1.1) for `server/request`, whatever its kind and outcome, printed terminal-safe.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  fileReader,
  fileStore,
  openSession,
  type ServerRequestData,
  type SessionEvent,
} from '@tooltx/session'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { displaySession } from '../src/display/session-display.js'
import { renderSession } from '../src/session-timeline.js'
import { SessionFeed } from '../src/viewer/session-feed.js'

const T = { turn: 1, step: 1 }
const event = (data: ServerRequestData, seq = 3) => ({ seq, type: 'server/request', data }) as SessionEvent
const OPEN = [
  { seq: 1, type: 'turn/start', data: { turn: 1 } },
  { seq: 2, type: 'step/start', data: T },
] as SessionEvent[]
const noLookup = () => undefined
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

describe('Y4.12 server/request on the timeline', () => {
  it('Y4.12 a refused completion and a cancelled question each print one line saying who decided and why', () => {
    const lines = renderSession(
      [
        ...OPEN,
        event({
          ...T,
          kind: 'sampling',
          server: 'docs',
          calls: [],
          messages: 2,
          characters: 1,
          model: 'm',
          maxTokens: 9,
          outcome: 'refused',
          by: 'policy',
          reason: "the host's policy refuses sampling",
        }),
        event(
          {
            ...T,
            kind: 'elicitation',
            server: 'docs',
            calls: ['a', 'b'],
            message: 'Pick',
            fields: [],
            outcome: 'cancel',
            by: 'approver',
            reason: 'the approver answered cancelled',
          },
          4,
        ),
      ],
      noLookup,
    )
    expect(lines.slice(2)).toEqual([
      `    ⇄ MCP server "docs" asked m for a completion (2 messages, 1 character, at most 9 tokens): refused by the host's policy: the host's policy refuses sampling`,
      '    ⇄ MCP server "docs" asked "Pick" (no fields) during call a, b: cancel by the approver: the approver answered cancelled',
    ])
  })

  it('Y4.12 the viewer gets the same entry, and a server text never carries a control character (but tab and newline) to the terminal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (message, reply) => {
        const data: ServerRequestData = {
          ...T,
          kind: 'sampling',
          server: 's',
          calls: ['c'],
          messages: 1,
          characters: message.length,
          last: message,
          model: 'm',
          maxTokens: 5,
          outcome: 'answered',
          by: 'approver',
          reply,
        }
        const question: ServerRequestData = {
          ...T,
          kind: 'elicitation',
          server: reply,
          calls: [],
          message,
          fields: [message],
          outcome: 'decline',
          by: 'handler',
          reason: reply,
        }
        const events = [event(data), event(question, 4)]
        expect(displaySession(events, noLookup)).toMatchObject([
          { kind: 'note', what: 'server-request', turn: 1, step: 1 },
          { kind: 'note', what: 'server-request', turn: 1, step: 1 },
        ])
        for (const line of renderSession(events, noLookup)) expect(line).not.toMatch(CONTROL)
      }),
    )
  })

  it("Y4.12 the viewer's feed of a stored session carries the same note", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-requests-feed-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const store = fileStore(dir)
    const session = await openSession(store, { id: 'feed' })
    const data: ServerRequestData = {
      ...T,
      kind: 'elicitation',
      server: 'docs',
      calls: ['c1'],
      message: 'Deploy?',
      fields: ['confirm'],
      outcome: 'accept',
      by: 'approver',
      answered: ['confirm'],
    }
    await session.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: T },
      { type: 'server/request', data },
    ])
    await session.close()
    await store.close()
    const reader = fileReader(dir)!
    onTestFinished(() => reader.close())
    const refreshed = await new SessionFeed(reader, 'feed', []).refresh()
    expect(refreshed?.entries.at(-1)).toEqual({
      kind: 'note',
      seq: 3,
      ...T,
      what: 'server-request',
      text: '⇄ MCP server "docs" asked "Deploy?" (fields confirm) during call c1: accept by the approver (answered confirm)',
    })
  })
})
