/**
 * `instrument`: one OpenTelemetry span per tool call (Z3), following the GenAI semantic
 * conventions for `execute_tool`, built only on the runtime's public hooks.
 */
import type { Span, Tracer } from '@opentelemetry/api'
import type { Execution, RuntimeScope, ToolResult, ToolRuntime } from '@tooltx/core'
import { otelApi } from './otel-api.js'

/** Options of `instrument`. */
export interface InstrumentOptions {
  /** The tracer for the spans; default `trace.getTracer('@tooltx/otel')` of the global provider. */
  tracer?: Tracer
  /** Limits the spans to calls in this scope or below; default every call of the runtime. */
  scope?: RuntimeScope
  /** Records `gen_ai.tool.call.arguments` (the arguments as JSON); default `false`: they may hold secrets. */
  recordArguments?: boolean
  /** Records `gen_ai.tool.call.result` (the result's content as JSON); default `false`. */
  recordResults?: boolean
}

/** The span of a call in flight, and what its stage events need to know. */
interface CallSpan {
  span: Span
  asked: boolean
}

/**
 * Makes each tool call of `runtime` (or of `scope`) emit one span `execute_tool <name>` of kind
 * `INTERNAL`, a child of the context active where `runtime.execute` was called, with
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` and,
 * when the view knows it, `gen_ai.tool.description`. Stage events: `decided` (the pre-execute
 * decision), `approved` (an `ask` that reached dispatch), `dispatched` (the body is about to
 * run; the span is the active context inside it), `finalized` (the frozen result). A failure sets
 * `error.type` to its code and the span status to `ERROR`. Returns a disposer that removes
 * the hooks. Registers `onPreExecute`, `wrapExecute` and `onResult` hooks, so instrument before
 * registering policy hooks to see their final decision. A runtime never instrumented pays nothing.
 */
export function instrument(runtime: ToolRuntime, options: InstrumentOptions = {}): () => void {
  const api = otelApi()
  const tracer = options.tracer ?? api.trace.getTracer('@tooltx/otel')
  const hookOptions = options.scope === undefined ? {} : { scope: options.scope }
  // Keyed by the execution's token (I1.3), which every stage and the around view share.
  const calls = new WeakMap<symbol, CallSpan>()

  const open = (exec: Execution): CallSpan => {
    let call = calls.get(exec.token)
    if (call === undefined) {
      const span = tracer.startSpan(
        `execute_tool ${exec.name}`,
        {
          kind: api.SpanKind.INTERNAL,
          attributes: callAttributes(runtime, exec, options.recordArguments === true),
        },
        api.context.active(),
      )
      call = { span, asked: false }
      calls.set(exec.token, call)
    }
    return call
  }

  const offPre = runtime.onPreExecute(async (exec, next) => {
    const call = open(exec)
    const decision = await next()
    call.asked = decision.kind === 'ask'
    call.span.addEvent('decided', {
      'tooltx.decision': decision.kind,
      ...(decision.kind !== 'allow' && decision.reason !== undefined
        ? { 'tooltx.reason': decision.reason }
        : {}),
    })
    return decision
  }, hookOptions)

  const offAround = runtime.wrapExecute((exec, next) => {
    const call = open(exec)
    if (call.asked) call.span.addEvent('approved')
    call.span.addEvent('dispatched')
    return api.context.with(api.trace.setSpan(api.context.active(), call.span), next)
  }, hookOptions)

  const offResult = runtime.onResult((exec, result) => {
    const { span } = open(exec)
    calls.delete(exec.token)
    finish(span, result, options.recordResults === true, api.SpanStatusCode.ERROR)
  }, hookOptions)

  return () => {
    offPre()
    offAround()
    offResult()
  }
}

function callAttributes(runtime: ToolRuntime, exec: Execution, recordArguments: boolean) {
  const attributes: Record<string, string> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': exec.name,
    'gen_ai.tool.call.id': exec.callId,
    'gen_ai.tool.type': 'function',
  }
  const description = describe(runtime, exec)
  if (description !== undefined) attributes['gen_ai.tool.description'] = description
  // Arguments that were not lossless JSON are absent from the execution (P2.4): nothing to record.
  if (recordArguments && exec.arguments !== undefined) {
    attributes['gen_ai.tool.call.arguments'] = JSON.stringify(exec.arguments)
  }
  return attributes
}

/** The visible definition's description, or `undefined` (also when the scope is gone: never throws). */
function describe(runtime: ToolRuntime, exec: Execution): string | undefined {
  try {
    const description = runtime.view(exec.scope as RuntimeScope | undefined).get(exec.name)?.description
    return typeof description === 'string' && description !== '' ? description : undefined
  } catch {
    return undefined
  }
}

function finish(span: Span, result: ToolResult, recordResults: boolean, errorStatus: number): void {
  if (result.isError) {
    const code = result.error.info?.code ?? 'TOOL_FAILED'
    span.setAttribute('error.type', code)
    span.setStatus({ code: errorStatus, message: result.error.message })
  }
  if (recordResults) span.setAttribute('gen_ai.tool.call.result', JSON.stringify(result.content))
  span.addEvent('finalized', {
    'tooltx.is_error': result.isError,
    ...(result.isError ? { 'tooltx.error.code': result.error.info?.code ?? 'TOOL_FAILED' } : {}),
  })
  span.end()
}
