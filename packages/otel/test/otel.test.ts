import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { instrument } from '@tooltx/otel'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { sumTool } from '../../core/test/pipeline.fixtures.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const tracer = provider.getTracer('test')
const contextManager = new AsyncLocalStorageContextManager()

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
})
afterAll(() => {
  contextManager.disable()
  context.disable()
})
beforeEach(() => exporter.reset())

const signal = new AbortController().signal

/** A runtime with `add` (pure), `deploy` (asks) and `fetch_page` (starts its own span). */
function rig(options: { approver?: 'allowed-once' | 'rejected' } = {}): ToolRuntime {
  const runtime = createToolRuntime(
    options.approver === undefined ? {} : { approver: () => options.approver as 'allowed-once' | 'rejected' },
  )
  runtime.register(sumTool())
  runtime.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy a service.',
      parameters: { target: { type: 'string', required: true } },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      execute: async ({ target }) => `deployed ${target}`,
    }),
  )
  runtime.register(
    defineTool({
      name: 'fetch_page',
      description: 'Fetch a page.',
      parameters: {},
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      execute: async () =>
        tracer.startActiveSpan('GET /page', (span) => {
          span.end()
          return 'page'
        }),
    }),
  )
  return runtime
}

/** Registered after `instrument`, as the README says: denies production, asks for deploys. */
function policy(runtime: ToolRuntime): void {
  runtime.onPreExecute(async (exec, next) => {
    const target = (exec.arguments as { target?: string } | undefined)?.target
    if (target === 'production') return { kind: 'deny', reason: 'production is frozen' }
    if (exec.name === 'deploy') return { kind: 'ask', reason: 'deploys change things' }
    return next()
  })
}

const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name)
const events = (span: ReadableSpan | undefined) =>
  span?.events.map((event) =>
    Object.keys(event.attributes ?? {}).length === 0 ? [event.name] : [event.name, event.attributes],
  )

