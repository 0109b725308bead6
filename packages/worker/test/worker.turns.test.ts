import { createAgent, type ScriptedStep, scripted } from '@tooltx/agent'
import { createToolRuntime, defineTool } from '@tooltx/core'
import { memoryStore, openSession, type SessionEvent } from '@tooltx/session'
import { createWorker, turnQueue, type WorkerJobReport } from '@tooltx/worker'
import { describe, expect, it } from 'vitest'
import { freshPrefix, freshSchema, POSTGRES_URL, requirePostgresInCi } from './postgres.js'

const text = {
  schema: { type: 'string' },
  render: (_: unknown, v: string) => [{ type: 'text', text: v }],
} as const

/** A runtime with one parallel-safe tool, `look`, that echoes its `id` argument. */
function toolset() {
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  scope.register(
    defineTool({
      name: 'look',
      description: 'Echoes its id.',
      parameters: { id: { type: 'string', required: true } },
      output: text,
      isConcurrencySafe: () => true,
      execute: (args) => `saw ${args.id}`,
    }),
  )
  return { runtime, scope }
}

/** Two parallel tool calls, then a text answer. */
const steps = (tag: string): ScriptedStep[] => [
  {
    toolCalls: [
      { id: `${tag}-a`, name: 'look', arguments: '{"id":"a"}' },
      { id: `${tag}-b`, name: 'look', arguments: '{"id":"b"}' },
    ],
  },
  { text: `answered ${tag}` },
]

const brief = (events: readonly SessionEvent[]) =>
  events.map((e) =>
    e.type === 'tool/call' || e.type === 'tool/result' ? `${e.type} ${e.data.callId}` : e.type,
  )

describe.skipIf(POSTGRES_URL === undefined)('N2: workers on a PostgreSQL queue', () => {
  it('N2.2: a worker picks up a submitted turn, runs it with the agent loop and completes the job', async () => {
    const store = memoryStore()
    const queue = turnQueue({ connectionString: POSTGRES_URL!, schema: freshSchema() })
    const { runtime, scope } = toolset()
    const reports: WorkerJobReport[] = []
    let turns = 0
    const done = new Promise<void>((resolve) => {
      void createWorker({
        store,
        queue,
        agent: (session) => createAgent({ runtime, scope, session, model: scripted(steps(`t${++turns}`)) }),
        onJob: (report) => {
          reports.push(report)
          if (report.result === 'done') resolve()
        },
      }).then((worker) => done.then(() => worker.stop()))
    })
    const id = `${freshPrefix()}-one`
    const submission = await queue.submit(id, 'look at a and b')
    await done
    await queue.close()
    expect(reports).toEqual([{ submission, session: id, plan: 'fresh', result: 'done' }])
    const session = await openSession(store, { id })
    expect(brief(session.events())).toEqual([
      'turn/start',
      'step/start',
      'user/message',
      'assistant/message',
      'tool/call t1-a',
      'tool/call t1-b',
      'tool/result t1-a',
      'tool/result t1-b',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    const user = session.events()[2]!
    expect(user.type === 'user/message' && user.data.message).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'look at a and b' }],
      source: { kind: 'submission', id: submission, plan: 'fresh' },
    })
    expect(session.events().at(-1)!.data).toEqual({ turn: 1, reason: 'completed' })
  })
})

requirePostgresInCi('N2.2')
