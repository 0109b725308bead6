/**
 * What the loop tests share: a real SQLite session in a temp dir, a runtime with a scope, a
 * small set of tools whose bodies record when they start and end and wait on gates the test
 * opens, and a compact rendering of the session log so a test can assert the exact sequence.
 * Each test opens its own rig, closed when that test finishes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type Agent,
  type AgentOptions,
  createAgent,
  type ScriptedModel,
  type ScriptedStep,
  type ScriptedToolCall,
  scripted,
} from '@tooltx/agent'
import { type AnyToolDefinition, createToolRuntime, defineTool, type ToolDefinition } from '@tooltx/core'
import {
  memoryStore,
  type NewSessionEvent,
  openSession,
  type Session,
  type SessionEvent,
  type SessionStore,
  sqliteStore,
} from '@tooltx/session'
import { it as base, onTestFinished } from 'vitest'

/** A promise with its resolver, for bodies that wait until the test lets them go. */
export interface Gate {
  readonly promise: Promise<void>
  open(): void
}

function gate(): Gate {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

/** Gates by key, created on first use by either side. */
export class Gates {
  readonly #gates = new Map<string, Gate>()
  get(key: string): Gate {
    let g = this.#gates.get(key)
    if (g === undefined) {
      g = gate()
      this.#gates.set(key, g)
    }
    return g
  }
  open(key: string): void {
    this.get(key).open()
  }
}

/** Waits on `promise` until `signal` aborts; resolves `false` then, `true` otherwise. */
function until(promise: Promise<void>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = () => resolve(false)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    })
  })
}

/** A tool output that is a string, shown to the model as one text block. */
export const textOutput = {
  schema: { type: 'string' },
  render: (_: unknown, v: string) => [{ type: 'text', text: v }],
} as const

/** A fresh runtime and its scope, with `tools` registered on the scope. */
export function scopeWith(...tools: AnyToolDefinition[]) {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  for (const tool of tools) scope.register(tool)
  return { runtime, scope }
}

/** Everything a loop test works with. */
export interface Rig {
  readonly runtime: ReturnType<typeof createToolRuntime>
  readonly scope: ReturnType<ReturnType<typeof createToolRuntime>['scope']>
  readonly session: Session
  readonly store: SessionStore
  readonly path: string
  /** `start <id>` and `end <id>` lines from the tool bodies, in the order they happened. */
  readonly trace: string[]
  readonly gates: Gates
  /** Reopens the same SQLite file with a fresh store (what a restart sees). */
  reopen(): Promise<Session>
  /** Closes the session and every store opened, and removes the temp dir; once, whoever calls. */
  close(): Promise<void>
}

/**
 * Tools registered on the rig's scope:
 * - `wait {id}`: concurrency-safe; waits for gate `id` (or an abort) and returns `done <id>`.
 * - `write {id}`: exclusive; waits for gate `id` the same way.
 * - `echo {id}`: concurrency-safe; returns at once.
 * - `note {id, text}`: concurrency-safe; defers `text` as a context, returns at once.
 * - `finish {id}`: concurrency-safe; concludes the turn.
 * - `slow {id}`: concurrency-safe, `timeoutMs: 5`; waits for its gate or its signal.
 * `store` picks the session store: a SQLite file in a temp dir (default), memory, or a store
 * built over that SQLite path (for fault injection). Call it inside a test: the rig is closed
 * when the test finishes.
 */
