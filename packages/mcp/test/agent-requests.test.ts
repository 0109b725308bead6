/**
 * A server's sampling and questions answered in an agent (Y2.30–Y2.36, L1.10): a tooltx server
 * in its own process over stdio asks during an imported call; `agent.sampler` and
 * `agent.elicitor` decide by policy and the agent's approver, the agent's scripted model answers,
 * and each request is recorded in the session, which a file store reopens.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  type AgentOptions,
  createAgent,
  type ElicitationOptions,
  type SamplingOptions,
  type ScriptedStep,
  SERVER_REQUEST_NAMES,
  scripted,
} from '@tooltx/agent'
import { type ApprovalRequest, createToolRuntime } from '@tooltx/core'
import { type ElicitQuestion, mcpTools } from '@tooltx/mcp'
import { fileStore, openSession, type SessionEvent } from '@tooltx/session'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, fixture } from './mcp.fixtures.js'

afterEach(cleanupAll)

const FORMS = { command: process.execPath, args: [fixture('forms-server.mjs')] }

/** A call of the fixture's `complete` (samples with `Be brief.`, at most 50 tokens) as step 1. */
const COMPLETE: ScriptedStep = {
  toolCalls: [{ id: 'c1', name: 'mcp__forms__complete', arguments: '{"prompt":"Summarise the repo."}' }],
}
/** A call of the fixture's `ask`, filling `form`, as step 1. */
const ask = (form: object): ScriptedStep => ({
  toolCalls: [
    { id: 'c1', name: 'mcp__forms__ask', arguments: JSON.stringify({ form: JSON.stringify(form) }) },
  ],
})
const YES_NO = {
  message: 'Deploy now?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
}

interface Setup {
  steps: readonly ScriptedStep[]
  agent?: Partial<AgentOptions>
  sampling?: SamplingOptions
  elicitation?: ElicitationOptions<ElicitQuestion>
}

/**
 * Runs one turn of an agent on a file-store session whose tools are the forms fixture's, with
 * the agent's sampler and elicitor as the client's handlers; resolves with what the approver
 * was asked, the model, the turn's tool result text and the session's events after reopening.
 */
async function runTurn({ steps, agent: extra = {}, sampling, elicitation }: Setup) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tooltx-requests-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const runtime = createToolRuntime()
  const scope = runtime.scope()
  const model = scripted(steps)
  const store = fileStore(dir)
  const session = await openSession(store, { id: 's' })
  const asked: ApprovalRequest[] = []
  const agent = createAgent({
    runtime,
    scope,
    session,
    model,
    approver: (request) => {
      asked.push(request)
      return 'allowed-once'
    },
    ...extra,
  })
  const tools = await mcpTools(FORMS, {
    name: 'forms',
    onSample: agent.sampler(sampling),
    onElicit: agent.elicitor(elicitation),
  })
  cleanups.push(() => tools.close())
  tools.register(scope)
  const outcome = await agent.send('go')
  await session.close()
  const reopened = await openSession(store, { id: 's' })
  const events = reopened.events()
  await reopened.close()
  await store.close()
  const result = events.find((e) => e.type === 'tool/result')
  const text = result?.type === 'tool/result' ? (result.data.content[0] as { text: string }).text : undefined
  return { asked, model, outcome, events, text }
}

/** The `server/request` events of `events`, without turn and step. */
const requests = (events: readonly SessionEvent[]) =>
  events.flatMap((e) => (e.type === 'server/request' ? [e.data] : []))

