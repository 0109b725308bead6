/**
 * `@opentelemetry/api`, an optional peer dependency (Z3.7): loaded on the first `instrument` call,
 * never when this package is imported. It is loaded with `require`, which is safe for this
 * package in particular: the API keeps its tracer provider and context manager on a global
 * symbol, so the CommonJS and ES module copies of one version share them.
 */
import { createRequire } from 'node:module'
import type * as Api from '@opentelemetry/api'
import { definitionError } from '@tooltx/core/internal'

/** The parts of the OpenTelemetry API that `instrument` uses. */
export type OtelApi = Pick<typeof Api, 'context' | 'trace' | 'SpanKind' | 'SpanStatusCode'>

let loaded: OtelApi | undefined

/** The OpenTelemetry API, or a thrown `INVALID_DEFINITION` error saying how to install it. */
export function otelApi(): OtelApi {
  if (loaded !== undefined) return loaded
  try {
    loaded = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi
  } catch (cause) {
    throw definitionError(
      `instrument: cannot load the "@opentelemetry/api" package (${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}). ` +
        'It is an optional peer dependency of @tooltx/otel, so install it next to it: npm install @opentelemetry/api',
    )
  }
  return loaded
}
