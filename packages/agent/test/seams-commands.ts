/**
 * The commands of the seams model test (V1.9) and their arbitraries: a turn (a parallel batch
 * with Code Mode and MCP calls, a `prepareStep` narrowing, compaction, a second handle peeking
 * at the live turn, a crash at a chosen durable write), a decision from another process (made
 * by the rule, refused by it, or forged into the log), a resume, and a fork at a random event.
 * Each runs in fresh "processes" (store objects) on the run's SQLite file, then `settle` checks
 * every invariant.
 */

import { forkSession, openSession, type SessionEvent, suspendedTurn } from '@tooltx/session'
import fc from 'fast-check'
import { decideApproval, pendingApprovals, type ScriptedToolCall } from '../src/index.js'
import type { CrashPlan } from './crash-store.js'
import { type Answers, answers, crash, oneIn } from './seams-draws.js'
import { Expire } from './seams-expire.js'
import type { Model, Settle } from './seams-invariants.js'
import { forkRequestViolations } from './seams-server-invariants.js'
import { bounded, nextTurn, replies, TOOLS, type ToolName, type World } from './seams-world.js'

type Command = fc.AsyncCommand<Model, World>

/**
 * Every command applies in any state: each looks at what it finds (a `Decide` with nothing
 * pending does nothing).
 */
const applies = () => true

/** One call of a batch: which tool, with a protected path or not; `run_code` makes `nested` sub-calls. */
export interface CallPlan {
  readonly tool: ToolName | 'run_code'
  readonly secret: boolean
  readonly nested: readonly { readonly tool: ToolName; readonly secret: boolean }[]
}

const DESCRIPTION = 'seams'

/** What the MCP server's `consult` asks the client, picked by the call id (so the same call asks the same). */
const ASKS = ['sample', 'yesno', 'text', 'both'] as const

/** The arguments of `tool` for call `id`; a secret one names a protected path (K1.1). */
function argsOf(tool: ToolName, id: string, secret: boolean): Record<string, string> {
  const target = secret ? 'config/.env.local' : 'notes/todo.txt'
  if (tool === 'look' || tool === 'pay') return { id, path: target }
  if (tool === 'mcp__tally__tally') return { id, file: target }
  if (tool === 'mcp__tally__consult') {
    const sum = [...id].reduce((n, c) => n + c.charCodeAt(0), 0)
    return { id, asks: ASKS[sum % ASKS.length]! }
  }
  return { id }
}

/** A program that makes `nested` calls in order, catching each failure (X3.5). */
function program(id: string, nested: CallPlan['nested']): string {
  const calls = nested.map((n, i) => [n.tool, argsOf(n.tool, `${id}/${i + 1}`, n.secret)])
  return [
    `const calls = ${JSON.stringify(calls)}`,
    'const out = []',
    'for (const [name, args] of calls) {',
    '  const tool = tools[name]',
    "  if (tool === undefined) { out.push(name + ' absent'); continue }",
    "  try { out.push(await tool(args)) } catch (e) { out.push(name + ' ' + e.code) }",
    '}',
    'return out',
  ].join('\n')
}

function toolCall(world: World, plan: CallPlan): ScriptedToolCall {
  const id = world.nextId()
  if (plan.tool === 'run_code') {
    const args = { code: program(id, plan.nested), description: DESCRIPTION }
    return { id, name: 'run_code', arguments: JSON.stringify(args) }
  }
  return { id, name: plan.tool, arguments: JSON.stringify(argsOf(plan.tool, id, plan.secret)) }
}

const show = (crash: CrashPlan | undefined) =>
  crash === undefined ? '' : ` crash@${crash.at}${crash.written ? '+written' : ''}`

/** How many of `session`'s `server/request` events after `from` the approver decided. */
const approverRecords = (events: readonly SessionEvent[], from: number) =>
  events.slice(from).filter((e) => e.type === 'server/request' && e.data.by === 'approver').length

