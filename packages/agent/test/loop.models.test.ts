import { getEventListeners } from 'node:events'
import { anthropic, estimateTokens, openaiCompatible } from '@tooltx/agent'
import { defineTool } from '@tooltx/core'
import { deriveMessages, memoryStore, openSession } from '@tooltx/session'
import { describe, expect } from 'vitest'
import { SUMMARY_HEADING } from '../src/context/summarise.js'
import {
  agentOn,
  bashTool,
  failedTurn,
  firstResult,
  itWithRig,
  lines,
  type Rig,
  rig,
  textOutput,
} from './loop-harness.js'
import { type Answer, type Received, wireServer } from './loopback-server.js'
import {
  anthropicStop,
  anthropicText,
  anthropicToolUse,
  chatChunk,
  chatToolCall,
  messageStart,
} from './wire-fixtures.js'

/** A text block, then a tool_use of `bash` whose input the token limit cut inside a string. */
const CUT = [
  messageStart('c', 10),
  ...anthropicText(0, 'Cleaning.'),
  ...anthropicToolUse({ index: 1, id: 'toolu_rm', name: 'bash', json: '{"cmd":"rm -rf bu', unclosed: true }),
  ...anthropicStop('max_tokens', 9),
]
const DONE_TEXT = [messageStart('c', 10), ...anthropicText(0, 'Done.'), ...anthropicStop('end_turn', 9)]

