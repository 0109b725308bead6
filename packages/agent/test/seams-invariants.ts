/**
 * The invariants the seams model test (V1.9) checks after every command, over the durable logs
 * of every session of the run and the side effects the tools counted. Each broken rule is a
 * `Violation` naming the rule and what broke it.
 */

import { deriveMessages, type SessionEvent, suspendedTurn } from '@tooltx/session'
import { isProtectedPath } from '../../cli/src/tools/protected-paths.js'
import type { Effect, World } from './seams-world.js'
import { TOOLS } from './seams-world.js'

/** The name of a rule: one per promise of V1.9. */
export type Rule =
  | 'one-result-in-model-order'
  | 'turn-left-open'
  | 'turn-failed-without-crash'
  | 'read-not-rerun'
  | 'effect-once'
  | 'decision-rule'
  | 'guard'
  | 'narrowing'
  | 'narrowed-ask'
  | 'fork-repeats-source-effect'
  | 'fork-keeps-suspended-turn'
  | 'server-request-in-step'
  | 'server-answer-unrecorded'
  | 'server-decision-lost'
  | 'fork-reasks'
  | 'form-value-logged'
  | 'expired-ask'
  | 'reopen'

export interface Violation {
  readonly rule: Rule
  readonly detail: string
}

/** What fast-check's model holds: the violations commands found while they ran, for `settle` to report. */
export interface Model {
  readonly findings: Violation[]
}

/** Checks every invariant once the command is done; a `settle` the test passes in. */
export type Settle = (model: Model, world: World) => Promise<void>

/** Effects that change the world; a `look` only reads. */
const CHANGES = new Set(['pay', 'log', 'stamp', 'mcp__tally__tally', 'mcp__tally__consult'])

/** The call id an effect belongs to: a Code Mode sub-call `<id>/<n>` belongs to `<id>`. */
const rootOf = (id: string) => id.split('/')[0]!

interface Block {
  readonly id: string
  readonly name: string
  readonly session: string
  readonly turn: number
}

/** Every call of the latest or any earlier turn: one `tool/call` and one `tool/result`, in model order. */
export function logViolations(session: string, events: readonly SessionEvent[]): Violation[] {
  const out: Violation[] = []
  const bad = (detail: string) =>
    out.push({ rule: 'one-result-in-model-order', detail: `${session}: ${detail}` })
  const calls = new Map<string, number>()
  const results = new Map<string, number>()
  const ends = new Map<number, number>()
  const blocksOfTurn = new Map<number, string[][]>()
  const resultOrder: string[] = []
  for (const e of events) {
    if (e.type === 'tool/call') calls.set(e.data.callId, (calls.get(e.data.callId) ?? 0) + 1)
    if (e.type === 'tool/result') {
      results.set(e.data.callId, (results.get(e.data.callId) ?? 0) + 1)
      resultOrder.push(e.data.callId)
    }
    if (e.type === 'turn/end') ends.set(e.data.turn, (ends.get(e.data.turn) ?? 0) + 1)
    if (e.type === 'assistant/message') {
      const ids = e.data.content.flatMap((b) => (b.type === 'tool-call' ? [b.id] : []))
      const list = blocksOfTurn.get(e.data.turn) ?? []
      list.push(ids)
      blocksOfTurn.set(e.data.turn, list)
    }
  }
  for (const [id, n] of calls) if (n > 1) bad(`${id} has ${n} tool/call events`)
  for (const [id, n] of results) if (n > 1) bad(`${id} has ${n} tool/result events`)
  for (const [turn, n] of ends) if (n > 1) bad(`turn ${turn} has ${n} turn/end events`)
  const position = new Map(resultOrder.map((id, i) => [id, i]))
  for (const [turn, messages] of blocksOfTurn) {
    for (const ids of messages) {
      if (ends.has(turn)) {
        for (const id of ids)
          if (calls.get(id) !== 1 || results.get(id) !== 1)
            bad(`${id} of closed turn ${turn} is not answered once`)
      }
      const answered = ids.filter((id) => position.has(id))
      const sorted = [...answered].sort((a, b) => position.get(a)! - position.get(b)!)
      if (answered.join() !== sorted.join())
        bad(`results of turn ${turn} out of model order: ${sorted.join(' ')}`)
    }
  }
  const last = [...events].reverse().find((e) => e.type === 'turn/start' || e.type === 'turn/end')
  const open = last?.type === 'turn/start'
  if (open && suspendedTurn(events) === undefined)
    out.push({
      rule: 'turn-left-open',
      detail: `${session}: turn ${last.data.turn} is neither closed nor suspended`,
    })
  if (!open) {
    const messages = deriveMessages(events)
    const asked = messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.flatMap((b) => (b.type === 'tool-call' ? [b.id] : [])) : [],
    )
    const answered = messages.flatMap((m) => (m.role === 'tool' ? [m.callId] : []))
    if (asked.join() !== answered.join())
      bad(`derived messages answer [${answered.join(' ')}] to the calls [${asked.join(' ')}]`)
  }
  return out
}

/** The tools recovery re-runs (F1.4): their effect class is `'read'` or `'idempotent'`. */
const RERUN = new Set(['look', 'stamp', 'form'])