class Turn implements Command {
  constructor(
    readonly calls: readonly CallPlan[],
    readonly narrow: readonly ToolName[] | undefined,
    readonly maxParallel: number,
    readonly compact: boolean,
    readonly peek: boolean,
    readonly answers: Answers,
    readonly crash: CrashPlan | undefined,
    readonly settle: Settle,
  ) {}
  check = applies
  async run(m: Model, world: World): Promise<void> {
    const proc = await world.open(this.crash)
    try {
      const turn = `${world.current}#${nextTurn(proc.session.events())}`
      if (this.narrow !== undefined) world.narrowing.set(turn, this.narrow)
      const toolCalls = this.calls.map((plan) => toolCall(world, plan))
      const agent = world.agent(proc, [{ toolCalls }, ...replies()], {
        maxParallel: this.maxParallel,
        compact: this.compact,
        ...this.answers,
      })
      const asked = world.serverDecisions.length
      const from = proc.session.events().length
      let peeking: Promise<unknown> | undefined
      if (this.peek) {
        // Another part of the same program opens the session through the same store object while
        // the turn runs; it is refused (L14.6) and must not repair the live turn.
        const off = proc.session.on((event) => {
          if (event.type !== 'tool/call' || peeking !== undefined) return
          off()
          peeking = openSession(proc.store, { id: world.current })
            .then((second) => second.close())
            .catch(() => {})
        })
      }
      const outcome = await bounded(agent.send('go'), 'a turn')
      await peeking
      if (outcome.reason === 'error' && !proc.crashed())
        m.findings.push({
          rule: 'turn-failed-without-crash',
          detail: `turn ${outcome.turn} ended with an error though no process died: ${outcome.error}`,
        })
      // Y2.32, L1.10: each decision the in-process approver made of a server's request is
      // recorded, unless the process died (a durable agent refuses without asking it).
      const decided = world.serverDecisions.length - asked
      const recorded = approverRecords(await world.events(world.current), from)
      if (this.answers.approver !== undefined && !proc.crashed() && decided !== recorded)
        m.findings.push({
          rule: 'server-decision-lost',
          detail: `the approver decided ${decided} server request(s) in turn ${outcome.turn}, the log records ${recorded}`,
        })
    } finally {
      await world.finish(proc)
    }
    await this.settle(m, world)
  }
  toString() {
    const calls = this.calls.map((c) =>
      c.tool === 'run_code'
        ? `run_code(${c.nested.map((n) => `${n.tool}${n.secret ? '!' : ''}`).join(',')})`
        : `${c.tool}${c.secret ? '!' : ''}`,
    )
    const narrow = this.narrow === undefined ? '' : ` narrow=[${this.narrow.join(',')}]`
    const a = this.answers
    const extra = [
      this.compact ? ' compact' : '',
      this.peek ? ' peek' : '',
      a.approver === undefined ? '' : ` approver=${a.approver}`,
      a.expiryMs === undefined ? '' : ` expiry=${a.expiryMs}ms`,
      ` sampling=${a.sampling} serverForm=${a.serverForm} form=${a.form}`,
    ].join('')
    return `Turn[${calls.join(' ')}] parallel=${this.maxParallel}${narrow}${extra}${show(this.crash)}`
  }
}

/** How another process answers the pending approval. */
export type DecisionKind =
  | 'allow'
  | 'deny'
  | 'twice'
  | 'bad-digest'
  | 'bad-decider'
  | 'expired'
  | 'forge-digest'
  | 'forge-decider'

