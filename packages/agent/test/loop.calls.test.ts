import { auditSession, scripted } from '@tooltx/agent'
import { defineTool, parseToolArguments, type ToolCallBlock, type ToolDefinition } from '@tooltx/core'
import { ERROR_NAMES } from '@tooltx/core/internal'
import { describe, expect } from 'vitest'
import {
  agentOn,
  call,
  closingText,
  eventually,
  firstResult,
  go,
  idleLines,
  it,
  lines,
  OPENING,
  parallelBatch,
} from './loop-harness.js'

/** A raw tool (no validation) that records the arguments it was given. */
function rawRecorder(seen: unknown[]): ToolDefinition {
  return {
    name: 'raw',
    description: 'Records its arguments.',
    parameters: { type: 'object' },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
    isConcurrencySafe: () => true,
    execute: (a) => {
      seen.push(a)
      return 'ok'
    },
  }
}

/** What `JSON.parse` says of `text`. */
function jsonError(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${text} is JSON`)
}

describe('L4 tool calls in the loop (SQLite session)', () => {
  it('L4.1, L4.2: empty → {}, whitespace → {}, JSON → parsed (a JSON string too), which a raw tool receives unchanged', async ({
    r,
  }) => {
    const seen: unknown[] = []
    r.scope.register(rawRecorder(seen))
    const { agent } = go(r, [
      {
        toolCalls: [
          { name: 'raw', arguments: '' },
          { name: 'raw', arguments: ' \n\t' },
          { name: 'raw', arguments: '{"a":[1,2]}' },
          { name: 'raw', arguments: '7' },
          { name: 'raw', arguments: '"{\\"a\\": tru"' },
        ],
      },
      { text: 'ok' },
    ])
    await agent.whenIdle()
    expect(seen).toEqual([{}, {}, { a: [1, 2] }, 7, '{"a": tru'])
    // The log keeps the raw strings, not the parsed values (L4.4).
    const raws = r.session.events().flatMap((e) => (e.type === 'tool/call' ? [e.data.arguments] : []))
    expect(raws).toEqual(['', ' \n\t', '{"a":[1,2]}', '7', '"{\\"a\\": tru"'])
  })

  it('L4.2: a defineTool tool fails a JSON string argument with "arguments" must be an object', async ({
    r,
  }) => {
    const { agent } = go(r, [
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: '"not an object"' }] },
      { text: 'ok' },
    ])
    await agent.whenIdle()
    expect(firstResult(r.session)).toMatchObject({
      callId: 'c1',
      isError: true,
      error: { code: 'INVALID_ARGS' },
      content: [{ type: 'text', text: 'Error: invalid arguments: "arguments" must be an object' }],
    })
    expect(r.trace).toEqual([])
  })

  it('L4.2, L4.7: arguments that are not JSON reach no tool; the model reads what the parser found and where, and the turn goes on', async ({
    r,
  }) => {
    const seen: unknown[] = []
    r.scope.register(rawRecorder(seen))
    const entered: string[] = []
    r.runtime.onPreExecute((exec, next) => {
      entered.push(exec.callId)
      return next()
    })
    const { agent, model } = go(r, [
      {
        toolCalls: [
          { id: 'c1', name: 'echo', arguments: '{"path": "a",' },
          { id: 'c2', name: 'raw', arguments: "{'single': 1}" },
          { id: 'c3', name: 'raw', arguments: '{"path": ' },
          { id: 'c4', name: 'raw', arguments: '{"ok": true}' },
        ],
      },
      { text: 'fixed' },
    ])
    await agent.whenIdle()
    const results = r.session.events().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))
    const texts = results.map((result) =>
      result.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    )
    const notJson = (what: string) => `Error: invalid arguments: arguments are not valid JSON: ${what}`
    expect(texts.slice(0, 3)).toEqual([
      notJson(jsonError('{"path": "a",')),
      notJson(jsonError("{'single': 1}")),
      notJson('Unexpected end of JSON input at position 9'),
    ])
    expect(texts[0]).toMatch(/position 13/)
    expect(texts[1]).toMatch(/position 1/)
    expect(results.slice(0, 3).map((result) => result.error)).toEqual(
      Array(3).fill({ name: ERROR_NAMES.INVALID_ARGS, code: 'INVALID_ARGS' }),
    )
    // No pipeline ran for them; the valid call of the same batch ran, and the turn went on.
    expect(entered).toEqual(['c4'])
    expect(seen).toEqual([{ ok: true }])
    const tool = model.requests[1]!.messages.find((m) => m.role === 'tool' && m.callId === 'c2')
    expect(tool).toMatchObject({ isError: true, content: [{ type: 'text', text: texts[1] }] })
    expect(r.session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
    // The audit says the same of the recorded calls, running nothing.
    const audit = await auditSession(r.session.events(), r.runtime, { scope: r.scope })
    expect(audit.calls.slice(0, 3).map((c) => c.after)).toEqual(
      texts.slice(0, 3).map((text) => ({ kind: 'invalid', reason: text.slice('Error: '.length) })),
    )
    expect(audit.changed).toBe(0)
  })

  it('L4.7, Z1.4: a model adapter that parses arguments itself gets the same failure for text that is not JSON', async ({
    r,
  }) => {
    const parsed: string[] = []
    const model = scripted([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"path": "a",' }] },
      { text: 'fixed' },
    ])
    const agent = agentOn(r, {
      model: Object.assign(model, {
        parseArguments: (block: ToolCallBlock) => {
          parsed.push(block.id)
          return parseToolArguments(block.arguments)
        },
      }),
    })
    agent.send('go')
    await agent.whenIdle()
    expect(parsed).toEqual(['c1'])
    expect(firstResult(r.session)).toMatchObject({
      callId: 'c1',
      error: { code: 'INVALID_ARGS' },
      content: [
        {
          type: 'text',
          text: `Error: invalid arguments: arguments are not valid JSON: ${jsonError('{"path": "a",')}`,
        },
      ],
    })
    expect(r.session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
  })

  it('L4.3, L4.4: each call gets its own input; its tool/call is durable when its pipeline starts, and no later call is logged before it starts', async ({
    r,
  }) => {
    const atEntry: { callId: string; rootCallId: string; scoped: boolean; logged: string[] }[] = []
    r.runtime.onPreExecute((exec, next) => {
      atEntry.push({
        callId: exec.callId,
        rootCallId: exec.rootCallId,
        scoped: exec.scope === r.scope,
        logged: r.session.events().flatMap((e) => (e.type === 'tool/call' ? [e.data.callId] : [])),
      })
      return next()
    })
    const { agent } = go(
      r,
      [
        { toolCalls: [call('wait', '1'), call('wait', '2'), call('wait', '3'), call('write', '4')] },
        { text: 'ok' },
      ],
      { maxParallelToolCalls: 2 },
    )
    await eventually(() => atEntry.length === 2, 'the first two calls started')
    r.gates.open('1')
    await eventually(() => atEntry.length === 3, 'call 3 took the free slot')
    r.gates.open('2')
    r.gates.open('3')
    r.gates.open('4')
    await agent.whenIdle()
    // The two calls that start together share one write; each later call is logged as it starts.
    expect(atEntry).toEqual([
      { callId: 'c1', rootCallId: 'c1', scoped: true, logged: ['c1', 'c2'] },
      { callId: 'c2', rootCallId: 'c2', scoped: true, logged: ['c1', 'c2'] },
      { callId: 'c3', rootCallId: 'c3', scoped: true, logged: ['c1', 'c2', 'c3'] },
      { callId: 'c4', rootCallId: 'c4', scoped: true, logged: ['c1', 'c2', 'c3', 'c4'] },
    ])
  })

  it('L4.5, L4.6, L5.3: a parallel batch starts in model order, overlaps, and commits in model order whatever order it finishes in', async ({
    r,
  }) => {
    const { agent } = go(r, [
      { toolCalls: [call('wait', '1'), call('wait', '2'), call('wait', '3')] },
      { text: 'ok' },
    ])
    await eventually(() => r.trace.length === 3, 'all three calls started')
    expect(r.trace).toEqual(['start 1', 'start 2', 'start 3'])
    r.gates.open('3')
    await eventually(() => r.trace.includes('end 3'), 'call 3 finished')
    r.gates.open('2')
    await eventually(() => r.trace.includes('end 2'), 'call 2 finished')
    // Nothing is committed before call 1 has its result.
    expect(lines(r.session).filter((l) => l.startsWith('tool/result'))).toEqual([])
    r.gates.open('1')
    expect(await idleLines(r, agent)).toEqual([
      ...OPENING,
      ...parallelBatch('1', '2', '3'),
      ...closingText('ok'),
    ])
    expect(r.trace).toEqual(['start 1', 'start 2', 'start 3', 'end 3', 'end 2', 'end 1'])
  })
})

describe('O2 durable results', () => {
  it('O2.1, O2.2, O2.3, O2.4: tool/result holds content, isError, error info and meta only; the model sees content and isError', async ({
    r,
  }) => {
    r.scope.register(
      defineTool({
        name: 'measure',
        description: 'Returns a value with meta and a context.',
        parameters: {},
        output: {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { n: { type: 'integer', required: true } },
          },
          render: (_a, v) => [{ type: 'text', text: `n=${v.n}` }],
          presentationMeta: (_a, v) => ({ lines: v.n }),
        },
        isConcurrencySafe: () => true,
        execute: (_a, run) => {
          run.deferContext('context text')
          return { n: 3 }
        },
      }),
    )
    const { agent, model } = go(r, [
      {
        toolCalls: [
          { id: 'c1', name: 'measure', arguments: '{}' },
          { id: 'c2', name: 'missing', arguments: '{}' },
        ],
      },
      { text: 'ok' },
    ])
    await agent.whenIdle()
    const results = r.session.events().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))
    expect(results).toEqual([
      {
        turn: 1,
        step: 1,
        callId: 'c1',
        name: 'measure',
        content: [{ type: 'text', text: 'n=3' }],
        isError: false,
        meta: { lines: 3 },
      },
      {
        turn: 1,
        step: 1,
        callId: 'c2',
        name: 'missing',
        content: [{ type: 'text', text: 'Error: unknown tool "missing"' }],
        isError: true,
        error: { name: ERROR_NAMES.UNKNOWN_TOOL, code: 'UNKNOWN_TOOL' },
      },
    ])
    // O2.3: the context reached the log only as its own user/message.
    expect(lines(r.session).filter((l) => l.startsWith('user/message'))).toEqual([
      'user/message "go"',
      'user/message "context text"',
    ])
    // O2.4: the next request sees only content and isError.
    expect(model.requests[1]?.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'n=3' }], isError: false },
      {
        role: 'tool',
        callId: 'c2',
        content: [{ type: 'text', text: 'Error: unknown tool "missing"' }],
        isError: true,
      },
    ])
  })
})

describe('L10 ownership of durability', () => {
  it('L10.1: runtime.execute appends nothing to the session; only the loop does', async ({ r }) => {
    const before = r.session.events().length
    const result = await r.runtime.execute({
      callId: 'direct',
      name: 'echo',
      arguments: { id: 'x' },
      signal: new AbortController().signal,
      scope: r.scope,
    })
    expect(result).toMatchObject({ isError: false, value: 'echo x' })
    expect(r.session.events().length).toBe(before)
    // The session's lease is given back first, as a restart's would be when its process died.
    await r.session.close()
    const reopened = await r.reopen()
    expect(reopened.events()).toEqual([])
    await reopened.close()
  })
})
