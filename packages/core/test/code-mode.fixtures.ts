/** Shared fixtures of the Code Mode tests (not a test file itself). */
import type {
  AnyToolDefinition,
  CodeBinding,
  CodeDispatchSettle,
  CodeDispatchStart,
  CodeRunRequest,
  CodeRunResult,
  CodeRuntime,
  JsonValue,
} from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { live, rawTool } from './pipeline.fixtures.js'

export { deferred, gates, live } from './pipeline.fixtures.js'

/** What a fake program can use: the bindings, the run's signal and a log. */
export interface FakeProgramContext {
  readonly tools: Readonly<Record<string, CodeBinding>>
  readonly signal: AbortSignal
  log(line: string): void
}

/** A fake program: JavaScript standing in for the sandboxed TypeScript. */
export type FakeProgram = (ctx: FakeProgramContext) => Promise<JsonValue | undefined> | JsonValue | undefined

/** A test double of the code-runtime seam that runs `program` in-process and records every request. */
export interface FakeCodeRuntime extends CodeRuntime {
  readonly requests: CodeRunRequest[]
}

/**
 * A fake code runtime: a thrown error is kind `exception`, a throw while the run's signal is
 * aborted is kind `abort`, anything else completes with the returned value (X8.1 shape).
 */
export function fakeRuntime(program: FakeProgram): FakeCodeRuntime {
  const requests: CodeRunRequest[] = []
  return {
    language: 'typescript',
    isolation: 'none (test double)',
    requests,
    async run(request) {
      requests.push(request)
      const logs: string[] = []
      try {
        const value = await program({
          tools: request.bindings,
          signal: request.signal,
          log: (l) => logs.push(l),
        })
        const result: CodeRunResult = { logs }
        if (value !== undefined) result.value = value
        return result
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        return { logs, error: { kind: request.signal.aborted ? 'abort' : 'exception', message } }
      }
    },
  }
}

/**
 * A raw tool (`rawTool`: open parameters, any output value rendered as JSON text) described as
 * `The <name> tool.`, whose `execute` answers `{ echo: args }` unless overridden.
 */
export function tool(name: string, overrides: Partial<Record<keyof AnyToolDefinition, unknown>> = {}) {
  return rawTool(name, {
    description: `The ${name} tool.`,
    execute: async (args: JsonValue) => ({ echo: args }),
    ...overrides,
  })
}

/** Lets every queued microtask and already-resolved promise run. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A recording `onCodeDispatch` sink. */
export function recordingSink() {
  const events: (CodeDispatchStart | CodeDispatchSettle)[] = []
  return { events, sink: (event: CodeDispatchStart | CodeDispatchSettle) => void events.push(event) }
}

/** `run_code` arguments for a fake program (the code text is ignored by the fake runtime). */
export const runArgs = (description = 'test program') => ({ code: '/* fake */', description })

/**
 * The outer `run_code` call `o` running `codeRuntime`'s program with `runArgs()` on a live
 * signal; `extra` adds or replaces execute options (such as `signal` or `onCodeDispatch`).
 */
export const outerCall = (codeRuntime: FakeCodeRuntime, extra: Record<string, unknown> = {}) => ({
  callId: 'o',
  name: RUN_CODE,
  arguments: runArgs(),
  signal: live(),
  codeRuntime,
  ...extra,
})
