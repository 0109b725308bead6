/**
 * K5.17, K5.18, G3.12: one rule says whether an undecided ask waits or expired at a given time,
 * and the timeline, `tooltx approvals` and the viewer's sessions list read it with the same words.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { decideApproval, pendingApprovals } from '@tooltx/agent'
import {
  type ApprovalAskedData,
  isExpired,
  openSession,
  type SessionEvent,
  sqliteStore,
} from '@tooltx/session'
import fc from 'fast-check'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { askStanding, expiredWords, judgeAgainIn, waitingWords } from '../src/display/ask-standing.js'
import { TimelineRenderer } from '../src/display/timeline.js'
import { renderSession } from '../src/session-timeline.js'
import { overviewOf } from '../src/viewer/session-overview.js'
import { openViewerSource } from '../src/viewer/viewer-source.js'
import { ViewerState } from '../src/viewer/viewer-state.js'
import { expiringEdit } from './viewer-fixtures.js'

const HOUR = 60 * 60 * 1000

function scratchDb(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-expiry-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, 'sessions.db')
}

/** The events of session `id` of `db`. */
async function eventsOf(db: string, id: string): Promise<SessionEvent[]> {
  const store = sqliteStore(db)
  const session = await openSession(store, { id })
  const events = [...session.events()]
  await session.close()
  await store.close()
  return events
}

/** Records the expiry of `call_edit` in session `id` of `db`, as `tooltx approve` does once it passed (F2.6). */
async function recordExpiry(db: string, id: string, now: number): Promise<void> {
  const store = sqliteStore(db)
  const session = await openSession(store, { id })
  const digest = pendingApprovals(session, { now })[0]!.argumentsDigest
  const decided = decideApproval(session, 'call_edit', { decision: 'denied', by: 'ann', digest }, { now })
  await expect(decided).rejects.toThrow(/expired/)
  await session.close()
  await store.close()
}

const noDefinitions = () => undefined

/** An ISO time, or text that is no time at all. */
const expiry = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.string(),
)

describe('K5.17 one rule and one set of words for an undecided ask', () => {
  it('K5.17: askStanding judges expiry exactly as the log does (isExpired), and a decided ask is decided whatever the time', () => {
    fc.assert(
      fc.property(expiry, fc.integer({ min: -1e15, max: 1e15 }), (expiresAt, now) => {
        const asked = { expiresAt } as ApprovalAskedData
        expect(askStanding(expiresAt, false, now)).toBe(isExpired(asked, now) ? 'expired' : 'waiting')
        expect(askStanding(expiresAt, true, now)).toBe('decided')
        expect(askStanding(undefined, false, now)).toBe('waiting')
      }),
    )
  })

  it('K5.17: judgeAgainIn waits until the expiry, never less than 0 nor more than a timer takes, and never for an ask that cannot expire', () => {
    fc.assert(
      fc.property(expiry, fc.integer({ min: -1e15, max: 1e15 }), (expiresAt, now) => {
        const wait = judgeAgainIn(expiresAt, now)
        const at = Date.parse(expiresAt)
        if (Number.isNaN(at)) {
          expect(wait).toBeUndefined()
          return
        }
        expect(wait).toBe(Math.min(2 ** 31 - 1, Math.max(0, at - now)))
        // Judged again after that wait, an ask still waiting is only a longer wait than a timer takes.
        if (askStanding(expiresAt, false, now + wait!) === 'waiting') expect(wait).toBe(2 ** 31 - 1)
      }),
    )
    expect(judgeAgainIn(undefined, 0)).toBeUndefined()
  })

  it("K5.17: the words are K5.15's and G3.10's", () => {
    expect(expiredWords('2026-01-02T03:04:05.000Z')).toBe(
      'expired 2026-01-02T03:04:05.000Z: nobody decided in time, so the call is denied',
    )
    expect(waitingWords('2026-01-02T03:04:05.000Z')).toBe(
      'durable: waiting for approval until 2026-01-02T03:04:05.000Z',
    )
  })
})

