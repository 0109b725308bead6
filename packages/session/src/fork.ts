import { definitionError } from '@tooltx/core/internal'
import type { NewSessionEvent, Seq, SessionEvent, SessionForkData } from './events.js'
import { LogState } from './log-state.js'
import { repairPlan } from './repair.js'
import { openSession, type Session } from './session.js'
import { assertSessionId, type SessionStore } from './store.js'

/** Where to cut the source: the last `seq` to keep, or everything before turn `turn + 1` starts. */
export type ForkPoint = number | { readonly turn: number }

/** Options of `forkSession`. */
export interface ForkOptions {
  /** The cut (A2.1): a `seq` (0 keeps nothing) or `{ turn: N }` (all of turns 1…N). */
  at: ForkPoint
  /** The new session's id; by default `<source>.fork-<seq>`, numbered when that is taken. */
  id?: string
}

/** The lineage of a forked session: what its first event names (A2.3); `undefined` for any other. */
export function forkOrigin(events: readonly SessionEvent[]): SessionForkData | undefined {
  const first = events[0]
  return first?.type === 'session/fork' ? first.data : undefined
}

/**
 * The `seq` a fork point names in `events` (A2.1). Throws `INVALID_DEFINITION` saying which
 * points exist for a seq outside 0…length or a turn the source does not have.
 */
function resolveForkPoint(events: readonly SessionEvent[], point: ForkPoint, source: string): number {
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

/** The default id of a fork of `source` at `at` that `taken` does not hold yet. */
function freshId(source: string, at: number, taken: ReadonlySet<string>): string {
  const base = `${source.slice(0, 100)}.fork-${at}`
  if (!taken.has(base)) return base
  let n = 2
  while (taken.has(`${base}-${n}`)) n++
  return `${base}-${n}`
}

/**
 * Creates a new session in `store` holding session `sourceId`'s events up to the fork point
 * (A2.1): first a `session/fork { source, at }` event, then the source's events with `seq` ≤
 * `at` (a source that is itself a fork keeps its own lineage event out, so seqs stay aligned),
 * then the repair a crash at that point would get (L9: open calls answered, approvals
 * cancelled, the step and turn closed), in the same write. A turn suspended on a durable
 * approval (F2.3) is closed the same way (A2.6): its calls without a result get
 * `TOOL_EFFECT_RECORDED` or `TOOL_OUTCOME_UNKNOWN` (the source may run or have run them), its
 * pending ask is cancelled, so nothing the source ran or may run is run again by the fork, and
 * no decision the source made or refused can be made again in it. Resolves with the new
 * session, open, for the caller
 * to continue and close. The source is only read: nothing of it changes (A2.2). Throws
 * `INVALID_DEFINITION` for a missing source, a bad point or an id that is taken.
 */
export async function forkSession(
  store: SessionStore,
  sourceId: string,
  options: ForkOptions,
): Promise<Session> {
  assertSessionId(sourceId)
  if (typeof options !== 'object' || options === null) throw definitionError('forkSession needs { at }')
  const infos = await store.listSessions()
  const taken = new Set(infos.map((info) => info.id))
  // load() creates a missing session, so the source's existence is checked first.
  if (!taken.has(sourceId)) throw definitionError(`cannot fork "${sourceId}": there is no such session`)
  const source = await store.load(sourceId)
  const at = resolveForkPoint(source, options.at, sourceId)
  const id = options.id ?? freshId(sourceId, at, taken)
  assertSessionId(id)
  if (taken.has(id)) throw definitionError(`cannot fork into "${id}": a session with that id exists`)
  const kept: NewSessionEvent[] = [{ type: 'session/fork', data: { source: sourceId, at } }]
  // A plain source's events move one seq later; a fork's keep theirs (its own lineage event is replaced).
  const shift = forkOrigin(source) === undefined ? 1 : 0
  for (const event of source.slice(0, at)) if (event.type !== 'session/fork') kept.push(moved(event, shift))
  const state = new LogState()
  for (const event of kept) state.apply(event)
  const fork = await openSession(store, { id })
  try {
    await fork.appendBatch([...kept, ...repairPlan(state, true)])
  } catch (error) {
    await fork.close()
    throw error
  }
  return fork
}