describe('Y2.30–Y2.34 agent.sampler answers a server with the agent model, by policy, recorded', () => {
  it('Y2.30 Y2.32 Y2.33 L1.10 ask approved: the approver sees what is sent and to which model; the model answers bounded, without tools; the record survives reopening', async () => {
    const { asked, model, text, events, outcome } = await runTurn({
      steps: [COMPLETE, { text: 'It is a tool runtime.' }, { text: 'done' }],
      sampling: { maxTokens: 20 },
    })
    expect(outcome.reason).toBe('completed')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({
      name: SERVER_REQUEST_NAMES.sampling,
      reason: 'the MCP server "forms" asks scripted for a completion of at most 20 tokens',
      arguments: {
        server: 'forms',
        model: 'scripted',
        maxTokens: 20,
        systemPrompt: 'Be brief.',
        messages: [{ role: 'user', text: 'Summarise the repo.' }],
      },
    })
    expect(asked[0]!.argumentsDigest).toMatch(/^[0-9a-f]{64}$/)
    // The second model request was the server's: its system prompt, its message, no tools, the cap.
    expect(model.requests[1]).toMatchObject({
      system: 'Be brief.',
      tools: [],
      maxTokens: 20,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise the repo.' }] }],
    })
    expect(JSON.parse(text!)).toEqual({ model: 'scripted', text: 'It is a tool runtime.' })
    expect(requests(events)).toEqual([
      {
        turn: 1,
        step: 1,
        kind: 'sampling',
        server: 'forms',
        calls: ['c1'],
        messages: 1,
        characters: 19,
        last: 'user: Summarise the repo.',
        model: 'scripted',
        maxTokens: 20,
        outcome: 'answered',
        by: 'approver',
        reply: 'It is a tool runtime.',
      },
    ])
    // Recorded before the call it arrived during ended.
    const at = (type: string) => events.findIndex((e) => e.type === type)
    expect(at('server/request')).toBeGreaterThan(at('tool/call'))
    expect(at('server/request')).toBeLessThan(at('tool/result'))
  })

  it('Y2.32 L1.10 ask denied: the server gets the refusal, the model is not asked, the record says who', async () => {
    const { model, text, events } = await runTurn({
      steps: [COMPLETE, { text: 'done' }],
      agent: { approver: () => 'rejected' },
    })
    expect(model.requests).toHaveLength(2)
    expect(text).toContain(
      'the sampling request of the MCP server "forms" was refused: the approver answered rejected',
    )
    expect(requests(events)).toMatchObject([
      {
        kind: 'sampling',
        outcome: 'refused',
        by: 'approver',
        reason: 'the approver answered rejected',
        maxTokens: 50,
      },
    ])
    expect(requests(events)[0]).not.toHaveProperty('reply')
  })

  it("Y2.31 policy 'deny' refuses without asking anyone; a policy function decides per request", async () => {
    const denied = await runTurn({ steps: [COMPLETE, { text: 'done' }], sampling: { policy: 'deny' } })
    expect(denied.asked).toEqual([])
    expect(denied.text).toContain("refused: the host's policy refuses sampling")
    expect(requests(denied.events)).toMatchObject([{ outcome: 'refused', by: 'policy' }])
    const seen: string[] = []
    const allowed = await runTurn({
      steps: [COMPLETE, { text: 'Yes.' }, { text: 'done' }],
      sampling: {
        policy: (request) => {
          seen.push(`${request.server} ${request.calls.join()}`)
          return 'allow'
        },
      },
    })
    expect(seen).toEqual(['forms c1'])
    expect(allowed.asked).toEqual([])
    expect(requests(allowed.events)).toMatchObject([{ outcome: 'answered', by: 'policy', reply: 'Yes.' }])
  })

  it('Y2.32 an agent with durable approvals refuses an ask at once, saying why, instead of waiting', async () => {
    const { text, events, outcome } = await runTurn({
      steps: [COMPLETE, { text: 'done' }],
      agent: { approver: undefined, approvals: 'durable' },
    })
    expect(outcome.reason).toBe('completed')
    expect(text).toContain(
      "the agent's approvals are durable, and a server's request cannot wait in the session",
    )
    expect(requests(events)).toMatchObject([{ outcome: 'refused', by: 'approver' }])
  })

  it('Y2.34 outside a turn a request is refused, since nothing could record it; malformed options throw', async () => {
    const runtime = createToolRuntime()
    const session = await openSession((await import('@tooltx/session')).memoryStore(), { id: 'idle' })
    const agent = createAgent({ runtime, scope: runtime.scope(), session, model: scripted([]) })
    const request = {
      server: 'x',
      messages: [],
      maxTokens: 5,
      calls: [],
      signal: new AbortController().signal,
    }
    await expect(agent.sampler({ policy: 'allow' })(request)).rejects.toThrow(
      'the sampling request of the MCP server "x" was refused: the agent has no turn in progress to record it in',
    )
    expect(session.events()).toEqual([])
    expect(() => agent.sampler({ policy: 'maybe' as never })).toThrow(
      /policy must be 'ask', 'allow', 'deny' or a function/,
    )
    expect(() => agent.sampler({ maxTokens: 0 })).toThrow(
      'sampler maxTokens must be a positive integer, got 0',
    )
  })
})

