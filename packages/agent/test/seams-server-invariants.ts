/**
 * The invariants of the seams model test (V1.9, V1.11–V1.14) over what today's features add to
 * a session: the MCP server's requests (`server/request`, L1.10), the forms a body or a server
 * asks (P8.19), the asks that expire (F2.6) and the reopening of every session (L1.11, F2.15).
 */
import type { SessionEvent } from '@tooltx/session'
import type { Violation } from './seams-invariants.js'
import { FORM_VALUE } from './seams-tools.js'
import type { World } from './seams-world.js'

/** The call id an id belongs to: `<id>/<n>` (an argument) and `<id>:code:<n>` (a sub-call) belong to `<id>`. */
const rootOf = (id: string) => id.split(/[/:]/)[0]!

type ServerRequest = Extract<SessionEvent, { type: 'server/request' }>

/**
 * V1.11: every `server/request` is in the open step of its turn (L1.10), after the `tool/call`
 * of each call it arrived during and before that call's `tool/result`.
 */
function requestPlacement(session: string, events: readonly SessionEvent[]): Violation[] {
  const out: Violation[] = []
  const called = new Map<string, number>()
  const answered = new Map<string, number>()
  events.forEach((e, i) => {
    if (e.type === 'tool/call' && !called.has(e.data.callId)) called.set(e.data.callId, i)
    if (e.type === 'tool/result' && !answered.has(e.data.callId)) answered.set(e.data.callId, i)
  })
  let open: string | undefined
  events.forEach((e, i) => {
    if (e.type === 'step/start' || e.type === 'turn/resumed') open = `${e.data.turn}.${e.data.step}`
    else if (e.type === 'step/end' || e.type === 'turn/end' || e.type === 'turn/start') open = undefined
    if (e.type !== 'server/request') return
    const bad = (what: string) =>
      out.push({ rule: 'server-request-in-step', detail: `${session} seq ${e.seq}: ${e.data.kind} ${what}` })
    if (open !== `${e.data.turn}.${e.data.step}`)
      bad(`of step ${e.data.turn}.${e.data.step} recorded while ${open ?? 'no step'} is open`)
    for (const id of e.data.calls) {
      const root = rootOf(id)
      if ((called.get(root) ?? Number.POSITIVE_INFINITY) > i) bad(`names call ${id}, not called before it`)
      if ((answered.get(root) ?? Number.POSITIVE_INFINITY) < i) bad(`names call ${id}, answered before it`)
    }
  })
  return out
}

/** V1.13: no form answer's value is in a session event (P8.19, L1.10). */
function formValues(session: string, events: readonly SessionEvent[]): Violation[] {
  return events.flatMap((e): Violation[] =>
    JSON.stringify(e.data).includes(FORM_VALUE)
      ? [
          {
            rule: 'form-value-logged',
            detail: `${session} seq ${e.seq} (${e.type}) holds a form answer's value`,
          },
        ]
      : [],
  )
}

/**
 * V1.14: an ask recorded `'expired'` is decided once, and a call whose ask was refused
 * (`'expired'`, `'rejected'`) never runs and ends `DENIED` (F2.6, F2.16, N2.21), in a fork that
 * copied the decision too (F2.21).
 */
function refusedAsks(session: string, events: readonly SessionEvent[], world: World): Violation[] {
  const out: Violation[] = []
  for (const e of events) {
    if (e.type !== 'approval/decided' || !['expired', 'rejected'].includes(e.data.outcome)) continue
    const { callId, outcome, name } = e.data
    const bad = (what: string) =>
      out.push({ rule: 'expired-ask', detail: `${session}: ${callId} ${outcome}, ${what}` })
    const decisions = events.filter((d) => d.type === 'approval/decided' && d.data.callId === callId)
    if (decisions.length !== 1) bad(`decided ${decisions.length} times`)
    const ran = world.effects.filter((f) => rootOf(f.id) === callId && f.tool === name)
    if (ran.length > 0) bad(`yet ${name} ran ${ran.length} time(s)`)
    for (const r of events) {
      if (r.type === 'tool/result' && r.data.callId === callId && r.data.error?.code !== 'DENIED')
        bad(`yet its result is ${r.data.error?.code ?? 'a success'}`)
    }
  }
  return out
}

/**
 * V1.12: every answer the MCP server got (its ledger says so) is recorded as answered in a
 * session (L1.10: recorded before the answer goes back): a completion as a `sampling`
 * `answered`, an accepted form as an `elicitation` `accept`, naming the call it arrived during.
 */
function unrecordedAnswers(world: World, logs: ReadonlyMap<string, readonly SessionEvent[]>): Violation[] {
  const records = [...logs.values()].flatMap((events) =>
    events.filter((e): e is ServerRequest => e.type === 'server/request'),
  )
  const recorded = (id: string, kind: 'sampling' | 'elicitation', outcome: string) =>
    records.some(
      (r) =>
        r.data.kind === kind &&
        r.data.outcome === outcome &&
        r.data.calls.some((c) => rootOf(c) === rootOf(id)),
    )
  const out: Violation[] = []
  for (const f of world.effects) {
    if (f.tool !== 'mcp__tally__consult') continue
    const { sampled, answered } = f.args as { sampled: string; answered: string }
    if (sampled === 'answered' && !recorded(f.id, 'sampling', 'answered'))
      out.push({
        rule: 'server-answer-unrecorded',
        detail: `the server got a completion in ${f.id}, no log records it`,
      })
    if (answered === 'accept' && !recorded(f.id, 'elicitation', 'accept'))
      out.push({
        rule: 'server-answer-unrecorded',
        detail: `the server got a form accepted in ${f.id}, no log records it`,
      })
  }
  return out
}

/** The rules of V1.11–V1.14 over every session's log and the tools' effects. */
export function serverViolations(
  world: World,
  logs: ReadonlyMap<string, readonly SessionEvent[]>,
): Violation[] {
  return [
    ...[...logs].flatMap(([id, events]) => [
      ...requestPlacement(id, events),
      ...formValues(id, events),
      ...refusedAsks(id, events, world),
    ]),
    ...unrecordedAnswers(world, logs),
  ]
}

/**
 * V1.12: a fork copies the `server/request` events of its source and asks nothing again: each
 * one it holds is one of its source's, and no request reached an agent while it was made.
 */
export function forkRequestViolations(
  fork: string,
  source: readonly SessionEvent[],
  forked: readonly SessionEvent[],
  asksDuring: number,
): Violation[] {
  const out: Violation[] = []
  const of = (events: readonly SessionEvent[]) =>
    events.flatMap((e) => (e.type === 'server/request' ? [JSON.stringify(e.data)] : []))
  const known = new Set(of(source))
  for (const data of of(forked))
    if (!known.has(data))
      out.push({ rule: 'fork-reasks', detail: `${fork} holds a request its source never had: ${data}` })
  if (asksDuring > 0)
    out.push({ rule: 'fork-reasks', detail: `making ${fork} put ${asksDuring} request(s) to an agent again` })
  return out
}

/** V1.14: every session of the run opens again without repair, its log checked (L1.11, F2.15). */
export async function reopenViolations(world: World): Promise<Violation[]> {
  const out: Violation[] = []
  for (const id of world.sessions) {
    const proc = await world.open(undefined, id).catch((error: Error) => {
      out.push({ rule: 'reopen', detail: `${id} does not open again: ${error.message}` })
    })
    await proc?.close()
  }
  return out
}