/**
 * Recovery re-runs reads (F1.4): in a session every crash of which an agent recovered, a
 * `'read'` or `'idempotent'` call never ends `TOOL_OUTCOME_UNKNOWN`, unless a fork copied it
 * (a fork closes what it copies as plain repair does, L9.2). Nor does a second handle opened on
 * the live turn leave one so (it must not repair that turn, L14.1).
 */
export function recoveryViolations(
  session: string,
  events: readonly SessionEvent[],
  world: Pick<World, 'copied'>,
): Violation[] {
  const copied = world.copied.get(session)
  return events.flatMap((e): Violation[] =>
    e.type === 'tool/result' &&
    e.data.error?.code === 'TOOL_OUTCOME_UNKNOWN' &&
    RERUN.has(e.data.name) &&
    !copied?.has(e.data.callId)
      ? [
          {
            rule: 'read-not-rerun',
            detail: `${session}: ${e.data.name} ${e.data.callId} ended TOOL_OUTCOME_UNKNOWN`,
          },
        ]
      : [],
  )
}

/** Where each tool-call block of the run was first made: its session and turn. */
function blocksOf(logs: ReadonlyMap<string, readonly SessionEvent[]>): Map<string, Block> {
  const blocks = new Map<string, Block>()
  for (const [session, events] of logs) {
    for (const e of events) {
      if (e.type !== 'assistant/message') continue
      for (const b of e.data.content) {
        if (b.type === 'tool-call' && !blocks.has(b.id))
          blocks.set(b.id, { id: b.id, name: b.name, session, turn: e.data.turn })
      }
    }
  }
  return blocks
}

/** The string values anywhere in `value`. */
function strings(value: unknown, key = ''): [string, string][] {
  if (typeof value === 'string') return [[key, value]]
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([k, v]) => strings(v, k))
}

/** The rules over the tools' side effects: once, by decision, guarded, narrowed, never repeated by a fork. */
export function effectViolations(
  world: World,
  logs: ReadonlyMap<string, readonly SessionEvent[]>,
): Violation[] {
  const out: Violation[] = []
  const blocks = blocksOf(logs)
  const byId = new Map<string, Effect[]>()
  for (const effect of world.effects) {
    const list = byId.get(effect.id) ?? []
    list.push(effect)
    byId.set(effect.id, list)
    for (const [key, text] of strings(effect.args)) {
      if (!isProtectedPath(text)) continue
      out.push({ rule: 'guard', detail: `${effect.tool} ran with ${key} "${text}" (${effect.id})` })
    }
    if (effect.tool === 'pay' && world.decisions.get(effect.id) !== 'allowed-once')
      out.push({
        rule: 'decision-rule',
        detail: `pay ${effect.id} ran without an allowed-once decision made by the rule`,
      })
    const block = blocks.get(rootOf(effect.id))
    const narrowed = block && world.narrowing.get(`${block.session}#${block.turn}`)
    if (block !== undefined && narrowed !== undefined && !narrowed.includes(effect.tool)) {
      out.push({
        rule: 'narrowing',
        detail: `${effect.tool} ${effect.id} ran in turn ${block.turn} of ${block.session}, narrowed to [${narrowed.join(', ')}]`,
      })
    }
    const copied = world.copied.get(effect.session)
    if (CHANGES.has(effect.tool) && copied?.has(rootOf(effect.id))) {
      out.push({
        rule: 'fork-repeats-source-effect',
        detail: `${effect.tool} ${effect.id} ran in fork ${effect.session}, which copied that call from its source`,
      })
    }
  }
  for (const [id, all] of byId) {
    // A run in a fork that copied the call was judged above.
    const effects = all.filter((e) => !world.copied.get(e.session)?.has(rootOf(e.id)))
    const changes = effects.filter((e) => CHANGES.has(e.tool) && e.tool !== 'stamp')
    if (changes.length > 1)
      out.push({
        rule: 'effect-once',
        detail: `${changes[0]!.tool} ${id} ran ${changes.length} times (${changes.map((e) => e.session).join(', ')})`,
      })
    const keys = new Set(effects.flatMap((e) => (e.tool === 'stamp' ? [e.key] : [])))
    if (keys.size > 1)
      out.push({ rule: 'effect-once', detail: `stamp ${id} took effect under ${keys.size} idempotency keys` })
  }
  return out
}

const TOOL_NAMES: ReadonlySet<string> = new Set(TOOLS)

/**
 * Nobody is asked about a call its step's `prepareStep` left out (P4.11, T4.6): no
 * `approval/asked` in a narrowed turn names a tool outside the narrowing (`run_code` is never
 * named, T4.2).
 */
export function narrowedAskViolations(
  session: string,
  events: readonly SessionEvent[],
  world: World,
): Violation[] {
  const out: Violation[] = []
  for (const e of events) {
    if (e.type !== 'approval/asked' || !TOOL_NAMES.has(e.data.name)) continue
    const narrowed = world.narrowing.get(`${session}#${e.data.turn}`)
    if (narrowed === undefined || narrowed.includes(e.data.name)) continue
    out.push({
      rule: 'narrowed-ask',
      detail: `${e.data.name} ${e.data.callId} was asked about in turn ${e.data.turn} of ${session}, narrowed to [${narrowed.join(', ')}]`,
    })
  }
  return out
}
