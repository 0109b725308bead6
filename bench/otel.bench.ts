/**
 * What does OpenTelemetry cost per call? `runtime.execute` of one tool on a runtime never
 * instrumented, on one whose `instrument` disposer ran, on one instrumented while no tracer
 * provider is registered (the API's no-op tracer), and with a registered SDK provider that
 * records every span (`BasicTracerProvider`, no exporter), timed round-robin.
 */
import { trace } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { createToolRuntime, defineTool, type ToolRuntime } from '@tooltx/core'
import { instrument } from '@tooltx/otel'
import { type BenchSection, type Measurement, measureInterleaved, ratio, target } from './harness.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a key up.',
  parameters: { key: { type: 'string', required: true } },
  output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
  execute: ({ key }) => `value of ${key}`,
})

function runtimeWithTool(): ToolRuntime {
  const runtime = createToolRuntime()
  runtime.register(lookup)
  return runtime
}

export default async function otelBench(): Promise<BenchSection[]> {
  const signal = new AbortController().signal
  const plain = runtimeWithTool()
  const disposed = runtimeWithTool()
  instrument(disposed)()
  // No provider registered yet: the global API hands out its no-op tracer.
  const noProvider = runtimeWithTool()
  instrument(noProvider)
  const recording = runtimeWithTool()
  instrument(recording, { tracer: new BasicTracerProvider().getTracer('bench') })
  if (trace.getTracerProvider().getTracer('x').startSpan('probe').isRecording())
    throw new Error('a global tracer provider is registered; the no-provider row would not measure that')
  const call = (runtime: ToolRuntime) => () =>
    runtime.execute({ callId: 'c', name: 'lookup', arguments: { key: 'k' }, signal })
  const [base, off, noop, sdk] = (await measureInterleaved(
    [
      { name: 'never instrumented', fn: call(plain), ops: 2_000 },
      { name: 'instrumented, then disposed', fn: call(disposed), ops: 2_000 },
      {
        name: 'instrumented, no tracer provider registered (no-op tracer)',
        fn: call(noProvider),
        ops: 2_000,
      },
      { name: 'instrumented, SDK provider recording every span', fn: call(recording), ops: 2_000 },
    ],
    { rounds: 30, warmup: 3 },
  )) as [Measurement, Measurement, Measurement, Measurement]
  const offCost = off.medianNs / base.medianNs
  return [
    {
      title: 'OpenTelemetry: per-call cost of @tooltx/otel',
      method:
        "`runtime.execute` of a one-string-argument tool, on four runtimes timed round-robin in one process: never instrumented; instrumented and then disposed; instrumented while no tracer provider is registered (the API's no-op tracer, so spans are non-recording); instrumented with a registered SDK `BasicTracerProvider` that records every span (no exporter).",
      rows: [base, off, noop, sdk],
      ratios: [
        `disposed / never instrumented = ${ratio(off, base)}`,
        `no provider / never instrumented = ${ratio(noop, base)}`,
        `recording / never instrumented = ${ratio(sdk, base)}`,
      ],
      targets: [
        target(
          'zero cost when absent: a disposed instrument within 5% of a runtime never instrumented',
          `${((offCost - 1) * 100).toFixed(1)}%`,
          offCost <= 1.05,
        ),
      ],
    },
  ]
}