export async function rig(
  options: { store?: 'sqlite' | 'memory' | ((path: string) => SessionStore) } = {},
): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'tooltx-loop-'))
  const path = join(dir, 'sessions.db')
  const which = options.store ?? 'sqlite'
  const store = which === 'sqlite' ? sqliteStore(path) : which === 'memory' ? memoryStore() : which(path)
  const session = await openSession(store, { id: 'loop', verify: true })
  const runtime = createToolRuntime({ reportError: () => {} })
  const scope = runtime.scope()
  const trace: string[] = []
  const gates = new Gates()
  const waiting = async (id: string, signal: AbortSignal) => {
    trace.push(`start ${id}`)
    const opened = await until(gates.get(id).promise, signal)
    trace.push(`end ${id}`)
    return opened ? `done ${id}` : `stopped ${id}`
  }
  const params = { id: { type: 'string', required: true } } as const
  scope.register(
    defineTool({
      name: 'wait',
      description: 'Waits for its gate.',
      parameters: params,
      output: textOutput,
      isConcurrencySafe: () => true,
      execute: (args, run) => waiting(args.id, run.signal),
    }),
  )
  scope.register(
    defineTool({
      name: 'write',
      description: 'An exclusive call that waits for its gate.',
      parameters: params,
      output: textOutput,
      execute: (args, run) => waiting(args.id, run.signal),
    }),
  )
  scope.register(
    defineTool({
      name: 'echo',
      description: 'Returns at once.',
      parameters: params,
      output: textOutput,
      isConcurrencySafe: () => true,
      execute: (args) => {
        trace.push(`start ${args.id}`, `end ${args.id}`)
        return `echo ${args.id}`
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'note',
      description: 'Defers a context.',
      parameters: { id: { type: 'string', required: true }, text: { type: 'string', required: true } },
      output: textOutput,
      isConcurrencySafe: () => true,
      execute: (args, run) => {
        run.deferContext(args.text)
        return `noted ${args.id}`
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'finish',
      description: 'Concludes the turn.',
      parameters: params,
      output: textOutput,
      isConcurrencySafe: () => true,
      execute: (args, run) => {
        run.concludeTurn()
        return `finished ${args.id}`
      },
    }),
  )
  scope.register(
    defineTool({
      name: 'slow',
      description: 'Times out after 5 ms unless its gate opens first.',
      parameters: params,
      output: textOutput,
      isConcurrencySafe: () => true,
      timeoutMs: 5,
      execute: (args, run) => waiting(args.id, run.signal),
    }),
  )
  const opened: SessionStore[] = [store]
  let closing: Promise<void> | undefined
  const close = async () => {
    await session.close()
    for (const s of opened) await s.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const r: Rig = {
    runtime,
    scope,
    session,
    store,
    path,
    trace,
    gates,
    async reopen() {
      const again = sqliteStore(path)
      opened.push(again)
      return openSession(again, { id: 'loop', verify: true })
    },
    close() {
      closing ??= close()
      return closing
    },
  }
  onTestFinished(() => r.close())
  return r
}

/**
 * vitest's `it` with a fixture `r`: a fresh rig from `make` for each test that names `r` in its
 * parameter (`async ({ r }) => …`); a test that does not name it builds none.
 */
export function itWithRig<R>(make: () => Promise<R>) {
  return base.extend<{ r: R }>({
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    r: async ({}, use: (r: R) => Promise<void>) => {
      await use(await make())
    },
  })
}

/** `it` with a fresh default `rig()` as `r` (closed when the test finishes). */
export const it = itWithRig(() => rig())

/** The call ids the rig's pre-execute stage sees, in the order it sees them (a hook that records and goes on). */
export function preExecuted(r: Rig): string[] {
  const seen: string[] = []
  r.runtime.onPreExecute((exec, next) => {
    seen.push(exec.callId)
    return next()
  })
  return seen
}

/** The raw argument string of a call to one of the rig's tools. */
export const args = (id: string, extra: Record<string, string> = {}) => JSON.stringify({ id, ...extra })

/**
 * A scripted call to the rig's tool `name`: call id `c<id>`, arguments `{"id":"<id>", ...extra}`,
 * so `call('wait', '2')` is answered by `tool/result c2` and waits on gate `2`.
 */
export const call = (name: string, id: string, extra: Record<string, string> = {}): ScriptedToolCall => ({
  id: `c${id}`,
  name,
  arguments: args(id, extra),
})

/** An agent over the rig's runtime, scope and session (`options.session` replaces the session). */
export function agentOn(
  r: Rig,
  options: Omit<AgentOptions, 'runtime' | 'scope' | 'session'> & { session?: AgentOptions['session'] },
): Agent {
  return createAgent({ runtime: r.runtime, scope: r.scope, session: r.session, ...options })
}

/**
 * Starts a turn on the rig: an agent over its runtime, scope and session with a scripted model
 * that answers request n with `steps[n]`, sent the user message `go`. `options` adds agent
 * options (or replaces the rig's). Returns at once; the turn runs on its own.
 */
export function go(
  r: Rig,
  steps: readonly ScriptedStep[],
  options: Partial<AgentOptions> = {},
): { agent: Agent; model: ScriptedModel } {
  const model = scripted(steps)
  const agent = agentOn(r, { model, ...options })
  agent.send('go')
  return { agent, model }
}

/**
 * A real SQLite store at `path` whose append rejects with `disk full`, once, for the first
 * batch holding an event that `fails` picks; every other append goes through.
 */
export function failingOnce(path: string, fails: (event: SessionEvent) => boolean): SessionStore {
  const store = sqliteStore(path)
  let failed = false
  return withAppend(store, (id, events) => {
    if (!failed && events.some(fails)) {
      failed = true
      return Promise.reject(new Error('disk full'))
    }
    return store.append(id, events)
  })
}

/** `store` with its `append` replaced by `append`; every other method is the store's own. */
export function withAppend(store: SessionStore, append: SessionStore['append']): SessionStore {
  return {
    acquire: (id) => store.acquire(id),
    load: (id) => store.load(id),
    listSessions: () => store.listSessions(),
    release: (id) => store.release!(id),
    close: () => store.close(),
    append,
  }
}

/**
 * One line per event, with the data a test cares about: `tool/call c1`, `tool/result c1 ok`,
 * `tool/result c2 DENIED`, `user/message "text"`, `turn/end aborted`, `approval/decided c1 rejected`.
 */
export function line(event: SessionEvent): string {
  switch (event.type) {
    case 'tool/call':
      return `tool/call ${event.data.callId}`
    case 'tool/result':
      return `tool/result ${event.data.callId} ${event.data.error?.code ?? 'ok'}`
    case 'user/message': {
      const first = event.data.message.content[0]
      return `user/message ${JSON.stringify(first?.type === 'text' ? first.text : first?.type)}`
    }
    case 'assistant/message': {
      const parts = event.data.content.map((b) => (b.type === 'tool-call' ? b.id : JSON.stringify(b.text)))
      return `assistant/message ${parts.join(' ')}`.trimEnd()
    }
    case 'approval/asked':
      return `approval/asked ${event.data.callId}`
    case 'approval/decided':
      return `approval/decided ${event.data.callId} ${event.data.outcome}`
    case 'turn/end':
      return `turn/end ${event.data.reason}`
    default:
      return event.type
  }
}

/** The first `line`s of a turn on the user message `text`: the opening write (L10.2). */
const opening = (text: string): string[] => [
  'turn/start',
  'step/start',
  `user/message ${JSON.stringify(text)}`,
]

/** The event types of a turn's opening write. */
export const OPENING_TYPES: readonly string[] = ['turn/start', 'step/start', 'user/message']

/**
 * The event types that end a turn whose batch is followed by a text reply: the step boundary,
 * the reply, the closing `step/end` and `turn/end`.
 */
export const CLOSING_TYPES: readonly string[] = [
  'step/end',
  'step/start',
  'assistant/message',
  'step/end',
  'turn/end',
]

/** The first `line`s of a turn that `go` started. */
export const OPENING: readonly string[] = opening('go')

/**
 * The last `line`s of a turn whose batch is followed by the text reply `text`: the step
 * boundary, the reply, the closing `step/end` and `turn/end completed`.
 */
export const closingText = (text: string): string[] => [
  'step/end',
  'step/start',
  `assistant/message ${JSON.stringify(text)}`,
  'step/end',
  'turn/end completed',
]

/**
 * The `line`s of a turn on the user message `text` whose only step failed before its reply was
 * logged: the step closes and the turn ends with an error.
 */
export const failedTurn = (text: string): string[] => [...opening(text), 'step/end', 'turn/end error']

/**
 * The `line`s of a batch of calls `c<id>` (in model order) that all start together and succeed:
 * the reply naming them, a `tool/call` each, then a result each, committed in model order.
 */
export const parallelBatch = (...ids: string[]): string[] => [
  `assistant/message ${ids.map((id) => `c${id}`).join(' ')}`,
  ...ids.map((id) => `tool/call c${id}`),
  ...ids.map((id) => `tool/result c${id} ok`),
]

/** The data of the first `tool/result` in `session`'s log. */
export const firstResult = (session: Session) => session.events().find((e) => e.type === 'tool/result')?.data

/** The session log as `line`s. */
export const lines = (session: Session): string[] => session.events().map(line)

/** The rig's session log as `line`s, once `agent` is idle. */
export async function idleLines(r: Rig, agent: Agent): Promise<string[]> {
  await agent.whenIdle()
  return lines(r.session)
}

/**
 * Resolves once `check()` is true, polling between macrotasks (no timing involved: it only
 * lets pending I/O and promise chains run). Rejects after 2,000 polls with `what`.
 */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (check()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`never happened: ${what}`)
}

/** Every tool-call block of the derived messages has exactly one tool message (L9.6). */
export function answeredOnce(session: Session): boolean {
  const calls: string[] = []
  const answers = new Map<string, number>()
  for (const m of session.messages()) {
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool-call') calls.push(b.id)
    if (m.role === 'tool') answers.set(m.callId, (answers.get(m.callId) ?? 0) + 1)
  }
  return calls.every((id) => answers.get(id) === 1) && [...answers.keys()].every((id) => calls.includes(id))
}

/** A raw tool `bash` (open parameters, no validation) that records what it was run with in `seen`. */
export function bashTool(seen: unknown[]): ToolDefinition {
  return {
    name: 'bash',
    description: 'Runs a command.',
    parameters: { type: 'object' },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
    execute: (a) => {
      seen.push(a)
      return 'ran'
    },
  }
}

/** A tool-call block of an assistant message, as the session logs it. */
export interface CallBlock {
  readonly type: 'tool-call'
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/**
 * The log of a turn a process left after its calls started: `turn/start`, `step/start`, the
 * user message `go`, the assistant message holding `blocks` and a `tool/call` a block, all at
 * turn 1, step 1. A test appends what else the process wrote before it died.
 */
export function calledTurn(blocks: readonly CallBlock[]): NewSessionEvent[] {
  const where = { turn: 1, step: 1 }
  return [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: where },
    {
      type: 'user/message',
      data: { ...where, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } },
    },
    { type: 'assistant/message', data: { ...where, content: blocks } },
    ...blocks.map(
      (b): NewSessionEvent => ({
        type: 'tool/call',
        data: { ...where, callId: b.id, name: b.name, arguments: b.arguments },
      }),
    ),
  ]
}