/** One Chat Completions chunk of choice 0. */
const chunk = chatChunk
const usageChunk = (prompt: number) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: prompt, completion_tokens: 5, total_tokens: prompt + 5 } })}\n\n`
/** A reply calling `name` with `args` as call `id`. */
const callReply = (id: string, name: string, args: string): string[] => [
  chatToolCall(id, name, args),
  chunk({}, 'tool_calls'),
  'data: [DONE]\n\n',
]
const textReply = (text: string, prompt?: number): string[] => [
  chunk({ role: 'assistant', content: text }),
  chunk({}, 'stop'),
  ...(prompt === undefined ? [] : [usageChunk(prompt)]),
  'data: [DONE]\n\n',
]

/** The data of the `step/end` events in `r`'s log. */
const stepEnds = (r: Rig) => r.session.events().flatMap((e) => (e.type === 'step/end' ? [e.data] : []))

/** The `step/end` of step 1 when the provider cut its reply at the token limit. */
const CUT_STEP_END = { turn: 1, step: 1, stop: { reason: 'max_tokens', raw: 'max_tokens' } }

/** `it` with a fresh memory-store rig as `r`. */
const it = itWithRig(() => rig({ store: 'memory' }))

describe('T2–T4 in the loop', () => {
  /** Registers on `r` `bash` (records what it ran with) and `read {path}` (returns a long text). */
  function tools(r: Rig, seen: unknown[] = []): void {
    r.scope.register(bashTool(seen))
    r.scope.register(
      defineTool({
        name: 'read',
        description: 'Reads a file.',
        parameters: { path: { type: 'string', required: true } },
        output: textOutput,
        presentCall: (args) => ({ card: 'generic', title: `Read ${args.path}` }),
        isConcurrencySafe: () => true,
        execute: ({ path }) => `${path}: ${'lorem ipsum dolor sit amet '.repeat(40)}`,
      }),
    )
  }

  async function claude(answer: (n: number) => string[]) {
    const server = await wireServer((n) => ({ sse: answer(n) }))
    return { server, model: anthropic({ baseURL: server.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 }) }
  }

  it('T2.1, T2.2: each step records its reply stop reason on step/end', async ({ r }) => {
    tools(r)
    const server = await wireServer(
      (n) => ({ sse: n === 1 ? callReply('c1', 'read', '{"path":"a"}') : textReply('ok') }),
      '/v1',
    )
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const agent = agentOn(r, { model })
    expect(await agent.send('go')).toMatchObject({ reason: 'completed', text: 'ok' })
    const ends = stepEnds(r)
    expect(ends).toEqual([
      { turn: 1, step: 1, stop: { reason: 'tool_calls', raw: 'tool_calls' } },
      { turn: 1, step: 2, stop: { reason: 'stop', raw: 'stop' } },
    ])
  })

  it('T2.3: a reply cut by max_tokens mid tool call never runs it; by default the turn ends with the step stop recorded', async ({
    r,
  }) => {
    const seen: unknown[] = []
    tools(r, seen)
    const { model } = await claude((n) => (n === 1 ? CUT : DONE_TEXT))
    const agent = agentOn(r, { model })
    const outcome = await agent.send('clean up')
    expect(outcome).toMatchObject({ reason: 'error' })
    expect(outcome.error).toContain(
      'the provider cut the reply (stop_reason "max_tokens") while it held tool calls',
    )
    expect(seen).toEqual([])
    expect(lines(r.session)).toEqual(failedTurn('clean up'))
    expect(stepEnds(r)[0]).toEqual(CUT_STEP_END)
  })

  it("T2.3: with onCutToolCalls 'tell-model' the cut call is recorded, answered without running, and the model is asked again", async ({
    r,
  }) => {
    const seen: unknown[] = []
    tools(r, seen)
    const { model, server } = await claude((n) => (n === 1 ? CUT : DONE_TEXT))
    const agent = agentOn(r, {
      model,
      onCutToolCalls: 'tell-model',
    })
    expect(await agent.send('clean up')).toMatchObject({ reason: 'completed', text: 'Done.' })
    expect(seen).toEqual([])
    expect(lines(r.session)).toEqual([
      'turn/start',
      'step/start',
      'user/message "clean up"',
      'assistant/message "Cleaning." toolu_rm',
      'tool/call toolu_rm',
      'tool/result toolu_rm ABORTED_BEFORE_DISPATCH',
      'step/end',
      'step/start',
      'assistant/message "Done."',
      'step/end',
      'turn/end completed',
    ])
    const call = r.session.events().find((e) => e.type === 'tool/call')
    expect(call?.data).toMatchObject({ arguments: '{"cmd":"rm -rf bu' })
    const told =
      'Error: tool call not started: the provider cut the reply while this call was written, so its arguments ' +
      'may be incomplete. Call it again with smaller arguments, or split the work.'
    expect(server.received[1]?.body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_rm',
          is_error: true,
          content: [{ type: 'text', text: told }],
        },
      ],
    })
    expect(stepEnds(r)[0]).toEqual(CUT_STEP_END)
  })

  it('T4.1, T4.2, T4.3: prepareStep narrows the tools through a restriction, so the hidden tool is absent from the request and its call fails UNKNOWN_TOOL; it is recorded on step/end', async ({
    r,
  }) => {
    const seen: unknown[] = []
    tools(r, seen)
    const server = await wireServer(
      (n) => ({ sse: n === 1 ? callReply('c1', 'bash', '{"cmd":"ls"}') : textReply('ok') }),
      '/v1',
    )
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const states: unknown[] = []
    const agent = agentOn(r, {
      model,
      system: 'Be careful.',
      prepareStep: (state) => {
        states.push({ ...state, messages: state.messages.length })
        return state.step === 1
          ? { tools: ['read'], toolChoice: { tool: 'read' }, system: 'Read first.' }
          : undefined
      },
    })
    expect(await agent.send('go')).toMatchObject({ reason: 'completed' })
    expect(seen).toEqual([])
    expect(states[0]).toEqual({
      turn: 1,
      step: 1,
      messages: 1,
      tools: expect.arrayContaining(['bash', 'read', 'wait']),
    })
    const first = server.received[0]!.body
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['read'])
    expect(first.tool_choice).toEqual({ type: 'function', function: { name: 'read' } })
    expect(first.messages[0]).toEqual({ role: 'system', content: 'Read first.' })
    // Step 2 is unchanged: every tool, the agent's own system prompt, no tool_choice.
    const second = server.received[1]!.body
    expect(second.tools.map((t: { function: { name: string } }) => t.function.name)).toContain('bash')
    expect(second.tool_choice).toBeUndefined()
    expect(second.messages[0]).toEqual({ role: 'system', content: 'Be careful.' })
    expect(firstResult(r.session)).toMatchObject({
      callId: 'c1',
      isError: true,
      error: { code: 'UNKNOWN_TOOL' },
      content: [{ type: 'text', text: 'Error: unknown tool "bash"' }],
    })
    const ends = stepEnds(r)
    expect(ends[0]).toEqual({
      turn: 1,
      step: 1,
      stop: { reason: 'tool_calls', raw: 'tool_calls' },
      prepared: { system: 'Read first.', tools: ['read'], toolChoice: { tool: 'read' } },
    })
    expect(ends[1]).toEqual({ turn: 1, step: 2, stop: { reason: 'stop', raw: 'stop' } })
    // The step's scope was disposed: the agent's scope sees bash again.
    expect(r.runtime.view(r.scope).get('bash')?.name).toBe('bash')
  })

  it('T4.1: a prepareStep answer of the wrong shape, or forcing a tool the step does not offer, ends the turn with a message saying what was wrong', async ({
    r,
  }) => {
    tools(r)
    const server = await wireServer(() => ({ sse: textReply('ok') }), '/v1')
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const answers: unknown[] = [
      { tool: ['read'] },
      { tools: ['read'], toolChoice: { tool: 'bash' } },
      { tools: ['nope'] },
      { toolChoice: 'sometimes' },
    ]
    const messages: (string | undefined)[] = []
    for (const answer of answers) {
      const agent = agentOn(r, {
        model,
        prepareStep: () => answer as never,
      })
      messages.push((await agent.send('go')).error)
    }
    expect(messages).toEqual([
      'prepareStep returned unknown key(s) "tool"',
      'prepareStep forces tool "bash", which the step does not offer; it offers read',
      expect.stringContaining('restrict() names unknown inherited tool(s) "nope"'),
      'prepareStep toolChoice must be "auto", "none", "required" or { tool: <name> }, got "sometimes"',
    ])
    expect(server.received).toEqual([])
  })

  it('T3.8: requests on one turn signal leave no abort listener on it, with either SDK adapter', async () => {
    const openai = await wireServer(() => ({ sse: textReply('ok') }), '/v1')
    const claudeServer = await wireServer(() => ({ sse: DONE_TEXT }))
    const models = [
      openaiCompatible({ baseURL: openai.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 }),
      anthropic({ baseURL: claudeServer.baseURL, apiKey: 'k', model: 'c', maxRetries: 0 }),
    ]
    const signal = new AbortController().signal
    const request = {
      instructions: '',
      tools: [],
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'x' }] }],
    }
    for (const model of models) {
      for (let i = 0; i < 12; i++) for await (const _ of model.stream(request, signal));
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0)
    expect(openai.received).toHaveLength(12)
    expect(claudeServer.received).toHaveLength(12)
  })

  it('T3.1: a context option that is not { maxTokens, strategy } throws INVALID_DEFINITION at createAgent', async ({
    r,
  }) => {
    const model = openaiCompatible({ apiKey: 'k', model: 'm' })
    const make = (context: unknown) => () =>
      agentOn(r, {
        model,
        context: context as never,
      })
    expect(make({ maxTokens: 0, strategy: 'summarise' })).toThrow(
      'context.maxTokens must be a positive integer, got 0',
    )
    expect(make({ maxTokens: 10, strategy: 'drop' })).toThrow(
      'context.strategy must be "clear-tool-results" or "summarise", got "drop"',
    )
    expect(make({ maxTokens: 10, strategy: 'summarise', countTokens: 3 })).toThrow(
      'context.countTokens must be a function (text) => number',
    )
    expect(make('big')).toThrow('context must be { maxTokens, strategy, countTokens?, summaryModel? }')
    expect(() =>
      agentOn(r, {
        model,
        onCutToolCalls: 'ignore' as never,
      }),
    ).toThrow(`onCutToolCalls must be 'end-turn' or 'tell-model', got "ignore"`)
  })

  /**
   * A Chat Completions server for a long session: every request gets a `read` call (ids count
   * up), except summary requests (system prompt of `summarise`), which get a summary text, and
   * every `stopAfter`-th step ends the reply with text. Records the token count it reports.
   */
  async function longServer() {
    const holder: { received: Received[] } = { received: [] }
    let calls = 0
    const answer = (n: number): Answer => {
      const body = holder.received[n - 1]!.body
      if (String(body.messages[0]?.content).startsWith('You compress a conversation')) {
        return { sse: textReply(`Summary ${n}: read ${calls} files so far.`) }
      }
      calls++
      return { sse: callReply(`call_${calls}`, 'read', JSON.stringify({ path: `src/file-${calls}.ts` })) }
    }
    const server = await wireServer(answer, '/v1')
    holder.received = server.received
    return server
  }

  it.each([
    // clear-tool-results keeps every call, so a session of small calls outgrows any budget at
    // last (T3.3); summarise keeps a session of any length within it.
    ['clear-tool-results', 60],
    ['summarise', 2_000],
  ] as const)(
    'T3.2, T3.3, T3.4, T3.5, T3.6: a session on a small budget (%s, %i steps) compacts and keeps working; replay derives the messages of the last request',
    async (strategy, STEPS) => {
      const r = await rig({ store: 'memory' })
      tools(r)
      // A session of its own without verify: checking replay after every append would make the run quadratic.
      const store = memoryStore()
      const session = await openSession(store, { id: 'long' })
      const server = await longServer()
      const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
      const maxTokens = 6_000
      const agent = agentOn(r, {
        session,
        model,
        maxSteps: STEPS,
        maxToolCalls: Number.POSITIVE_INFINITY,
        context: { maxTokens, strategy },
      })
      const outcome = await agent.send('read every file')
      expect(outcome).toMatchObject({ reason: 'limit', limit: 'maxSteps' })
      const events = session.events()
      const compactions = events.flatMap((e) => (e.type === 'context/compacted' ? [e.data] : []))
      expect(compactions.length).toBeGreaterThanOrEqual(Math.floor(STEPS / 25))
      for (const c of compactions) {
        expect(c.strategy).toBe(strategy)
        expect(c.tokensBefore).toBeGreaterThan(maxTokens)
        expect(c.tokensAfter).toBeLessThanOrEqual(maxTokens)
      }
      expect(events.filter((e) => e.type === 'tool/result')).toHaveLength(STEPS)
      // Every request after a compaction fits: the requests stay small however long the session.
      const steps = server.received.filter(
        (x) => !String(x.body.messages[0]?.content).startsWith('You compress'),
      )
      expect(steps).toHaveLength(STEPS)
      const largest = Math.max(...steps.map((x) => estimateTokens(x.raw)))
      // The wire's JSON framing adds about a third to what the budget counts.
      expect(largest).toBeLessThan(maxTokens * 1.5)
      if (strategy === 'clear-tool-results') {
        const stub = steps
          .at(-1)!
          .body.messages.find(
            (m: { role: string; content: string }) =>
              m.role === 'tool' && m.content.startsWith('[tool result cleared'),
          )
        expect(stub.content).toMatch(
          /^\[tool result cleared to fit the context budget: read — Read src\/file-\d+\.ts; the full result is in the session log at seq \d+\]$/,
        )
      } else {
        expect(steps.at(-1)!.body.messages[0].content).toBe(
          `${SUMMARY_HEADING}\n\n${/Summary \d+: read \d+ files so far\.$/.exec(steps.at(-1)!.body.messages[0].content)?.[0]}`,
        )
      }
      // Replay: from scratch, and from a reopened session, the messages the last request was built from.
      const live = JSON.stringify(session.messages())
      expect(JSON.stringify(deriveMessages(events))).toBe(live)
      await session.close()
      const reopened = await openSession(store, { id: 'long' })
      expect(JSON.stringify(reopened.messages())).toBe(live)
      // The last request carried exactly the messages derived before its reply and result were logged.
      const last: { role: string; tool_call_id?: string; content: unknown }[] = steps.at(-1)!.body.messages
      const before = reopened.messages().slice(0, -2)
      expect(last.map((m) => (m.role === 'tool' ? `tool ${m.tool_call_id}` : m.role))).toEqual(
        before.map((m) => (m.role === 'tool' ? `tool ${m.callId}` : m.role)),
      )
      for (const [i, m] of before.entries()) {
        const block = m.content[0]
        if (m.role !== 'assistant' && block?.type === 'text') expect(last[i]!.content).toBe(block.text)
      }
    },
    120_000,
  )
  it('T3.9: a summary enters the history as a context of its own, never as a user message', async () => {
    const r = await rig({ store: 'memory' })
    tools(r)
    const store = memoryStore()
    const session = await openSession(store, { id: 'short' })
    const server = await longServer()
    const model = openaiCompatible({ baseURL: server.baseURL, apiKey: 'k', model: 'm', maxRetries: 0 })
    const agent = agentOn(r, {
      session,
      model,
      maxSteps: 80,
      maxToolCalls: Number.POSITIVE_INFINITY,
      context: { maxTokens: 6_000, strategy: 'summarise' },
    })
    await agent.send('read every file')
    const compactions = session
      .events()
      .flatMap((e) => (e.type === 'context/compacted' && e.data.strategy === 'summarise' ? [e.data] : []))
    expect(compactions.length).toBeGreaterThan(0)
    for (const c of compactions) {
      expect(c.summary.source).toEqual({ kind: 'summary', through: c.through })
      expect(c.summary.content[0]).toEqual({
        type: 'text',
        text: expect.stringMatching(/^\[Context note, not a message from the user: [^\n]*\]\n\nSummary \d+/),
      })
    }
    expect(SUMMARY_HEADING).toMatch(/^\[Context note, not a message from the user: /)
    // The derived history (and so a replay) holds it as that context, first.
    const first = session.messages()[0]
    expect(first).toMatchObject({ role: 'user', source: { kind: 'summary' } })
    expect(JSON.stringify(deriveMessages(session.events()))).toBe(JSON.stringify(session.messages()))
    await session.close()
  }, 60_000)
})
