/**
 * The world the seams model test (V1.9) drives: the CLI's toolset (its secrets guard, mode
 * `both` for Code Mode on the real QuickJS sandbox) with tools that count their real side
 * effects, a tool imported from a real MCP server in its own process, and per run a SQLite file
 * whose sessions are written by short-lived "processes" (a fresh store object each, with a crash
 * injected at a chosen durable write). Everything a tool body does is recorded as an `Effect`,
 * attributed to the session the world is working on, for the invariants to judge.
 */
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ApprovalRequest, RuntimeScope, ToolRuntime } from '@tooltx/core'
import { type ElicitQuestion, type McpToolSet, mcpTools, type SampleQuestion } from '@tooltx/mcp'
import { quickjsRuntime } from '@tooltx/sandbox'
import { openSession, type Session, type SessionEvent, type SessionStore, sqliteStore } from '@tooltx/session'
import { createToolset } from '../../cli/src/toolset.js'
import {
  type Agent,
  createAgent,
  type Elicitor,
  type Sampler,
  type ScriptedStep,
  scripted,
} from '../src/index.js'
import { type CrashPlan, crashingStore } from './crash-store.js'
import { answerForm, type Effect, type FormAnswer, registerTools } from './seams-tools.js'

export type { Effect } from './seams-tools.js'

/** The tools the model may call by name (`run_code` aside). */
export const TOOLS = [
  'look',
  'stamp',
  'pay',
  'log',
  'form',
  'mcp__tally__tally',
  'mcp__tally__consult',
] as const
export type ToolName = (typeof TOOLS)[number]

/** Who may decide a durable approval. */
export const DECIDERS = ['alice', 'bob'] as const

/** A decision the in-process approver made about a server's request (Y2.32, Y2.36). */
export interface ServerDecision {
  readonly session: string
  readonly name: string
  readonly outcome: 'allowed-once' | 'rejected'
}

/** The agent's answers to the MCP server's requests, set by the agent a process runs (Y2.30, Y2.35). */
interface Host {
  readonly sampler: Sampler
  readonly elicitor: Elicitor<ElicitQuestion>
}

/** What every run shares: one runtime, one sandbox, one MCP server process. */
export interface Shared {
  readonly runtime: ToolRuntime
  readonly scope: RuntimeScope
  readonly codeRuntime: ReturnType<typeof quickjsRuntime>
  readonly mcp: McpToolSet
  /** The MCP server's ledger: one `<id> <file>` line per run of its `tally` body, `<id> consult …` of `consult`. */
  readonly ledger: string
  /** The world tool bodies report to (the run in progress). */
  world: World | undefined
  close(): Promise<void>
}

/** Builds the shared runtime and starts the MCP server; `close()` stops both. */
export async function startShared(): Promise<Shared> {
  const root = await mkdtemp(join(tmpdir(), 'tooltx-seams-root-'))
  const ledger = join(root, 'mcp-ledger')
  writeFileSync(ledger, '')
  const { runtime, scope } = createToolset({ root, mode: 'both', reportError: () => {} })
  const shared: Shared = {
    runtime,
    scope,
    codeRuntime: quickjsRuntime({ wallMs: 20_000 }),
    mcp: await mcpTools(
      {
        command: process.execPath,
        args: [fileURLToPath(new URL('./fixtures/tally-server.mjs', import.meta.url)), ledger],
      },
      {
        name: 'tally',
        // The server's requests go to the agent of the process running now, as its own
        // `mcpTools(…, { onSample: agent.sampler(), onElicit: agent.elicitor() })` would.
        onSample: (question: SampleQuestion) => host().sampler(question),
        onElicit: (question: ElicitQuestion) => host().elicitor(question),
      },
    ),
    ledger,
    world: undefined,
    async close() {
      await shared.mcp.close()
      await shared.codeRuntime.close()
      await rm(root, { recursive: true, force: true })
    },
  }
  const host = (): Host => {
    const world = shared.world
    if (world?.host === undefined) throw new Error('no agent runs')
    world.serverAsks++
    return world.host
  }
  registerTools(runtime, scope, (effect) => shared.world?.record(effect))
  shared.mcp.register(scope)
  return shared
}

/** One process's hold on the session: its store (with the crash plan) and its open session. */
export interface Proc {
  readonly session: Session
  /** The process's store object (a second handle on it shares its lease, L14.1). */
  readonly store: SessionStore
  crashed(): boolean
  /** Closes the session and the store, whatever state a crash left them in. */
  close(): Promise<void>
}