describe('Z3: OpenTelemetry spans', () => {
  it('Z3.1: a call emits execute_tool <name> with the GenAI attributes, as a child of the active invoke_agent span', async () => {
    const runtime = rig()
    instrument(runtime, { tracer })
    const result = await tracer.startActiveSpan('invoke_agent demo', async (agentSpan) => {
      const r = await runtime.execute({ callId: 'c1', name: 'add', arguments: { a: 2, b: 3 }, signal })
      agentSpan.end()
      return r
    })
    expect(result.isError).toBe(false)
    const [span] = spans('execute_tool add')
    const [agent] = spans('invoke_agent demo')
    expect(span?.kind).toBe(SpanKind.INTERNAL)
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Add two integers.',
    })
    expect(span?.status.code).toBe(SpanStatusCode.UNSET)
    expect(span?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId)
    expect(span?.spanContext().traceId).toBe(agent?.spanContext().traceId)
    expect(events(span)).toEqual([
      ['decided', { 'tooltx.decision': 'allow' }],
      ['dispatched'],
      ['finalized', { 'tooltx.is_error': false }],
    ])
  })

  it('Z3.2: a failure sets error.type to its code and the status to ERROR with the message', async () => {
    const runtime = rig()
    instrument(runtime, { tracer })
    policy(runtime)
    await runtime.execute({ callId: 'd1', name: 'deploy', arguments: { target: 'production' }, signal })
    await runtime.execute({ callId: 'a1', name: 'add', arguments: { a: 'two', b: 3 }, signal })
    // Not lossless JSON: fails at entry, before any hook but the observers.
    await runtime.execute({ callId: 'a2', name: 'add', arguments: { a: Number.NaN, b: 1 }, signal })

    const [denied] = spans('execute_tool deploy')
    expect(denied?.attributes['error.type']).toBe('DENIED')
    expect(denied?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: expect.stringContaining('production is frozen'),
    })
    expect(events(denied)).toEqual([
      ['decided', { 'tooltx.decision': 'deny', 'tooltx.reason': 'production is frozen' }],
      ['finalized', { 'tooltx.is_error': true, 'tooltx.error.code': 'DENIED' }],
    ])
    const [invalid, entry] = spans('execute_tool add')
    expect(invalid?.attributes['error.type']).toBe('INVALID_ARGS')
    expect(invalid?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'invalid arguments: "a" must be an integer',
    })
    expect(events(invalid)?.map(([name]) => name)).toEqual(['decided', 'dispatched', 'finalized'])
    expect(entry?.attributes['gen_ai.tool.call.id']).toBe('a2')
    expect(entry?.attributes['error.type']).toBe('INVALID_ARGS')
    expect(events(entry)).toEqual([
      ['finalized', { 'tooltx.is_error': true, 'tooltx.error.code': 'INVALID_ARGS' }],
    ])
  })

  it('Z3.3: an ask that the approver grants shows approved before dispatched; a rejected one never dispatches', async () => {
    const granted = rig({ approver: 'allowed-once' })
    instrument(granted, { tracer })
    policy(granted)
    await granted.execute({ callId: 'g1', name: 'deploy', arguments: { target: 'staging' }, signal })
    const rejected = rig({ approver: 'rejected' })
    instrument(rejected, { tracer })
    policy(rejected)
    await rejected.execute({ callId: 'r1', name: 'deploy', arguments: { target: 'staging' }, signal })

    const [ok, no] = spans('execute_tool deploy')
    expect(events(ok)).toEqual([
      ['decided', { 'tooltx.decision': 'ask', 'tooltx.reason': 'deploys change things' }],
      ['approved'],
      ['dispatched'],
      ['finalized', { 'tooltx.is_error': false }],
    ])
    expect(events(no)).toEqual([
      ['decided', { 'tooltx.decision': 'ask', 'tooltx.reason': 'deploys change things' }],
      ['finalized', { 'tooltx.is_error': true, 'tooltx.error.code': 'DENIED' }],
    ])
  })

  it('Z3.4: arguments and results are recorded only when opted in', async () => {
    const runtime = rig()
    instrument(runtime, { tracer, recordArguments: true, recordResults: true })
    await runtime.execute({ callId: 'c1', name: 'add', arguments: { a: 2, b: 3 }, signal })
    const [span] = spans('execute_tool add')
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe('{"a":2,"b":3}')
    expect(span?.attributes['gen_ai.tool.call.result']).toBe('[{"type":"text","text":"5"}]')
  })

  it('Z3.5: the tool span is the active context inside the body, so the body’s own spans nest under it', async () => {
    const runtime = rig()
    instrument(runtime, { tracer })
    await runtime.execute({ callId: 'f1', name: 'fetch_page', arguments: {}, signal })
    const [tool] = spans('execute_tool fetch_page')
    const [inner] = spans('GET /page')
    expect(inner?.parentSpanContext?.spanId).toBe(tool?.spanContext().spanId)
    // Without an active span the tool span is a root.
    expect(tool?.parentSpanContext).toBeUndefined()
  })

  it('Z3.6: with { scope } only that scope’s calls are traced; the disposer stops tracing; the global tracer is the default', async () => {
    const runtime = rig()
    const scope = runtime.scope()
    const off = instrument(runtime, { scope })
    trace.setGlobalTracerProvider(provider)
    await runtime.execute({ callId: 's1', name: 'add', arguments: { a: 1, b: 1 }, signal, scope })
    await runtime.execute({ callId: 'g1', name: 'add', arguments: { a: 1, b: 1 }, signal })
    off()
    await runtime.execute({ callId: 's2', name: 'add', arguments: { a: 1, b: 1 }, signal, scope })
    trace.disable()
    const traced = exporter.getFinishedSpans()
    expect(traced.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['s1'])
    expect(traced[0]?.instrumentationScope.name).toBe('@tooltx/otel')
  })

  it('Z3.7: without @opentelemetry/api, instrument says how to install it', async () => {
    vi.resetModules()
    vi.doMock('node:module', () => ({
      createRequire: () => () => {
        throw new Error("Cannot find module '@opentelemetry/api'\nRequire stack: …")
      },
    }))
    try {
      const { instrument: fresh } = await import('../src/instrument.js')
      expect(() => fresh(rig())).toThrow(
        'instrument: cannot load the "@opentelemetry/api" package (Cannot find module \'@opentelemetry/api\'). ' +
          'It is an optional peer dependency of @tooltx/otel, so install it next to it: npm install @opentelemetry/api',
      )
    } finally {
      vi.doUnmock('node:module')
      vi.resetModules()
    }
  })
})
