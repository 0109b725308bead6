import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createAgent, scripted } from '@tooltx/agent'
import { instrument } from '@tooltx/otel'
import { memoryStore, openSession } from '@tooltx/session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// The CLI demo itself: its scripted replies, task and workspace tools with their policy.
import { DEMO_SCRIPT, DEMO_TASK } from '../../cli/src/demo-script.js'
import { createToolset, fixedApprover } from '../../cli/src/toolset.js'

const exporter = new InMemorySpanExporter()
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  'demo',
)
const contextManager = new AsyncLocalStorageContextManager()
const sample = fileURLToPath(new URL('../../cli/sample-workspace', import.meta.url))
let root = ''

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable())
  root = mkdtempSync(path.join(os.tmpdir(), 'tooltx-otel-demo-'))
  cpSync(sample, root, { recursive: true })
})
afterAll(() => {
  contextManager.disable()
  context.disable()
  rmSync(root, { recursive: true, force: true })
})

describe('Z3: the spans of a demo run', () => {
  it('Z3.1, Z3.2, Z3.3, Z3.8: every tool call of the CLI demo is one execute_tool span under invoke_agent, with the GenAI attributes and its failure code', async () => {
    // Room for lint on a loaded machine; slow-check still runs far past it (30 s).
    const { runtime, scope } = createToolset({ root, checkTimeoutMs: 3_000 })
    instrument(runtime, { tracer })
    const session = await openSession(memoryStore(), { id: 'otel-demo' })
    const agent = createAgent({
      runtime,
      scope,
      session,
      model: scripted(DEMO_SCRIPT),
      approver: fixedApprover('allowed-once'),
    })
    await tracer.startActiveSpan('invoke_agent tooltx-demo', { kind: SpanKind.INTERNAL }, async (span) => {
      span.setAttribute('gen_ai.operation.name', 'invoke_agent')
      agent.send(DEMO_TASK)
      await agent.whenIdle()
      span.end()
    })
    await session.close()

    const finished = exporter.getFinishedSpans()
    const invoke = finished.find((s) => s.name === 'invoke_agent tooltx-demo')!
    const tools = finished.filter((s) => s.name.startsWith('execute_tool '))
    const calls = DEMO_SCRIPT.flatMap((step) => step.toolCalls ?? [])
    // One span per tool call of the script, each the child of invoke_agent in its trace.
    expect(tools.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(
      calls.map((c) => c.id).sort(),
    )
    for (const span of tools) {
      const call = calls.find((c) => c.id === span.attributes['gen_ai.tool.call.id'])!
      expect(span.name).toBe(`execute_tool ${call.name}`)
      expect(span.kind).toBe(SpanKind.INTERNAL)
      expect(span.parentSpanContext?.spanId).toBe(invoke.spanContext().spanId)
      expect(span.spanContext().traceId).toBe(invoke.spanContext().traceId)
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.type': 'function',
      })
      expect(typeof span.attributes['gen_ai.tool.description']).toBe('string')
      // Arguments and results stay out of the spans unless opted in (Z3.4).
      expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined()
      expect(span.attributes['gen_ai.tool.call.result']).toBeUndefined()
    }
    const byId = (id: string) => tools.find((s) => s.attributes['gen_ai.tool.call.id'] === id)!
    const outcome = (id: string) => [byId(id).status.code, byId(id).attributes['error.type']]
    expect(outcome('call_list')).toEqual([SpanStatusCode.UNSET, undefined])
    expect(outcome('call_grep')).toEqual([SpanStatusCode.UNSET, undefined])
    expect(outcome('call_readme')).toEqual([SpanStatusCode.UNSET, undefined])
    expect(outcome('call_env')).toEqual([SpanStatusCode.ERROR, 'DENIED'])
    expect(outcome('call_slow')).toEqual([SpanStatusCode.ERROR, 'TOOL_TIMEOUT'])
    expect(outcome('call_note')).toEqual([SpanStatusCode.UNSET, undefined])
    const names = (id: string) => byId(id).events.map((e) => e.name)
    expect(names('call_readme')).toEqual(['decided', 'dispatched', 'finalized'])
    // The guard denies after the pre-execute decision: no dispatch.
    expect(names('call_env')).toEqual(['decided', 'finalized'])
    // The CLI's policy, registered before instrument, answers write_note's ask itself, so the
    // span first hears of the call at dispatch (Z3.3: instrument sees the handlers after it).
    expect(names('call_note')).toEqual(['dispatched', 'finalized'])
  })
})
