import { definitionError } from '@tooltx/core/internal'
import { type ForkPoint, forkEvents, resolveForkPoint } from './log/fork.js'
import { openSession, type Session } from './session.js'
import { assertSessionId, type SessionStore } from './stores/store.js'

/** Options of `forkSession`. */
export interface ForkOptions {
  /** The cut (A2.1): a `seq` (0 keeps nothing) or `{ turn: N }` (all of turns 1…N). */
  at: ForkPoint
  /** The new session's id; by default `<source>.fork-<seq>`, numbered when that is taken. */
  id?: string
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
  const fork = await openSession(store, { id })
  try {
    await fork.appendBatch(forkEvents(source, sourceId, at))
  } catch (error) {
    await fork.close()
    throw error
  }
  return fork
}
