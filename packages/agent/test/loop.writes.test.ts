import type { SessionEvent, SessionStore } from '@tooltx/session'
import { sqliteStore } from '@tooltx/session'
import { describe, expect, it } from 'vitest'
import { call, go, line, rig } from './loop-harness.js'

/** A real SQLite store at `path` that keeps each durable write as the `line`s it held. */
function recording(path: string, writes: string[][]): SessionStore {
  const store = sqliteStore(path)
  return {
    load: (id) => store.load(id),
    listSessions: () => store.listSessions(),
    close: () => store.close(),
    append(id, events) {
      writes.push(events.map((event) => line(event as SessionEvent)))
      return store.append(id, events)
    },
  }
}

describe('L10 when each event becomes durable (SQLite session)', () => {
  it('L10.2, L5.3: the opening, each pool round, and the turn end are one write each, in this exact grouping', async () => {
    const writes: string[][] = []
    const r = await rig({ store: (path) => recording(path, writes) })
    r.gates.open('3')
    const { agent } = go(
      r,
      [
        { toolCalls: [call('echo', '1'), call('echo', '2'), call('write', '3'), call('echo', '4')] },
        { text: 'done' },
      ],
      { maxParallelToolCalls: 2 },
    )
    await agent.whenIdle()
    expect(writes).toEqual([
      ['turn/start', 'step/start', 'user/message "go"'],
      ['assistant/message c1 c2 c3 c4', 'tool/call c1', 'tool/call c2'],
      ['tool/result c1 ok', 'tool/result c2 ok'],
      ['tool/call c3'],
      ['tool/result c3 ok'],
      ['tool/call c4'],
      ['tool/result c4 ok'],
      ['step/end', 'step/start'],
      ['assistant/message "done"', 'step/end', 'turn/end completed'],
    ])
  })

  it('L10.2, L6.3: calls an abort kept back get their pairs in one write with the reply no round wrote', async () => {
    const writes: string[][] = []
    const r = await rig({ store: (path) => recording(path, writes) })
    const { agent } = go(r, [{ toolCalls: [call('echo', '1'), call('echo', '2')] }], {
      onModelEvent: (event) => {
        if (event.type === 'message') agent.abort()
      },
    })
    await agent.whenIdle()
    expect(writes).toEqual([
      ['turn/start', 'step/start', 'user/message "go"'],
      [
        'assistant/message c1 c2',
        'tool/call c1',
        'tool/result c1 ABORTED_BEFORE_DISPATCH',
        'tool/call c2',
        'tool/result c2 ABORTED_BEFORE_DISPATCH',
      ],
      ['step/end', 'turn/end aborted'],
    ])
  })

  it('L10.3: 100 calls that return at once on the default 10 slots make the 209 events of the turn durable in 15 writes', async () => {
    const writes: string[][] = []
    const r = await rig({ store: (path) => recording(path, writes) })
    const calls = Array.from({ length: 100 }, (_, i) => call('echo', String(i)))
    const { agent } = go(r, [{ toolCalls: calls }, { text: 'done' }])
    await agent.whenIdle()
    expect(writes.flat()).toHaveLength(209)
    // The opening; the reply and 10 tool/calls; 9 rounds of 10 results + 10 tool/calls; the
    // last round's results (none left to start: the first result goes at once, 9 follow
    // together); the next step's opening; the text reply with step/end and turn/end.
    expect(writes.map((w) => w.length)).toEqual([3, 11, 20, 20, 20, 20, 20, 20, 20, 20, 20, 1, 9, 2, 3])
    expect(writes[2]).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `tool/result c${i} ok`),
      ...Array.from({ length: 10 }, (_, i) => `tool/call c${i + 10}`),
    ])
  })
})
