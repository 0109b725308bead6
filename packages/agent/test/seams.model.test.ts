/**
 * V1.9–V1.14: a model-based test that composes the features at random and checks the SPEC's
 * invariants after every command. Each run is a fresh SQLite file, written by short-lived
 * "processes" (a fresh store object each; the MCP server is a real process, started once for
 * the file): turns with parallel batches, Code Mode sub-calls on the real QuickJS sandbox and
 * a tool imported from the MCP server, under the CLI's secrets guard, a random `prepareStep`
 * narrowing and compaction; durable asks decided, refused or forged by another process (a real
 * child process for some decisions); resumes; forks at random events; a second handle on the
 * live turn's store object; and a crash at a chosen durable write of any process (before or
 * after the write lands), after which a new process reopens the session without repair and
 * recovers it.
 *
 * After every command: every call has exactly one result, in model order, and no turn is left
 * open unless suspended; no turn failed unless a process died; an interrupted read was re-run
 * on recovery; no side effect ran twice (counted in the tool bodies and the MCP server's
 * ledger); no write ran without a decision `decide` made by the rule (digest, deciders, expiry,
 * first decision wins), and `decide` refused the rest; no body ran with a protected path in any
 * argument; no body ran for a tool its step's `prepareStep` left out, and nobody was asked about
 * one (P4.11, T4.8); and a fork never re-ran,
 * or kept waiting, what it copied from its source.
 *
 * Today's features join in (V1.11–V1.14): a tool body asks a form (`run.elicit`, answered by the
 * agent's `onElicit`: accept, decline, cancel or a throw); the MCP server's `consult` asks a
 * completion and/or a form during an imported call, answered by `agent.sampler({ policy })` and
 * `agent.elicitor()` (a handler or the approver), with an in-process approver (allow or reject)
 * or durable approvals; durable asks expire in 40 ms and `Expire` resumes the turn after the
 * expiry, racing a person's decision from a child process. After every command: each
 * `server/request` lies in its open step, after the call it names began and before its result;
 * every answer the server got is recorded; every decision the in-process approver made of a
 * server request is recorded unless its process died; a fork copies requests and asks nothing
 * again; no form answer's value is in any log; an expired ask is decided once and its call
 * never runs and ends DENIED; and every session opens again with its log checked.
 *
 * Runs: `TOOLTX_MBT_RUNS` (default 100, 25–75 s on a loaded 2-core machine, 300 about 90 s;
 * a nightly run takes e.g. 1000, about 3 minutes). `TOOLTX_MBT_SEED` picks the sequences: by
 * default the fixed `CI_SEED`, so `npm test` judges the same sequences on every run; `random`
 * for a new seed each run (the exploring, nightly-style run); or the seed fast-check printed
 * for a failure, to generate its sequences again (with at least as many runs as the failure's).
 * A random run found a hang in recovery after a failed write, since fixed and pinned by
 * approvals.resume-write.test.ts; `TOOLTX_MBT_SEED=159551890 TOOLTX_MBT_RUNS=16` replays it.
 * The default seed found an expired ask answered `TOOL_OUTCOME_UNKNOWN` after a crash past
 * `turn/resumed` (F2.16) and a random one a session left unrecoverable by an ask a crash left
 * open (F2.17), both pinned by approvals.recovery-asks.test.ts.
 * `TOOLTX_MBT_SHRINK=0` to stop at the first failure unshrunk. Any broken rule fails the test
 * with the command sequence fast-check shrank it to and each violation as `[rule] what broke
 * it`. The MCP server and the decider process run the built packages (`npm run build` first, as
 * `npm test` does).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandArbitraries } from './seams-commands.js'
import {
  effectViolations,
  logViolations,
  type Model,
  narrowedAskViolations,
  recoveryViolations,
  type Settle,
} from './seams-invariants.js'
import { reopenViolations, serverViolations } from './seams-server-invariants.js'
import { type Shared, startShared, World } from './seams-world.js'

const RUNS = Number(process.env.TOOLTX_MBT_RUNS ?? 100)
/** The seed `npm test` runs by default: the same sequences every run, so CI judges the code, not the draw. */
const CI_SEED = 20261202
const chosen = process.env.TOOLTX_MBT_SEED ?? String(CI_SEED)
const SEED = chosen === 'random' ? undefined : Number(chosen)

/** What the runs exercised, reported at the end: events by type, effects by tool, crashes. */
const tally = new Map<string, number>()
const count = (key: string, n = 1) => tally.set(key, (tally.get(key) ?? 0) + n)

async function countRun(world: World): Promise<void> {
  count('runs')
  count('crashes', world.crashes)
  for (const id of world.sessions) {
    for (const e of await world.events(id)) {
      if (e.type === 'turn/end') count(`turn/end ${e.data.reason}`)
      else if (e.type === 'tool/result' && e.data.error) count(`result ${e.data.error.code}`)
      else if (e.type === 'server/request') count(`${e.data.kind} ${e.data.outcome} by ${e.data.by}`)
      else if (e.type === 'approval/decided') count(`decided ${e.data.outcome}`)
      else if (!e.type.startsWith('step/') && !e.type.endsWith('message')) count(e.type)
    }
  }
  for (const e of world.effects) count(`ran ${e.tool}`)
}

const settle: Settle = async (m, world) => {
  world.collectMcp()
  const logs = new Map(
    await Promise.all(world.sessions.map(async (id) => [id, await world.events(id)] as const)),
  )
  const found = [
    ...m.findings.splice(0),
    ...[...logs].flatMap(([id, events]) => [
      ...logViolations(id, events),
      ...narrowedAskViolations(id, events, world),
      ...recoveryViolations(id, events, world),
    ]),
    ...effectViolations(world, logs),
    ...serverViolations(world, logs),
    ...(await reopenViolations(world)),
  ]
  if (found.length === 0) return
  throw new Error(`invariants broken:\n${found.map((v) => `  [${v.rule}] ${v.detail}`).join('\n')}`)
}

describe('V1.9 the promises hold where features meet (model-based, crashes at every durable write)', () => {
  let shared: Shared
  beforeAll(async () => {
    shared = await startShared()
  })
  afterAll(async () => {
    await shared?.close()
    const sorted = [...tally].sort(([a], [b]) => a.localeCompare(b))
    console.info(`seams: ${sorted.map(([k, n]) => `${k}: ${n}`).join(', ')}`)
  })

  it(
    'V1.9, V1.10, V1.11, V1.12, V1.13, V1.14: random turns, forms, server requests, decisions, expiries, resumes, forks and crashes keep every call answered once, every effect once, every decision, guard and request recorded, no form value logged',
    async () => {
      let run = 0
      await fc.assert(
        fc.asyncProperty(
          fc.commands(commandArbitraries(settle), { maxCommands: 12, size: 'large' }),
          async (commands) => {
            const world = await World.create(shared, ++run)
            try {
              const model: Model = { findings: [] }
              await fc.asyncModelRun(() => ({ model, real: world }), commands)
              await countRun(world)
            } finally {
              await world.close()
            }
          },
        ),
        {
          numRuns: RUNS,
          ...(SEED === undefined ? {} : { seed: SEED }),
          endOnFailure: process.env.TOOLTX_MBT_SHRINK === '0',
        },
      )
      expect(run).toBeGreaterThanOrEqual(RUNS)
    },
    Math.max(120_000, RUNS * 20_000),
  )
})
