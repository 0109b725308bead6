/**
 * Client capabilities of `mcpTools` (Y2.24–Y2.27) and tool bodies' own forms (Y1.35): a tooltx
 * server in its own process over stdio, asked by the official client or by `mcpTools`; for roots,
 * an official-SDK server in its own process.
 */
import { Client, type ClientCapabilities } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { createToolRuntime, defineTool } from '@tooltx/core'
import {
  type ElicitQuestion,
  elicit,
  type McpToolsOptions,
  mcpTools,
  type SampleQuestion,
  type ServerLogEntry,
} from '@tooltx/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupAll, cleanups, fixture } from './mcp.fixtures.js'

afterEach(cleanupAll)

const FORM = {
  message: 'Which colour?',
  requestedSchema: {
    type: 'object' as const,
    properties: {
      colour: { type: 'string' as const, enum: ['red', 'blue'], default: 'blue' },
      count: { type: 'integer' as const, default: 2 },
    },
    required: ['colour'],
  },
}

/** The stdio fixture serving `ask` (fills the form it is given, through `elicit`) and `chatty`. */
const FORMS = { command: process.execPath, args: [fixture('forms-server.mjs')] }
const ASK = { form: JSON.stringify(FORM) }

/** An official client of the forms fixture, announcing `capabilities`. */
async function officialClient(
  capabilities: ClientCapabilities,
  setup: (client: Client) => void = () => undefined,
) {
  const client = new Client({ name: 'person', version: '1.0.0' }, { capabilities })
  setup(client)
  await client.connect(new StdioClientTransport(FORMS))
  cleanups.push(() => client.close())
  return client
}

/** Imports the forms fixture with `options` into a fresh runtime, and a function calling one of its tools. */
async function imported(options: Omit<McpToolsOptions, 'name'> & { name: string }) {
  const set = await mcpTools(FORMS, options)
  cleanups.push(() => set.close())
  const runtime = createToolRuntime()
  set.register(runtime)
  return (tool: string, args: object = {}) =>
    runtime.execute({
      callId: `${options.name}_${tool}`,
      name: `mcp__${options.name}__${tool}`,
      arguments: args,
      signal: AbortSignal.timeout(10_000),
    })
}

/** The text of a tooltx result's first block. */
const textOf = (result: { content: readonly { type: string; text?: unknown }[] }) => result.content[0]?.text
/** The text of an MCP result's first block. */
const mcpText = (result: { content: unknown }) => (result.content as { text: string }[])[0]!.text

/** The reply a body reads when its client did not announce elicitation (Y1.35). */
const NO_FORMS = {
  action: 'cancel',
  reason: 'the MCP client of this call did not announce elicitation, so it cannot be asked a form',
}