describe('Y2.35 Y2.36 agent.elicitor answers a server question through the approver, recorded', () => {
  it('Y2.36 L1.10 a yes/no question is an approval: allowed accepts with true, and the record names the fields, never values', async () => {
    const { asked, text, events } = await runTurn({ steps: [ask(YES_NO), { text: 'done' }] })
    expect(asked).toMatchObject([
      {
        name: SERVER_REQUEST_NAMES.elicitation,
        reason: 'the MCP server "forms" asks: Deploy now?',
        arguments: { server: 'forms', message: 'Deploy now?' },
      },
    ])
    expect(JSON.parse(text!)).toEqual({ action: 'accept', content: { confirm: true } })
    expect(requests(events)).toEqual([
      {
        turn: 1,
        step: 1,
        kind: 'elicitation',
        server: 'forms',
        calls: ['c1'],
        message: 'Deploy now?',
        fields: ['confirm'],
        outcome: 'accept',
        by: 'approver',
        answered: ['confirm'],
      },
    ])
  })

  it('Y2.36 a rejected question declines; a form the approver cannot fill is cancelled without asking, with the reason', async () => {
    const rejected = await runTurn({
      steps: [ask(YES_NO), { text: 'done' }],
      agent: { approver: () => 'rejected' },
    })
    expect(JSON.parse(rejected.text!)).toEqual({ action: 'decline' })
    expect(requests(rejected.events)).toMatchObject([{ outcome: 'decline', by: 'approver' }])
    const form = {
      message: 'Which colour?',
      requestedSchema: {
        type: 'object',
        properties: { colour: { type: 'string' }, sure: { type: 'boolean' } },
      },
    }
    const unfillable = await runTurn({ steps: [ask(form), { text: 'done' }] })
    expect(unfillable.asked).toEqual([])
    expect(JSON.parse(unfillable.text!)).toEqual({ action: 'cancel' })
    expect(requests(unfillable.events)).toMatchObject([
      {
        outcome: 'cancel',
        by: 'policy',
        fields: ['colour', 'sure'],
        reason: 'the approver answers only yes or no, and this form asks for colour, sure',
      },
    ])
  })

  it('Y2.35 L1.10 a host handler answers instead of the approver; one that throws cancels, and the record says so', async () => {
    const seen: string[] = []
    const answered = await runTurn({
      steps: [ask(YES_NO), { text: 'done' }],
      elicitation: {
        answer: (question) => {
          seen.push(`${question.server}: ${question.message} during ${question.calls.join()}`)
          return { action: 'accept', content: { confirm: false } }
        },
      },
    })
    expect(seen).toEqual(['forms: Deploy now? during c1'])
    expect(answered.asked).toEqual([])
    expect(JSON.parse(answered.text!)).toEqual({ action: 'accept', content: { confirm: false } })
    expect(requests(answered.events)).toMatchObject([
      { outcome: 'accept', by: 'handler', answered: ['confirm'] },
    ])
    const failing = await runTurn({
      steps: [ask(YES_NO), { text: 'done' }],
      elicitation: {
        answer: () => {
          throw new Error('the form closed')
        },
      },
    })
    expect(JSON.parse(failing.text!)).toEqual({ action: 'cancel' })
    expect(requests(failing.events)).toMatchObject([
      { outcome: 'cancel', by: 'handler', reason: 'the handler failed: the form closed' },
    ])
  })
})
