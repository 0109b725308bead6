/**
 * How should a refused or failed batch be undone in the session's log state? The undo log of
 * inverse operations the transitions record (what `session.append` uses) against a snapshot:
 * copy the state before the batch, restore the copy on failure.
 */
import type { NewSessionEvent } from '@tooltx/session'
import { LogState } from '../packages/session/src/log/log-state.js'
import { UndoLog } from '../packages/session/src/log/undo-log.js'
import { type BenchSection, type Measurement, measureInterleaved, ratio } from './harness.js'

const ROUNDS = 15
const WARMUP = 2
const OPS = 200

/** A copy of everything `apply` may change in `state`, and the function that puts it back. */
function snapshot(state: LogState): () => void {
  const { turn, turnOpen, step, stepOpen, started, assistant: a } = state
  const called = a && [...a.called]
  const answered = a && [...a.answered]
  const receipts = a && [...a.receipts].map(([id, list]): [string, typeof list] => [id, [...list]])
  const approvals = [...state.pendingApprovals]
  const durable = [...state.durable].map(([id, ask]) => [id, ask, ask.decided] as const)
  const dispatches = [...state.dispatches].map(([id, d]) => [id, d, d.settled] as const)
  return () => {
    Object.assign(state, { turn, turnOpen, step, stepOpen, started, assistant: a })
    if (a !== undefined) {
      refill(a.called, called!)
      refill(a.answered, answered!)
      a.receipts.clear()
      for (const [id, list] of receipts!) a.receipts.set(id, list)
    }
    state.pendingApprovals.clear()
    for (const [id, asked] of approvals) state.pendingApprovals.set(id, asked)
    state.durable.clear()
    for (const [id, ask, decided] of durable) state.durable.set(id, Object.assign(ask, { decided }))
    state.dispatches.clear()
    for (const [id, d, settled] of dispatches) state.dispatches.set(id, Object.assign(d, { settled }))
  }
}

function refill(set: Set<string>, values: readonly string[]): void {
  set.clear()
  for (const v of values) set.add(v)
}

const at = { turn: 1, step: 1 }
const callOf = (k: number) => ({ type: 'tool-call' as const, id: `c${k}`, name: 'add', arguments: '{}' })
const toolCall = (k: number): NewSessionEvent => ({
  type: 'tool/call',
  data: { ...at, callId: `c${k}`, name: 'add', arguments: '{}' },
})
const toolResult = (k: number): NewSessionEvent => ({
  type: 'tool/result',
  data: { ...at, callId: `c${k}`, name: 'add', content: [], isError: false },
})
const reply = (calls: number): NewSessionEvent => ({
  type: 'assistant/message',
  data: { ...at, content: Array.from({ length: calls }, (_, k) => callOf(k)) },
})
const range = (n: number) => Array.from({ length: n }, (_, k) => k)

/** A turn in step 1 whose reply made `calls` calls, all started, the first `answered` answered. */
function turnWith(calls: number, answered: number): NewSessionEvent[] {
  return [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'step/start', data: at },
    reply(calls),
    ...range(calls).map(toolCall),
    ...range(answered).map(toolResult),
  ]
}

interface Workload {
  readonly name: string
  readonly log: NewSessionEvent[]
  readonly batch: NewSessionEvent[]
}

const workloads = (calls: number): Workload[] => [
  { name: `one tool/result, a turn of ${calls} calls`, log: turnWith(calls, 0), batch: [toolResult(0)] },
  {
    name: `a reply and its ${calls} tool/calls`,
    log: [
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'step/start', data: at },
    ],
    batch: [reply(calls), ...range(calls).map(toolCall)],
  },
  {
    name: `a step's opening, after ${calls} answered calls`,
    log: turnWith(calls, calls),
    batch: [
      { type: 'step/end', data: at },
      { type: 'step/start', data: { turn: 1, step: 2 } },
      {
        type: 'user/message',
        data: { turn: 1, step: 2, message: { role: 'user', content: [{ type: 'text', text: 'more' }] } },
      },
    ],
  },
]

/** The cases of one workload: each call takes a fresh replayed state from its own pool. */
function casesOf({ name, log, batch }: Workload) {
  const pool = () => {
    const states = Array.from({ length: (ROUNDS + WARMUP) * OPS }, () => {
      const s = new LogState()
      for (const event of log) s.apply(event)
      return s
    })
    let i = 0
    return () => states[i++]!
  }
  const [plain, inverseOk, snapshotOk, inverseFail, snapshotFail] = [pool(), pool(), pool(), pool(), pool()]
  const run = (state: LogState, changes?: UndoLog) => {
    for (const event of batch) state.apply(event, changes)
  }
  return [
    { name: `${name}: unprotected apply (floor)`, ops: OPS, fn: () => run(plain()) },
    { name: `${name}: inverse log, kept`, ops: OPS, fn: () => run(inverseOk(), new UndoLog()) },
    {
      name: `${name}: snapshot, kept`,
      ops: OPS,
      fn: () => {
        const state = snapshotOk()
        snapshot(state)
        run(state)
      },
    },
    {
      name: `${name}: inverse log, rolled back`,
      ops: OPS,
      fn: () => {
        const undo = new UndoLog()
        run(inverseFail(), undo)
        undo.rollback()
      },
    },
    {
      name: `${name}: snapshot, restored`,
      ops: OPS,
      fn: () => {
        const state = snapshotFail()
        const restore = snapshot(state)
        run(state)
        restore()
      },
    },
  ] as const
}

export default async function logUndoBench(): Promise<BenchSection[]> {
  const rows: Measurement[] = []
  const ratios: string[] = []
  for (const workload of [...workloads(10), ...workloads(100)]) {
    const [floor, inverseOk, snapshotOk, inverseFail, snapshotFail] = await measureInterleaved(
      casesOf(workload),
      {
        rounds: ROUNDS,
        warmup: WARMUP,
      },
    )
    rows.push(floor, inverseOk, snapshotOk, inverseFail, snapshotFail)
    ratios.push(
      `${workload.name}: snapshot / inverse log, kept = ${ratio(snapshotOk, inverseOk)}; rolled back = ${ratio(snapshotFail, inverseFail)}`,
    )
  }
  return [
    {
      title: 'Session log state: undo log of inverses vs snapshot',
      method: `Median time per batch (checks excluded) of applying a batch to the log state protected two ways: the undo log of inverse operations the state transitions record (\`UndoLog\`, kept by \`session.append\`), or a snapshot (a copy of the state's fields, sets and maps before the batch, restored on failure). "Kept" is the path of every successful append; "rolled back" that of a refused batch or a failed write. Each call applies the batch to a fresh state from a pool replayed beforehand; the floor applies it unprotected. ${ROUNDS} interleaved rounds of ${OPS} batches after ${WARMUP} warm-up rounds.`,
      rows,
      ratios,
    },
  ]
}