/** What the decider process printed: the decision recorded, the refusal's code, or nothing pending. */
export interface ChildDecision {
  readonly none?: true
  readonly callId?: string
  readonly outcome?: string
  readonly code?: string
  /** The ask had expired when the decider read it: its refusal is the rule's (F2.6). */
  readonly expired?: true
}

/** Per-call settings of a process's agent. */
export interface AgentPlan {
  readonly maxParallel?: number
  /** A small `clear-tool-results` budget, so compaction happens at random steps. */
  readonly compact?: boolean
  /** An in-process approver answering every ask so (L8), in place of durable approvals. */
  readonly approver?: 'allowed-once' | 'rejected'
  /** Durable asks expire after this many milliseconds (F2.1), so an `Expire` can pass them. */
  readonly expiryMs?: number
  /** `agent.sampler`'s policy (Y2.31; default `'allow'`). */
  readonly sampling?: 'ask' | 'allow' | 'deny'
  /** How `agent.elicitor` answers a server's form: the approver (Y2.36) or a handler (default accept). */
  readonly serverForm?: FormAnswer | 'approver'
  /** How the agent's `onElicit` answers a tool body's form (P8.20; default accept). */
  readonly form?: FormAnswer
}

/** One run of the model: a temp dir with a SQLite file and the sessions written to it. */
export class World {
  readonly effects: Effect[] = []
  /** Every session of the run, the first one and its forks, in creation order. */
  readonly sessions: string[] = ['seams']
  /** Per fork: the tool-call ids it copied from its source. */
  readonly copied = new Map<string, ReadonlySet<string>>()
  /** `prepareStep` narrowing per `<session>#<turn>`: the tools offered, or none recorded. */
  readonly narrowing = new Map<string, readonly string[]>()
  /** Decisions made through `decide` that the decision rule allows, by call id. */
  readonly decisions = new Map<string, 'allowed-once' | 'rejected'>()
  current = 'seams'
  /** Every decision the in-process approver made about a server's request. */
  readonly serverDecisions: ServerDecision[] = []
  /** How many requests the MCP server made of the agents (counted as they arrive). */
  serverAsks = 0
  /** The agent of the process running now answers the server's requests. */
  host: Host | undefined
  /** How many processes died at an injected crash. */
  crashes = 0
  #answers = 0
  #ids = 0
  #forks = 0
  #ledgerRead = 0
  private constructor(
    readonly shared: Shared,
    readonly dir: string,
    readonly run: number,
  ) {}

  static async create(shared: Shared, run: number): Promise<World> {
    const dir = await mkdtemp(join(tmpdir(), 'tooltx-seams-'))
    const world = new World(shared, dir, run)
    world.#ledgerRead = readFileSync(shared.ledger, 'utf8').length
    shared.world = world
    return world
  }

  get path(): string {
    return join(this.dir, 'sessions.db')
  }

  /** A fresh id for a fork of `source` (a fork whose making crashed may leave its id taken). */
  forkId(source: string): string {
    return `${source}.f${++this.#forks}`
  }

  /** A fresh call id, unique across the run's sessions (so a second run of it is visible). */
  nextId(): string {
    return `r${this.run}c${++this.#ids}`
  }

  record(effect: Omit<Effect, 'session'>): void {
    this.effects.push({ ...effect, session: this.current })
  }