describe('Y1.35 a served body asks its own form with run.elicit(form)', () => {
  it('Y1.35 reaches the official client of the served call and resolves with its answer', async () => {
    const seen: unknown[] = []
    const client = await officialClient({ elicitation: { form: {} } }, (c) =>
      c.setRequestHandler('elicitation/create', (request) => {
        seen.push(request.params)
        return { action: 'accept', content: { colour: 'red', count: 3 } }
      }),
    )
    const result = await client.callTool({ name: 'ask', arguments: ASK })
    expect(seen).toEqual([{ mode: 'form', ...FORM }])
    expect(JSON.parse(mcpText(result))).toEqual({ action: 'accept', content: { colour: 'red', count: 3 } })
  })

  it('Y1.35 a client without elicitation is not asked: the body reads a cancel saying why', async () => {
    const client = await officialClient({})
    expect(JSON.parse(mcpText(await client.callTool({ name: 'ask', arguments: ASK })))).toEqual(NO_FORMS)
  })

  it('Y1.35 cancelling the call cancels the question at the client', async () => {
    let questionSignal: AbortSignal | undefined
    let onAsked = () => {}
    const asked = new Promise<void>((resolve) => {
      onAsked = resolve
    })
    const client = await officialClient({ elicitation: { form: {} } }, (c) =>
      c.setRequestHandler('elicitation/create', (_request, ctx) => {
        questionSignal = ctx.mcpReq.signal
        onAsked()
        return new Promise(() => {})
      }),
    )
    const call = new AbortController()
    const pending = client.callTool({ name: 'ask', arguments: ASK }, { signal: call.signal })
    await asked
    call.abort()
    await expect(pending).rejects.toThrow()
    await expect.poll(() => questionSignal?.aborted).toBe(true)
  })

  it('Y1.35 a form MCP does not allow fails the call and the client is never asked', async () => {
    const seen: unknown[] = []
    const client = await officialClient({ elicitation: { form: {} } }, (c) =>
      c.setRequestHandler('elicitation/create', (request) => {
        seen.push(request.params)
        return { action: 'decline' }
      }),
    )
    const nested = {
      message: 'Where?',
      requestedSchema: { type: 'object', properties: { at: { type: 'object' } } },
    }
    const result = await client.callTool({ name: 'ask', arguments: { form: JSON.stringify(nested) } })
    expect(result.isError).toBe(true)
    expect(mcpText(result)).toContain(
      'elicit: requestedSchema.properties.at has no "type" a form field may have',
    )
    expect(seen).toEqual([])
  })

  it('Y1.31 the deprecated elicit(run, form) is run.elicit: a call no host answers reads a cancel saying why', async () => {
    const runtime = createToolRuntime()
    runtime.register(
      defineTool({
        name: 'local',
        description: 'Not served.',
        parameters: {},
        execute: async (_args, run) => JSON.stringify(await elicit(run, FORM)),
      }),
    )
    const local = await runtime.execute({
      callId: 'l',
      name: 'local',
      arguments: {},
      signal: AbortSignal.timeout(5000),
    })
    expect(JSON.parse(JSON.parse(textOf(local) as string))).toEqual({
      action: 'cancel',
      reason:
        'no one can answer a form for this call: its host gave no elicitation handler (execute input "elicit")',
    })
  })
})

describe('Y2.24 mcpTools({ onElicit }) answers the server', () => {
  it('Y2.24 Y2.29 the question reaches the handler with the server name and the call it arrived during, and omitted fields take their defaults', async () => {
    const questions: ElicitQuestion[] = []
    const call = await imported({
      name: 'forms',
      onElicit: (question) => {
        questions.push(question)
        return { action: 'accept', content: { colour: 'red' } }
      },
    })
    const result = await call('ask', ASK)
    expect(
      questions.map(({ server, message, requestedSchema }) => ({ server, message, requestedSchema })),
    ).toEqual([{ server: 'forms', ...FORM }])
    expect(questions[0]!.signal).toBeInstanceOf(AbortSignal)
    expect(questions[0]!.calls, 'Y2.29 the call it arrived during').toEqual(['forms_ask'])
    expect(JSON.parse(textOf(result) as string)).toEqual({
      action: 'accept',
      content: { colour: 'red', count: 2 },
    })
  })

  it('Y2.24 without onElicit the capability is not announced; a throwing handler answers cancel', async () => {
    const plain = await imported({ name: 'plain' })
    const failing = await imported({
      name: 'failing',
      onElicit: () => {
        throw new Error('no terminal')
      },
    })
    expect(JSON.parse(textOf(await plain('ask', ASK)) as string)).toEqual(NO_FORMS)
    expect(textOf(await failing('ask', ASK))).toBe('{"action":"cancel"}')
  })
})

describe('Y2.25 mcpTools({ onLog }) takes the server log', () => {
  it('Y2.25 each notifications/message reaches the handler with its level and the server name', async () => {
    const entries: ServerLogEntry[] = []
    const call = await imported({ name: 'logs', onLog: (entry) => entries.push(entry) })
    await call('chatty')
    expect(entries).toEqual([
      { server: 'logs', level: 'warning', data: { disk: 'almost full' } },
      { server: 'logs', level: 'debug', data: 'details' },
    ])
  })
})

