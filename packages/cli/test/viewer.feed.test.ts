import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileReader, fileStore, type NewSessionEvent, openSession } from '@tooltx/session'
import { describe, expect, it, onTestFinished } from 'vitest'
import { SessionFeed } from '../src/viewer/session-feed.js'

const user = (turn: number, text: string): Extract<NewSessionEvent, { type: 'user/message' }> => ({
  type: 'user/message',
  data: { turn, step: 1, message: { role: 'user', content: [{ type: 'text', text }] } },
})

describe('G2.2 the session feed', () => {
  it('G2.2: the first refresh builds every entry; later ones add only the entries of new events, and nothing new is undefined', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-feed-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const store = fileStore(dir)
    const session = await openSession(store, { id: 'feed' })
    await session.appendBatch([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: { turn: 1, step: 1 } },
      user(1, 'first'),
    ])
    const reader = fileReader(dir)!
    const feed = new SessionFeed(reader, 'feed', [])

    const first = await feed.refresh()
    expect(first?.reset).toBe(true)
    expect(first?.entries.map((e) => e.kind)).toEqual(['turn-start', 'step-start', 'message'])

    expect(await feed.refresh()).toBeUndefined()

    await session.append('user/message', user(1, 'second').data)
    const next = await feed.refresh()
    expect(next).toEqual({
      reset: false,
      entries: [expect.objectContaining({ kind: 'message', text: 'second', seq: 4 })],
    })
    expect(feed.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4])
    expect(feed.lastChangeAt).toBeTypeOf('number')
    await session.close()
    await store.close()
    await reader.close()
  })
})