  /** Attributes the MCP server's new ledger lines of this run to the current session. */
  collectMcp(): void {
    const text = readFileSync(this.shared.ledger, 'utf8')
    const fresh = text.slice(this.#ledgerRead)
    this.#ledgerRead = text.length
    for (const line of fresh.split('\n')) {
      const [id, file, sampled, answered] = line.split(' ')
      if (id === undefined || file === undefined || !id.startsWith(`r${this.run}c`)) continue
      if (file === 'consult' && sampled !== undefined && answered !== undefined)
        this.effects.push({
          tool: 'mcp__tally__consult',
          id,
          session: this.current,
          args: { id, sampled, answered },
        })
      else this.effects.push({ tool: 'mcp__tally__tally', id, session: this.current, args: { id, file } })
    }
  }

  /** Opens the current session in a new "process": a fresh store object on the file. */
  async open(crash?: CrashPlan, id = this.current): Promise<Proc> {
    const c = crashingStore(sqliteStore(this.path), crash)
    const session = await openSession(c.store, { id, repair: false, verify: true, checkpointEvery: 5 })
    return {
      session,
      store: c.store,
      crashed: c.crashed,
      async close() {
        await session.close().catch(() => {})
        await c.store.close()
      },
    }
  }

  /** An agent in `proc` as every process of the program builds it, answering from `steps`. */
  agent(proc: Proc, steps: readonly ScriptedStep[], plan: AgentPlan = {}): Agent {
    const session = this.current
    const answer = (how: FormAnswer, request: Parameters<typeof answerForm>[1]) =>
      answerForm(how, request, ++this.#answers)
    const approval =
      plan.approver === undefined
        ? {
            approvals: {
              mode: 'durable' as const,
              deciders: [...DECIDERS],
              ...(plan.expiryMs === undefined ? {} : { expiresAfterMs: plan.expiryMs }),
            },
          }
        : { approver: (request: ApprovalRequest) => this.#approve(session, request, plan.approver!) }
    const agent = createAgent({
      runtime: this.shared.runtime,
      scope: this.shared.scope,
      session: proc.session,
      model: scripted(steps),
      codeRuntime: this.shared.codeRuntime,
      ...approval,
      onElicit: (request) => answer(plan.form ?? 'accept', request),
      maxParallelToolCalls: plan.maxParallel ?? 4,
      // The same program in every process: the narrowing of a turn is a function of the turn.
      prepareStep: ({ turn }) => {
        const tools = this.narrowing.get(`${session}#${turn}`)
        return tools === undefined ? undefined : { tools: [...tools] }
      },
      ...(plan.compact ? { context: { maxTokens: 600, strategy: 'clear-tool-results' as const } } : {}),
    })
    const serverForm = plan.serverForm ?? 'accept'
    this.host = {
      // A model of its own, so the server's completions leave the turn's script alone.
      sampler: agent.sampler({ policy: plan.sampling ?? 'allow', model: scripted(replies(64)) }),
      elicitor: agent.elicitor<ElicitQuestion>(
        serverForm === 'approver' ? {} : { answer: (request) => answer(serverForm, request) },
      ),
    }
    return agent
  }

  /** The in-process approver: answers `outcome`, noting what it allowed (a `pay`) or decided (a server's request). */
  #approve(session: string, request: ApprovalRequest, outcome: 'allowed-once' | 'rejected') {
    if (request.name.includes('/')) this.serverDecisions.push({ session, name: request.name, outcome })
    else if (request.name === 'pay')
      this.decisions.set(String((request.arguments as { id?: unknown }).id), outcome)
    return outcome
  }

  /**
   * Ends `proc`; when it crashed, a new process reopens the session without repair and lets a
   * fresh agent recover it (F1.4, F1.6), as a restarted program would.
   */
  async finish(proc: Proc): Promise<void> {
    const crashed = proc.crashed()
    await proc.close()
    if (!crashed) return
    this.crashes++
    await this.recover()
  }

  /** A restarted program: a new process opens the session without repair and an agent recovers it. */
  async recover(): Promise<void> {
    const again = await this.open()
    try {
      await bounded(this.agent(again, replies()).resume(), 'recovery after a crash')
    } finally {
      await again.close()
    }
  }

  /**
   * Decides the pending durable approval of the current session by the rule in a real child
   * process (`fixtures/decide-process.mjs`, on the built packages) and returns what it printed.
   */
  async decideInChild(decision: 'allowed-once' | 'denied', by: string): Promise<ChildDecision> {
    const script = fileURLToPath(new URL('./fixtures/decide-process.mjs', import.meta.url))
    const { stdout } = await promisify(execFile)(process.execPath, [
      script,
      this.path,
      this.current,
      decision,
      by,
    ])
    return JSON.parse(stdout) as ChildDecision
  }

  /** The durable events of `id`, read through a store object of their own. */
  async events(id: string): Promise<readonly SessionEvent[]> {
    const store = sqliteStore(this.path)
    try {
      return await store.load(id)
    } finally {
      await store.close()
    }
  }

  async close(): Promise<void> {
    if (this.shared.world === this) this.shared.world = undefined
    await rm(this.dir, { recursive: true, force: true })
  }
}

/** Text replies, for the steps a resumed or recovered turn still asks the model for. */
export const replies = (n = 4): ScriptedStep[] => Array.from({ length: n }, () => ({ text: 'done' }))

/** `promise`, or a rejection naming `what` when it takes longer than 20 s (a hang is a defect). */
export function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle in 20 s`)), 20_000)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** The number the next turn of `events` gets. */
export function nextTurn(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if (e.type === 'turn/start') return e.data.turn + 1
  }
  return 1
}