describe('Y1.33 and Y2.28 a tool body asks the client model with sample(run, request)', () => {
  it('Y2.28 Y2.29 onSample gets the server name, messages, system prompt, token bound and the calls it arrived during; its answer reaches the body', async () => {
    const questions: SampleQuestion[] = []
    const call = await imported({
      name: 'model',
      onSample: (question) => {
        questions.push(question)
        return { model: 'local-7b', text: 'Short answer.' }
      },
    })
    const result = await call('complete', { prompt: 'Say something.' })
    expect(questions.map(({ signal: _, ...rest }) => rest)).toEqual([
      {
        server: 'model',
        messages: [{ role: 'user', content: { type: 'text', text: 'Say something.' } }],
        systemPrompt: 'Be brief.',
        maxTokens: 50,
        calls: ['model_complete'],
      },
    ])
    expect(JSON.parse(textOf(result) as string)).toEqual({ model: 'local-7b', text: 'Short answer.' })
  })

  it('Y1.33 without onSample the capability is not announced and sample rejects saying why; a refusal reaches the body', async () => {
    const plain = await imported({ name: 'plain' })
    const refusing = await imported({
      name: 'refusing',
      onSample: () => {
        throw new Error('the person said no')
      },
    })
    const unanswered = await plain('complete', { prompt: 'x' })
    expect(unanswered.isError).toBe(true)
    expect(textOf(unanswered)).toContain(
      'sample: no MCP client can answer: the call is not served by mcpServer to a client that announced sampling',
    )
    const refused = await refusing('complete', { prompt: 'x' })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toContain('the person said no')
  })
})

describe('Y2.26 mcpTools({ roots }) announces the host workspace', () => {
  it('Y2.26 the server lists the roots as file URIs named after the directory; none, no capability', async () => {
    const connection = { command: process.execPath, args: [fixture('roots-server.mjs')] }
    const runtime = createToolRuntime()
    const withRoots = await mcpTools(connection, {
      name: 'ws',
      roots: ['/srv/projects/site'],
      reconnect: false,
    })
    cleanups.push(() => withRoots.close())
    withRoots.register(runtime)
    const result = await runtime.execute({
      callId: 'r1',
      name: 'mcp__ws__roots',
      arguments: {},
      signal: AbortSignal.timeout(10_000),
    })
    expect(JSON.parse(textOf(result) as string)).toEqual([{ uri: 'file:///srv/projects/site', name: 'site' }])
    await withRoots.close()
    const bare = await mcpTools(connection, { name: 'bare', reconnect: false })
    cleanups.push(() => bare.close())
    bare.register(runtime)
    const none = await runtime.execute({
      callId: 'r2',
      name: 'mcp__bare__roots',
      arguments: {},
      signal: AbortSignal.timeout(10_000),
    })
    expect(textOf(none)).toBe('no roots capability')
  })
})

describe('Y2.27 the capability options are checked', () => {
  it.each([
    [{ onElicit: 'yes' }, 'mcpTools: onElicit must be a function'],
    [{ onLog: 42 }, 'mcpTools: onLog must be a function'],
    [{ onSample: {} }, 'mcpTools: onSample must be a function'],
    [{ roots: '/tmp' }, 'mcpTools: roots must be an array of directory paths'],
    [{ roots: [''] }, 'mcpTools: roots must be an array of directory paths'],
  ])('Y2.27 %j is refused before connecting', async (bad, message) => {
    await expect(
      mcpTools({ url: 'http://127.0.0.1:9/mcp' }, { name: 'x', ...(bad as object) }),
    ).rejects.toMatchObject({ code: 'INVALID_DEFINITION', message })
  })
})