describe('K5.18 the timeline of an ask that expired undecided', () => {
  it('K5.18: replay ends with the expiry line once the ask expired, not before, and not once the expiry is recorded', async () => {
    const db = scratchDb()
    const expiresAt = await expiringEdit(db, 'edits', { task: 'shout', expiresAfterMs: HOUR })
    const at = Date.parse(expiresAt)
    const events = await eventsOf(db, 'edits')
    const before = renderSession(events, noDefinitions, at - 1)
    // The ask's line stays what was asked; its diff lines follow it (K2.15).
    expect(before.filter((line) => line.startsWith('    ? '))).toEqual([
      expect.stringMatching(
        /^ {4}\? approval asked for edit_file: changes hello\.txt .*\(durable: waiting for approval until /,
      ),
    ])
    expect(before.at(-1)).toBe('        +TWO')
    const after = renderSession(events, noDefinitions, at)
    expect(after.slice(0, -1)).toEqual(before)
    expect(after.at(-1)).toBe(
      `    ? approval for edit_file expired ${expiresAt}: nobody decided in time, so the call is denied`,
    )
    await recordExpiry(db, 'edits', at + 5)
    const recorded = renderSession(await eventsOf(db, 'edits'), noDefinitions, at + HOUR)
    expect(recorded.filter((line) => line.includes('nobody decided in time'))).toEqual([])
    expect(recorded).toContain('    ? approval for edit_file: expired')
  }, 60_000)

  it('K5.18: a following timeline prints each expiry once, when it comes, and knows how long to wait for it', async () => {
    const db = scratchDb()
    const expiresAt = await expiringEdit(db, 'edits', { task: 'shout', expiresAfterMs: HOUR })
    const at = Date.parse(expiresAt)
    const timeline = new TimelineRenderer(noDefinitions)
    for (const event of await eventsOf(db, 'edits')) timeline.render(event)
    expect(timeline.nextExpiry(at - 250)).toBe(250)
    expect(timeline.expired(at - 1)).toEqual([])
    expect(timeline.expired(at)).toEqual([`    ? approval for edit_file ${expiredWords(expiresAt)}`])
    expect(timeline.expired(at + HOUR)).toEqual([])
    expect(timeline.nextExpiry(at + HOUR)).toBeUndefined()
  }, 60_000)
})

describe('G3.12 the sessions list of an ask that expired undecided', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('G3.12: a session shows waiting for approval before its ask expires, approval expired at it, and suspended once the expiry is recorded', async () => {
    const db = scratchDb()
    const expiresAt = await expiringEdit(db, 'edits', { task: 'shout', expiresAfterMs: HOUR })
    const at = Date.parse(expiresAt)
    const events = await eventsOf(db, 'edits')
    const info = { id: 'edits', created: expiresAt, updated: expiresAt, events: events.length }
    const status = (list: readonly SessionEvent[], now: number) =>
      overviewOf(info, list, { now, idleMs: 10_000 }).status
    expect(status(events, at - 1)).toBe('waiting for approval')
    expect(status(events, at)).toBe('approval expired')
    await recordExpiry(db, 'edits', at)
    expect(status(await eventsOf(db, 'edits'), at)).toBe('suspended')
  }, 60_000)

  it('G3.12: the viewer judges a listed session again when its ask expires, with no new event', async () => {
    const db = scratchDb()
    const expiresAt = await expiringEdit(db, 'edits', { task: 'shout', expiresAfterMs: HOUR })
    const source = openViewerSource(db)
    const state = new ViewerState({ source, definitions: [], idleMs: 10_000, assets: '' })
    onTestFinished(async () => {
      state.close()
      await source.close()
    })
    expect((await state.overviews()).map((row) => row.status)).toEqual(['waiting for approval'])
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.parse(expiresAt))
    expect((await state.overviews()).map((row) => row.status)).toEqual(['approval expired'])
  }, 60_000)
})
