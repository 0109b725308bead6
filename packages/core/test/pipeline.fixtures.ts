/** Shared fixtures of the runtime and pipeline tests (not a test file itself). */
import {
  type AnyToolDefinition,
  createToolRuntime,
  defineTool,
  type ToolErrorCode,
  type ToolResult,
  type ToolRuntime,
} from '@tooltx/core'
import { ERROR_NAMES } from '@tooltx/core/internal'
import { expect } from 'vitest'

/** A fresh, never-aborted signal. */
export const live = () => new AbortController().signal

/** Calls tool `name` once through `runtime`: call id `c`, no arguments, a live signal. */
export const callTool = (runtime: Pick<ToolRuntime, 'execute'>, name: string) =>
  runtime.execute({ callId: 'c', name, arguments: {}, signal: live() })

/** An around handler that swaps in an already aborted signal (default reason) before `next()`. */
export const abortBeforeNext = async (exec: { signal: AbortSignal }, next: () => Promise<ToolResult>) => {
  const controller = new AbortController()
  controller.abort()
  exec.signal = controller.signal
  return next()
}

/** A signal that is already aborted. */
export const abortedSignal = () => {
  const controller = new AbortController()
  controller.abort(new Error('stop'))
  return controller.signal
}

/**
 * A raw tool: open parameters, any output value, rendered as JSON text. `execute` returns
 * `{ ok: true }` unless overridden.
 */
export function rawTool(name: string, overrides: Partial<Record<keyof AnyToolDefinition, unknown>> = {}) {
  return {
    name,
    description: `The ${name} tool`,
    parameters: { type: 'object' },
    output: {
      schema: {},
      render: (_args: unknown, value: unknown) => [{ type: 'text', text: JSON.stringify(value) }],
    },
    execute: async () => ({ ok: true }),
    ...overrides,
  } as AnyToolDefinition
}

/** A raw tool `name` whose body answers `value`; `runs()` is how many times the body ran so far. */
export function countingTool(name: string, value: unknown) {
  let runs = 0
  const tool = rawTool(name, {
    execute: async () => {
      runs++
      return value
    },
  })
  return { tool, runs: () => runs }
}

/** Registers a pass-through post-execute hook on `runtime`; the returned function says how often it ran. */
export function countPostExecute(runtime: Pick<ToolRuntime, 'onPostExecute'>): () => number {
  let runs = 0
  runtime.onPostExecute(async (_e, _r, next) => {
    runs++
    return next()
  })
  return () => runs
}

/** A raw tool whose body rejects with `new Error(message)`. */
export const throwingTool = (name: string, message: string) =>
  rawTool(name, {
    execute: async () => {
      throw new Error(message)
    },
  })

/** A fresh runtime with default options and `definitions` registered in order. */
export function runtimeWith(...definitions: AnyToolDefinition[]): ToolRuntime {
  const runtime = createToolRuntime()
  for (const definition of definitions) runtime.register(definition)
  return runtime
}

/** `add` (defineTool): two required integers `a` and `b`; the value is their integer sum, rendered as text. */
export const sumTool = () =>
  defineTool({
    name: 'add',
    description: 'Add two integers.',
    parameters: { a: { type: 'integer', required: true }, b: { type: 'integer', required: true } },
    output: {
      schema: { type: 'integer' },
      render: (_args, value) => [{ type: 'text', text: String(value) }],
    },
    execute: async ({ a, b }) => a + b,
  })

/** `typed` (defineTool): one required string `path`, a `null` value with no content. */
export const typedTool = () =>
  defineTool({
    name: 'typed',
    description: 'd',
    parameters: { path: { type: 'string', required: true } },
    output: { schema: { type: 'null' }, render: () => [] },
    execute: async () => null,
  })

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

/** One `deferred` per id, made on first use: `gate(id)` is the same deferred every time. */
export function gates<T = void>() {
  const byId = new Map<string, ReturnType<typeof deferred<T>>>()
  return (id: string) => {
    let gate = byId.get(id)
    if (gate === undefined) {
      gate = deferred<T>()
      byId.set(id, gate)
    }
    return gate
  }
}

/** Asserts a failure with `code`, the table name, `message` and (by default) `Error: <message>` content. */
export function expectFailure(result: ToolResult, code: ToolErrorCode | string, message?: string | RegExp) {
  expect(result.isError).toBe(true)
  if (!result.isError) return
  expect(result.error.info.code).toBe(code)
  if (code in ERROR_NAMES) expect(result.error.info.name).toBe(ERROR_NAMES[code as ToolErrorCode])
  if (typeof message === 'string') {
    expect(result.error.message).toBe(message)
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${message}` }])
  } else if (message !== undefined) {
    expect(result.error.message).toMatch(message)
  }
  expect('value' in result).toBe(false)
}

/** True iff every object reachable from `value` is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  const work = [value]
  const seen = new Set<unknown>()
  while (work.length > 0) {
    const v = work.pop()
    if (v === null || typeof v !== 'object' || seen.has(v)) continue
    seen.add(v)
    if (!Object.isFrozen(v)) return false
    for (const key of Object.keys(v)) work.push((v as Record<string, unknown>)[key])
  }
  return true
}

/** Lets pending promise callbacks run (several microtask turns). */
export async function flush(turns = 20) {
  for (let i = 0; i < turns; i++) await Promise.resolve()
}

/** Pushes `item` onto `list` and returns `value`: a recording handler in one expression. */
export function note<T>(list: unknown[], item: unknown, value: T): T {
  list.push(item)
  return value
}

/** Adds one to `counter.n` and returns `value`. */
export function count<T>(counter: { n: number }, value: T): T {
  counter.n++
  return value
}

/** Runs `effect`, then returns `value`: a side effect and an answer in one expression. */
export function after<T>(effect: () => unknown, value: T): T {
  effect()
  return value
}
