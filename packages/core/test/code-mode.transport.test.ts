import {
  type CodeRunErrorKind,
  type CodeRuntime,
  createToolRuntime,
  isLosslessJson,
  type JsonValue,
  type ToolErrorCode,
  type ToolResult,
} from '@tooltx/core'
import { ERROR_NAMES, RUN_CODE } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deferred, fakeRuntime, live, runArgs, tool } from './code-mode.fixtures.js'

function expectFailure(result: ToolResult, code: ToolErrorCode, message: string) {
  expect(result.isError).toBe(true)
  if (!result.isError) return
  expect(result.error).toEqual({ message, info: { name: ERROR_NAMES[code], code } })
  expect(result.content).toEqual([{ type: 'text', text: `Error: ${message}` }])
}

const call = (extra: Record<string, unknown> = {}, args: unknown = runArgs()) => ({
  callId: 'outer',
  name: RUN_CODE,
  arguments: args,
  signal: live(),
  ...extra,
})

/** A code runtime whose every run ends with an error of `kind` and `message`, logging nothing. */
const failingRuns = (kind: CodeRunErrorKind, message: string): CodeRuntime => ({
  language: 'typescript',
  isolation: 'x',
  run: async () => ({ logs: [], error: { kind, message } }),
})

describe('X1 the run_code transport', () => {
  it('X1.1: run_code is offered only in code and both views, with required code and description', () => {
    for (const mode of ['native', 'code', 'both'] as const) {
      const rt = createToolRuntime({ mode })
      expect(rt.view().get(RUN_CODE) !== undefined).toBe(mode !== 'native')
    }
    const def = createToolRuntime({ mode: 'code' }).view().get(RUN_CODE)!
    expect(def.parameters).toMatchObject({
      properties: { code: { type: 'string' }, description: { type: 'string' } },
      required: ['code', 'description'],
    })
  })

  it('X1.2: a blank description fails with INVALID_ARGS and the runtime is not asked', async () => {
    const runtime = fakeRuntime(() => 1)
    const rt = createToolRuntime({ mode: 'code', codeRuntime: runtime })
    for (const description of ['', '   ', '\n\t']) {
      const result = await rt.execute(call({}, { code: 'return 1', description }))
      expectFailure(result, 'INVALID_ARGS', 'invalid arguments: "description" must not be blank')
    }
    expect(runtime.requests).toHaveLength(0)
  })

  it('X1.3: a run yields the closed value { logs, result? }', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const withResult = await rt.execute(
      call({
        codeRuntime: fakeRuntime(({ log }) => {
          log('a')
          return { n: 1 }
        }),
      }),
    )
    expect(withResult).toMatchObject({ isError: false, value: { logs: ['a'], result: { n: 1 } } })
    const without = await rt.execute(call({ codeRuntime: fakeRuntime(() => undefined) }))
    expect(without.isError).toBe(false)
    if (!without.isError) expect(without.value).toEqual({ logs: [] })
    expect(rt.view().get(RUN_CODE)!.output.schema).toMatchObject({
      additionalProperties: false,
      required: ['logs'],
    })
  })

  it('X1.4: the content joins the log lines and the result, or says there was no output', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const content = async (program: Parameters<typeof fakeRuntime>[0]) =>
      (await rt.execute(call({ codeRuntime: fakeRuntime(program) }))).content
    expect(
      await content(({ log }) => {
        log('one')
        log('two')
        return 'done'
      }),
    ).toEqual([{ type: 'text', text: 'one\ntwo\ndone' }])
    expect(await content(() => ({ a: [1] }))).toEqual([{ type: 'text', text: '{\n  "a": [\n    1\n  ]\n}' }])
    expect(await content(() => null)).toEqual([{ type: 'text', text: 'null' }])
    expect(await content(() => undefined)).toEqual([
      { type: 'text', text: '(run_code completed with no output)' },
    ])
  })

  it('X1.5: the call card is generic/execute with the description as title and the code as raw input', () => {
    const def = createToolRuntime({ mode: 'both' }).view().get(RUN_CODE)!
    expect(def.presentCall?.({ code: 'return 1', description: 'Count' })).toEqual({
      card: 'generic',
      title: 'Count',
      kind: 'execute',
      rawInput: 'return 1',
    })
    expect(def.presentResult).toBeUndefined()
  })

  it('X1.6: the call input code runtime wins over the runtime default; with neither run_code fails', async () => {
    const fallback = fakeRuntime(() => 'default')
    const chosen = fakeRuntime(() => 'input')
    const rt = createToolRuntime({ mode: 'code', codeRuntime: fallback })
    expect(await rt.execute(call({ codeRuntime: chosen }))).toMatchObject({ value: { result: 'input' } })
    expect(await rt.execute(call())).toMatchObject({ value: { result: 'default' } })
    const bare = createToolRuntime({ mode: 'code' })
    expectFailure(
      await bare.execute(call()),
      'CODE_RUN_FAILED',
      'run_code requires a code runtime, but none is configured',
    )
  })

  it('X1.7: a program failure is CODE_RUN_FAILED with the kind, the message and the captured output', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const withLogs = fakeRuntime(({ log }) => {
      log('step 1')
      log('step 2')
      throw new Error('boom')
    })
    expectFailure(
      await rt.execute(call({ codeRuntime: withLogs })),
      'CODE_RUN_FAILED',
      'code run failed (exception): boom\nCaptured output:\nstep 1\nstep 2',
    )
    expectFailure(
      await rt.execute(
        call({ codeRuntime: failingRuns('memory-limit', 'memory limit exceeded (10 bytes)') }),
      ),
      'CODE_RUN_FAILED',
      'code run failed (memory-limit): memory limit exceeded (10 bytes)',
    )
  })

  it('X1.8: a run that ends with kind abort because the outer signal aborted gives ABORTED', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const controller = new AbortController()
    const started = deferred()
    const runtime = fakeRuntime(
      ({ signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => reject(new Error('run aborted')))
          started.resolve()
        }),
    )
    const pending = rt.execute(call({ codeRuntime: runtime, signal: controller.signal }))
    await started.promise
    controller.abort()
    expectFailure(await pending, 'ABORTED', 'tool call aborted')
    // The same kind without an outer abort (a sandbox closed under the run) is a program failure.
    expectFailure(
      await rt.execute(call({ codeRuntime: failingRuns('abort', 'the sandbox runtime was closed') })),
      'CODE_RUN_FAILED',
      'code run failed (abort): the sandbox runtime was closed',
    )
  })

  it('X1.9: a code runtime whose run rejects gives TOOL_FAILED with the rejection message', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const rejecting = {
      language: 'typescript' as const,
      isolation: 'x',
      run: () => Promise.reject(new Error('seam misuse')),
    }
    expectFailure(await rt.execute(call({ codeRuntime: rejecting })), 'TOOL_FAILED', 'seam misuse')
    const throwing = {
      language: 'typescript' as const,
      isolation: 'x',
      run: () => {
        throw new TypeError('not even a promise')
      },
    }
    expectFailure(await rt.execute(call({ codeRuntime: throwing })), 'TOOL_FAILED', 'not even a promise')
    const malformed = { language: 'typescript' as const, isolation: 'x', run: async () => ({ logs: 'nope' }) }
    const result = await rt.execute(call({ codeRuntime: malformed as never }))
    expect(result).toMatchObject({ isError: true, error: { info: { code: 'TOOL_FAILED' } } })
  })

  it('X1.10: run_code has no classifier and no timeout, so it is exclusive and only the sandbox bounds it', () => {
    const rt = createToolRuntime({ mode: 'both' })
    rt.register(tool('fast', { isConcurrencySafe: () => true }))
    const view = rt.view()
    const def = view.get(RUN_CODE)!
    expect(def.isConcurrencySafe).toBeUndefined()
    expect(def.timeoutMs).toBeUndefined()
    expect(view.executionMode({ name: RUN_CODE, arguments: runArgs() })).toBe('exclusive')
    expect(view.executionMode({ name: 'fast', arguments: {} })).toBe('parallel')
  })

  it('X1.11: a result nested 5,000 deep renders, pretty for 20 levels and compact below; shallower ones as JSON.stringify(v, null, 2)', async () => {
    let deep: JsonValue = []
    for (let i = 0; i < 5_000; i++) deep = [deep]
    const rt = createToolRuntime({ mode: 'code' })
    const result = await rt.execute(call({ codeRuntime: fakeRuntime(() => deep) }))
    expect(result.isError).toBe(false)
    let expected = ''
    for (let depth = 0; depth < 20; depth++) expected += `[\n${'  '.repeat(depth + 1)}`
    expected += `${'['.repeat(4_981)}${']'.repeat(4_981)}`
    for (let depth = 19; depth >= 0; depth--) expected += `\n${'  '.repeat(depth)}]`
    expect(result.content).toEqual([{ type: 'text', text: expected }])
    // Shallower than 20 levels, the rendering is exactly JSON.stringify(value, null, 2).
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 6 }).filter((v) => isLosslessJson(v) && typeof v !== 'string'),
        async (value) => {
          const result = await rt.execute(call({ codeRuntime: fakeRuntime(() => value as JsonValue) }))
          expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(value, null, 2) }])
        },
      ),
      { numRuns: 100 },
    )
  })

  it('X1.12: the description and both parameter descriptions say that code and description are both required', () => {
    const def = createToolRuntime({ mode: 'code' }).view().get(RUN_CODE)!
    expect(def.description).toContain('Always pass both arguments: `code` (the program) and `description`')
    const properties = (def.parameters as { properties: Record<string, { description: string }> }).properties
    expect(properties.code!.description).toMatch(/^Required\. /)
    expect(properties.description!.description).toMatch(/^Required, alongside `code`\. /)
  })
})
