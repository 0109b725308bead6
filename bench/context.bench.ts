/**
 * What does the context budget cost per step, and does it grow with history? The budget check
 * before one model request and the counting of one step's new events, on sessions of 1k and
 * 100k events.
 */
import { ContextBudget, resolveContext, scripted } from '@tooltx/agent'
import type { ModelToolSchema } from '@tooltx/core'
import { memoryStore, type NewSessionEvent, openSession, type Session } from '@tooltx/session'
import { type BenchSection, formatNs, measureInterleaved, ratio, target } from './harness.js'

const TOOLS: ModelToolSchema[] = [
  {
    name: 'read',
    description: 'Reads a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
]
const T = { turn: 1, step: 1 }

/** One call and its result: three events. */
function exchange(i: number): NewSessionEvent[] {
  const callId = `c${i}`
  return [
    {
      type: 'assistant/message',
      data: {
        ...T,
        content: [{ type: 'tool-call', id: callId, name: 'read', arguments: `{"path":"/src/file-${i}.ts"}` }],
      },
    },
    { type: 'tool/call', data: { ...T, callId, name: 'read', arguments: `{"path":"/src/file-${i}.ts"}` } },
    {
      type: 'tool/result',
      data: {
        ...T,
        callId,
        name: 'read',
        content: [{ type: 'text', text: `export const value${i} = ${i} // a line of the file` }],
        isError: false,
      },
    },
  ]
}

async function sessionOf(events: number): Promise<Session> {
  const session = await openSession(memoryStore(), { id: `s${events}` })
  await session.appendBatch([
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: T },
    {
      type: 'user/message',
      data: { ...T, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } },
    },
  ])
  for (let i = 0; i < events / 3; i += 1000) {
    const batch: NewSessionEvent[] = []
    for (let k = i; k < Math.min(i + 1000, events / 3); k++) batch.push(...exchange(k))
    await session.appendBatch(batch)
  }
  return session
}

/** A case timed in rounds that alternate with the other cases' (A B A B …). */
interface Case {
  name: string
  fn: () => unknown
  ops: number
}

const budgetOf = (session: Session) =>
  new ContextBudget(
    resolveContext({ maxTokens: 1e12, strategy: 'clear-tool-results' }),
    session,
    () => undefined,
  )

/** The budget check before one model request on `session`: `compaction()` of a request that fits. */
function check(session: Session, name: string): Case {
  const budget = budgetOf(session)
  const model = scripted([])
  const signal = new AbortController().signal
  const request = {
    ...T,
    system: 'You are terse.',
    tools: TOOLS,
    messages: session.messages(),
    model,
    signal,
  }
  return { name, fn: () => budget.compaction(request), ops: 20_000 }
}

/** Appending one step's three events to `session`, which a budget follows when `withBudget`. */
function append(session: Session, name: string, withBudget: boolean): Case {
  if (withBudget) budgetOf(session)
  let i = 1_000_000
  return { name, fn: () => session.appendBatch(exchange(i++)), ops: 200 }
}

export default async function contextBench(): Promise<BenchSection[]> {
  const small = await sessionOf(1_000)
  const large = await sessionOf(100_000)
  const [checkSmall, checkLarge] = await measureInterleaved(
    [check(small, 'budget check, 1k events'), check(large, 'budget check, 100k events')],
    { rounds: 31 },
  )
  // Four sessions, so the appends of one case never grow another's.
  const [plainSmall, countedSmall, plainLarge, countedLarge] = await measureInterleaved(
    [
      append(await sessionOf(1_000), 'append a step (3 events), no budget, 1k events', false),
      append(await sessionOf(1_000), 'append a step (3 events), budget counting, 1k events', true),
      append(await sessionOf(100_000), 'append a step (3 events), no budget, 100k events', false),
      append(await sessionOf(100_000), 'append a step (3 events), budget counting, 100k events', true),
    ],
    { rounds: 31 },
  )
  const grows = checkLarge.medianNs / checkSmall.medianNs
  const countSmall = countedSmall.medianNs - plainSmall.medianNs
  const countLarge = countedLarge.medianNs - plainLarge.medianNs
  return [
    {
      title: 'Context budget: per-step cost of budget checking',
      method:
        'Sessions of 1k and 100k events (one long turn of read calls with their results, memory store), each followed by a `ContextBudget`. "budget check" is the check before one model request: `compaction()` on a request that fits, which measures the system prompt, the tool schemas and the messages. "append a step" appends one step of three events (assistant/message, tool/call, tool/result) with and without a budget following the session, so the difference is the cost of counting them. Each message is counted once, when its event arrives, and the total is kept current, so the check reads a number instead of walking the history.',
      rows: [checkSmall, checkLarge, plainSmall, countedSmall, plainLarge, countedLarge],
      ratios: [
        `budget check: 100k events / 1k events = ${ratio(checkLarge, checkSmall)}`,
        `counting a step's events (with − without budget): ${formatNs(countSmall)} at 1k, ${formatNs(countLarge)} at 100k`,
      ],
      targets: [
        target(
          'per-step budget check at 100k events within 1.5x of 1k',
          `${grows.toFixed(2)}x`,
          grows <= 1.5,
        ),
      ],
    },
  ]
}
