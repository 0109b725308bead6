import { definitionError } from '@tooltx/core/internal'
import type { NewSessionEvent, Seq, SessionEvent, SessionForkData } from './events.js'
import { LogState } from './log-state.js'
import { repairPlan } from './repair.js'

/** Where to cut the source: the last `seq` to keep, or everything before turn `turn + 1` starts. */
export type ForkPoint = number | { readonly turn: number }

/** The lineage of a forked session: what its first event names (A2.3); `undefined` for any other. */
export function forkOrigin(events: readonly SessionEvent[]): SessionForkData | undefined {
  const first = events[0]
  return first?.type === 'session/fork' ? first.data : undefined
}

/**
 * The `seq` a fork point names in `events` (A2.1). Throws `INVALID_DEFINITION` saying which
 * points exist for a seq outside 0…length or a turn the source does not have.
 */
export function resolveForkPoint(events: readonly SessionEvent[], point: ForkPoint, source: string): number {
  const last = events.length
  if (typeof point === 'number') {
    if (!Number.isSafeInteger(point) || point < 0 || point > last) {
      throw definitionError(
        `fork point seq ${String(point)} is not in session "${source}", which has seqs 1…${last}; pass a seq from 0 to ${last}`,
      )
    }
    return point
  }
  const turn = typeof point === 'object' && point !== null ? point.turn : undefined
  let turns = 0
  for (const event of events) if (event.type === 'turn/start') turns = event.data.turn
  if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 0 || turn > turns) {
    throw definitionError(
      `fork point turn ${String(turn)} is not in session "${source}", which has turns 1…${turns}; pass a turn from 0 to ${turns}`,
    )
  }
  const next = events.find((event) => event.type === 'turn/start' && event.data.turn === turn + 1)
  return next === undefined ? last : next.seq - 1
}

/**
 * `event` as a fork copies it, `shift` seqs later: a compaction's references to the events it
 * rewrote (`cleared[].seq`, `through`) move with them, so the fork derives the source's messages
 * (A2.2); every other event is copied as it is.
 */
function moved(event: SessionEvent, shift: number): NewSessionEvent {
  if (event.type !== 'context/compacted' || shift === 0)
    return { type: event.type, data: event.data } as NewSessionEvent
  const data = event.data
  return {
    type: 'context/compacted',
    data:
      data.strategy === 'summarise'
        ? { ...data, through: (data.through + shift) as Seq }
        : { ...data, cleared: data.cleared.map((entry) => ({ ...entry, seq: (entry.seq + shift) as Seq })) },
  }
}

/**
 * The events a fork of `source` (session `sourceId`) cut at seq `at` starts with, in one batch
 * (A2.1): `session/fork { source, at }`, the source's events with `seq` ≤ `at` (a source that is
 * itself a fork keeps its own lineage event out, so seqs stay aligned), then the repair a crash
 * at that point would get, a suspended turn closed too (A2.6).
 */
export function forkEvents(source: readonly SessionEvent[], sourceId: string, at: number): NewSessionEvent[] {
  const kept: NewSessionEvent[] = [{ type: 'session/fork', data: { source: sourceId, at } }]
  // A plain source's events move one seq later; a fork's keep theirs (its own lineage event is replaced).
  const shift = forkOrigin(source) === undefined ? 1 : 0
  for (const event of source.slice(0, at)) if (event.type !== 'session/fork') kept.push(moved(event, shift))
  const state = new LogState()
  for (const event of kept) state.apply(event)
  return [...kept, ...repairPlan(state, true)]
}