class Decide implements Command {
  constructor(
    readonly kind: DecisionKind,
    readonly crash: CrashPlan | undefined,
    readonly settle: Settle,
  ) {}
  check = applies
  async run(m: Model, world: World): Promise<void> {
    // The decider is another program (an approval UI): its crash restarts nobody's agent.
    const proc = await world.open(this.crash)
    try {
      const [pending] = pendingApprovals(proc.session)
      if (pending === undefined) return
      const { callId, argumentsDigest: digest } = pending
      const tampered = digest.replace(/^./, (c) => (c === '0' ? '1' : '0'))
      const count = proc.session.events().length
      const by = (decision: 'allowed-once' | 'denied', who: string, d: string, now?: number) =>
        decideApproval(
          proc.session,
          callId,
          { decision, by: who, digest: d },
          now === undefined ? {} : { now },
        )
      const refused = async (attempt: Promise<unknown>, code: string, appended: number) => {
        const outcome = await attempt.then(
          () => 'accepted',
          (error: { code?: string }) => error.code,
        )
        if (proc.crashed()) return
        const added = proc.session.events().length - count
        if (outcome !== code || added !== appended)
          m.findings.push({
            rule: 'decision-rule',
            detail: `decide ${this.kind} on ${callId}: ${outcome}, ${added} events appended (expected ${code}, ${appended})`,
          })
      }
      const forge = (d: string, who: string) =>
        proc.session
          .append('approval/decided', {
            turn: pending.turn,
            step: pending.step,
            callId,
            name: pending.name,
            outcome: 'allowed-once',
            argumentsDigest: d,
            by: who,
          })
          .catch(() => {})
      // A decision the rule refused (the ask expired, F2.6) decides nothing.
      const unless = (error: { code?: string }) => {
        if (error.code === 'APPROVAL_REFUSED') world.decisions.delete(callId)
      }
      if (this.kind === 'allow' || this.kind === 'twice') {
        world.decisions.set(callId, 'allowed-once')
        await by('allowed-once', 'alice', digest).catch(unless)
        if (this.kind === 'twice' && world.decisions.has(callId))
          await refused(by('denied', 'bob', digest), 'APPROVAL_CONFLICT', 1)
      } else if (this.kind === 'deny') {
        world.decisions.set(callId, 'rejected')
        await by('denied', 'bob', digest).catch(unless)
      } else if (this.kind === 'bad-digest') {
        await refused(by('allowed-once', 'alice', tampered), 'APPROVAL_REFUSED', 0)
      } else if (this.kind === 'bad-decider') {
        await refused(by('allowed-once', 'mallory', digest), 'APPROVAL_REFUSED', 0)
      } else if (this.kind === 'expired') {
        // Decided after expiresAt: recorded as expired (F2.6), so the call is denied.
        await refused(
          by('allowed-once', 'alice', digest, Date.parse(pending.expiresAt) + 1),
          'APPROVAL_REFUSED',
          1,
        )
      } else if (this.kind === 'forge-digest') {
        await forge(tampered, 'alice')
      } else {
        await forge(digest, 'mallory')
      }
    } finally {
      await proc.close()
    }
    await this.settle(m, world)
  }
  toString() {
    return `Decide(${this.kind})${show(this.crash)}`
  }
}

/** A decision by the rule from a real child process (the approval UI of another program). */
class DecideInChild implements Command {
  constructor(
    readonly deny: boolean,
    readonly settle: Settle,
  ) {}
  check = applies
  async run(m: Model, world: World): Promise<void> {
    const printed = await world.decideInChild(
      this.deny ? 'denied' : 'allowed-once',
      this.deny ? 'bob' : 'alice',
    )
    if (printed.outcome !== undefined)
      world.decisions.set(printed.callId!, this.deny ? 'rejected' : 'allowed-once')
    else if (printed.none !== true && printed.expired !== true)
      m.findings.push({ rule: 'decision-rule', detail: `the decider process was refused: ${printed.code}` })
    await this.settle(m, world)
  }
  toString() {
    return `DecideInChild(${this.deny ? 'deny' : 'allow'})`
  }
}

class Resume implements Command {
  constructor(
    readonly crash: CrashPlan | undefined,
    readonly settle: Settle,
  ) {}
  check = applies
  async run(m: Model, world: World): Promise<void> {
    const proc = await world.open(this.crash)
    try {
      // A resume whose first write fails rejects with it (F1.6); only a dead process may.
      const outcome = await bounded(world.agent(proc, replies()).resume(), 'a resume').catch(
        (error: unknown) => {
          if (!proc.crashed()) throw error
        },
      )
      if (outcome?.reason === 'error' && !proc.crashed())
        m.findings.push({
          rule: 'turn-failed-without-crash',
          detail: `resumed turn ${outcome.turn} ended with an error though no process died: ${outcome.error}`,
        })
    } finally {
      await world.finish(proc)
    }
    await this.settle(m, world)
  }
  toString() {
    return `Resume${show(this.crash)}`
  }
}

