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

/** A tool with open parameters and any output value, rendered as JSON text. */
export function tool(name: string, overrides: Partial<Record<keyof AnyToolDefinition, unknown>> = {}) {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object' },
    output: {
      schema: {},
      render: (_args: unknown, value: unknown) => [{ type: 'text', text: JSON.stringify(value) }],
    },
    execute: async (args: JsonValue) => ({ echo: args }),
    ...overrides,
  } as AnyToolDefinition
}

/** A promise with its settle functions exposed. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
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

/** A never-aborted signal. */
export const live = () => new AbortController().signal
