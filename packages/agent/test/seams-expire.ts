/**
 * The `Expire` command of the seams model test (V1.14): a durable ask's expiry passes (the
 * turns that ask with a 40 ms expiry), then a restarted program resumes the turn — racing, when
 * drawn, a person's decision from a real child process — and the ask must end decided once,
 * `'expired'`, its call denied and never run (F2.6, N2.21, N2.23).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { SessionEvent } from '@tooltx/session'
import type fc from 'fast-check'
import { pendingApprovals } from '../src/index.js'
import type { CrashPlan } from './crash-store.js'
import type { Model, Settle } from './seams-invariants.js'
import { bounded, type ChildDecision, type Proc, replies, type World } from './seams-world.js'

/** A pending ask further than this from its expiry is a 24-hour one: nothing expires in a run. */
const SHORT_MS = 2_000

/** Opens the current session, waiting while another process (the decider) holds it (L14.1). */
async function openWhenFree(world: World, crash: CrashPlan | undefined): Promise<Proc> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await world.open(crash)
    } catch (error) {
      if (attempt === 200) throw error
      await sleep(25)
    }
  }
}

const decisionsOf = (events: readonly SessionEvent[], callId: string) =>
  events.flatMap((e) => (e.type === 'approval/decided' && e.data.callId === callId ? [e.data] : []))

export class Expire implements fc.AsyncCommand<Model, World> {
  constructor(
    readonly race: boolean,
    readonly delayMs: number,
    readonly crash: CrashPlan | undefined,
    readonly settle: Settle,
  ) {}
  check = () => true
  async run(m: Model, world: World): Promise<void> {
    const [pending] = pendingApprovals(await world.events(world.current))
    const wait = pending === undefined ? Number.POSITIVE_INFINITY : Date.parse(pending.expiresAt) - Date.now()
    if (pending === undefined || wait > SHORT_MS) return this.settle(m, world)
    await sleep(Math.max(0, wait) + 1)
    const { callId } = pending
    const bad = (detail: string) => m.findings.push({ rule: 'expired-ask', detail: `${callId}: ${detail}` })
    // A person approves at the same time; the session's lease lets one of the two in at a time.
    const deciding: Promise<ChildDecision | undefined> = this.race
      ? world.decideInChild('allowed-once', 'alice').catch(() => undefined)
      : Promise.resolve(undefined)
    await sleep(this.delayMs)
    const proc = await openWhenFree(world, this.crash)
    try {
      // A resume whose first write fails rejects with it (F1.6); only a dead process may.
      const outcome = await bounded(world.agent(proc, replies()).resume(), 'a resume after the expiry').catch(
        (error: unknown) => {
          if (!proc.crashed()) throw error
        },
      )
      if (outcome?.reason === 'error' && !proc.crashed())
        bad(`the resumed turn ended with an error though no process died: ${outcome.error}`)
      if (outcome?.reason === 'suspended' && outcome.pending?.some((p) => p.callId === callId))
        bad('the turn still waits on it after its expiry')
    } finally {
      await world.finish(proc)
    }
    const printed = await deciding
    // The resumed turn may have asked again for a later call: the person decided that one.
    if (printed?.outcome !== undefined && printed.callId !== callId)
      world.decisions.set(printed.callId!, 'allowed-once')
    else if (printed?.outcome !== undefined)
      bad(`a decision made after the expiry was recorded: ${printed.outcome}`)
    const decided = decisionsOf(await world.events(world.current), callId)
    if (decided.length !== 1 || decided[0]!.outcome !== 'expired')
      bad(`decided [${decided.map((d) => d.outcome).join(', ')}], not once as expired`)
    await this.settle(m, world)
  }
  toString() {
    const crash =
      this.crash === undefined ? '' : ` crash@${this.crash.at}${this.crash.written ? '+written' : ''}`
    return `Expire(${this.race ? `race ${this.delayMs}ms` : 'alone'})${crash}`
  }
}