/** The tool-call ids of `events`' assistant messages. */
const blockIds = (events: readonly SessionEvent[]) =>
  events.flatMap((e) =>
    e.type === 'assistant/message'
      ? e.data.content.flatMap((b) => (b.type === 'tool-call' ? [b.id] : []))
      : [],
  )

class Fork implements Command {
  constructor(
    readonly point: number,
    readonly crash: CrashPlan | undefined,
    readonly settle: Settle,
  ) {}
  check = applies
  async run(m: Model, world: World): Promise<void> {
    const source = world.current
    const events = await world.events(source)
    const at = Math.round(this.point * events.length)
    const id = world.forkId(source)
    world.collectMcp()
    const asks = world.serverAsks
    const proc = await world.open(this.crash)
    try {
      const fork = await forkSession(proc.store, source, { at, id })
      await fork.close()
    } catch (error) {
      if (!proc.crashed()) throw error
    } finally {
      await proc.close()
    }
    // A fork whose making died before its first write landed is not there: the program goes on with the source.
    if ((await world.events(id)).length === 0) return this.settle(m, world)
    world.sessions.push(id)
    for (const [key, tools] of [...world.narrowing]) {
      if (key.startsWith(`${source}#`)) world.narrowing.set(`${id}#${key.slice(source.length + 1)}`, tools)
    }
    world.current = id
    if (proc.crashed()) await world.recover()
    const forked = await world.events(id)
    world.copied.set(id, new Set(blockIds(forked)))
    m.findings.push(...forkRequestViolations(id, events, forked, world.serverAsks - asks))
    if (suspendedTurn(forked) !== undefined)
      m.findings.push({
        rule: 'fork-keeps-suspended-turn',
        detail: `fork ${id} of ${source} at seq ${at} keeps a turn suspended on a durable approval`,
      })
    await this.settle(m, world)
  }
  toString() {
    return `Fork(${this.point})${show(this.crash)}`
  }
}

const secret = oneIn(6)
const nested = fc.array(fc.record({ tool: fc.constantFrom(...TOOLS), secret }), {
  minLength: 1,
  maxLength: 3,
})
const call: fc.Arbitrary<CallPlan> = fc.record({
  tool: fc.constantFrom<ToolName | 'run_code'>(...TOOLS, 'pay', 'look', 'mcp__tally__consult', 'run_code'),
  secret,
  nested,
})

/** The command arbitraries, each calling `settle` when it is done. */
export function commandArbitraries(settle: Settle): fc.Arbitrary<Command>[] {
  const turn = fc
    .record({
      calls: fc.array(call, { minLength: 1, maxLength: 5 }),
      narrow: fc.option(fc.subarray([...TOOLS], { minLength: 1 }), { nil: undefined, freq: 3 }),
      maxParallel: fc.integer({ min: 1, max: 4 }),
      compact: fc.boolean(),
      peek: oneIn(8),
      answers,
      crash,
    })
    .map((t) => new Turn(t.calls, t.narrow, t.maxParallel, t.compact, t.peek, t.answers, t.crash, settle))
  const decision = fc
    .record({
      kind: fc.constantFrom<DecisionKind>(
        'allow',
        'allow',
        'deny',
        'twice',
        'bad-digest',
        'bad-decider',
        'expired',
        'forge-digest',
        'forge-decider',
      ),
      crash: fc.option(fc.record({ at: fc.constant(1), written: fc.boolean() }), { nil: undefined, freq: 4 }),
    })
    .map((d) => new Decide(d.kind, d.crash, settle))
  const resume = crash.map((c) => new Resume(c, settle))
  const elsewhere = fc.boolean().map((deny) => new DecideInChild(deny, settle))
  const forkCrash = fc.option(fc.record({ at: fc.integer({ min: 1, max: 3 }), written: fc.boolean() }), {
    nil: undefined,
  })
  const fork = fc
    .record({ point: fc.integer({ min: 0, max: 20 }), crash: forkCrash })
    .map((f) => new Fork(f.point / 20, f.crash, settle))
  const expire = fc
    .record({ race: fc.boolean(), delayMs: fc.integer({ min: 0, max: 30 }), crash })
    .map((e) => new Expire(e.race, e.delayMs, e.crash, settle))
  return [turn, turn, turn, decision, decision, elsewhere, resume, resume, fork, expire, expire]
}
