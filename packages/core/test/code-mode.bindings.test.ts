import {
  type AdditionalContext,
  createToolRuntime,
  type Execution,
  type JsonValue,
  TOOL_ARGS_NOT_LOSSLESS,
  ToolCallError,
  toolArgsUnreadable,
} from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fakeRuntime, live, recordingSink, runArgs, tool } from './code-mode.fixtures.js'
import { rejectionOf } from './thrown.js'

const outerCall = (codeRuntime: ReturnType<typeof fakeRuntime>, extra: Record<string, unknown> = {}) => ({
  callId: 'outer',
  name: RUN_CODE,
  arguments: runArgs(),
  signal: live(),
  codeRuntime,
  ...extra,
})

describe('X3 bindings', () => {
  it('X3.1: tools is a null-prototype object of async functions, one per visible tool but run_code; __proto__ is ordinary', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('b'))
    rt.register(tool('__proto__', { execute: async () => 'proto value' }))
    rt.register(tool('a'))
    let seen: JsonValue = null
    const runtime = fakeRuntime(async ({ tools }) => {
      expect(Object.getPrototypeOf(tools)).toBeNull()
      expect(Object.keys(tools).sort()).toEqual(['__proto__', 'a', 'b'])
      expect(RUN_CODE in tools).toBe(false)
      const promise = tools.a!({})
      expect(promise).toBeInstanceOf(Promise)
      await promise
      const protoName = '__proto__'
      seen = await tools[protoName]!({})
      return null
    })
    expect((await rt.execute(outerCall(runtime))).isError).toBe(false)
    expect(seen).toBe('proto value')
    expect(Object.isFrozen(runtime.requests[0]!.bindings)).toBe(true)
  })

  it('X3.2: arguments that are not lossless JSON reject only that call; nothing is dispatched or logged, no number used', async () => {
    const bad: unknown[] = [undefined, 10n, () => 1, new Date(0), { nested: [undefined] }]
    const rt = createToolRuntime({ mode: 'code' })
    const dispatched: string[] = []
    rt.register(tool('t'))
    rt.onResult((exec) => void dispatched.push(exec.callId))
    const { events, sink } = recordingSink()
    const messages: string[] = []
    const runtime = fakeRuntime(async ({ tools }) => {
      for (const args of bad) {
        const error = await rejectionOf(tools.t!(args as JsonValue))
        expect(error).toBeInstanceOf(TypeError)
        messages.push((error as Error).message)
      }
      return tools.t!({ ok: 1 })
    })
    const result = await rt.execute(outerCall(runtime, { onCodeDispatch: sink }))
    expect(result).toMatchObject({ isError: false, value: { result: { echo: { ok: 1 } } } })
    expect(new Set(messages)).toEqual(new Set([TOOL_ARGS_NOT_LOSSLESS]))
    expect(dispatched).toEqual(['outer:code:1', 'outer'])
    expect(events.map((e) => e.subCallId)).toEqual(['outer:code:1', 'outer:code:1'])
  })

  it('X3.2: the rejection tells the program to call the tool with one arguments object', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('t'))
    const runtime = fakeRuntime(
      async ({ tools }) => ((await rejectionOf(tools.t!(undefined as never))) as Error).message,
    )
    const result = await rt.execute(outerCall(runtime))
    expect(result).toMatchObject({
      isError: false,
      value: {
        result:
          "tool arguments must be lossless JSON; call the tool with one arguments object of plain JSON values, as in tools.<name>({ key: 'value' })",
      },
    })
  })

  it("X4.6: arguments whose getter throws reject that call with the getter's own message, as the direct entry does (P2.5)", async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const dispatched: string[] = []
    rt.register(tool('t'))
    rt.onResult((exec) => void dispatched.push(exec.callId))
    const hostile = (thrown: unknown) => ({
      get x() {
        throw thrown
      },
    })
    const runtime = fakeRuntime(async ({ tools }) => {
      const messages: string[] = []
      for (const thrown of [new Error('no access to x'), 'a bare string'])
        messages.push(((await rejectionOf(tools.t!(hostile(thrown) as never))) as TypeError).message)
      return messages
    })
    const result = await rt.execute(outerCall(runtime))
    const advice =
      "call the tool with one arguments object of plain JSON values, as in tools.<name>({ key: 'value' })"
    expect(result).toMatchObject({
      isError: false,
      value: {
        result: [
          `reading the tool arguments failed: no access to x; ${advice}`,
          `reading the tool arguments failed: a bare string; ${advice}`,
        ],
      },
    })
    expect(toolArgsUnreadable('no access to x')).toBe(
      `reading the tool arguments failed: no access to x; ${advice}`,
    )
    expect(dispatched).toEqual(['outer'])
    // The direct entry reports the same getter message (P2.5).
    const direct = await rt.execute({
      callId: 'd',
      name: 't',
      arguments: hostile(new Error('no access to x')) as never,
      signal: new AbortController().signal,
    })
    expect(direct).toMatchObject({
      error: { message: 'invalid arguments: reading the arguments failed: no access to x' },
    })
  })

  it('X3.3: a binding yields the value after post-execute: value replacement honored, content replacement invisible', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('value', { execute: async () => 1 }))
    rt.register(tool('content', { execute: async () => 2 }))
    rt.onPostExecute(async (exec, _result, next) => {
      if (exec.name === 'value') return { kind: 'accept', value: 'replaced' }
      if (exec.name === 'content') return { kind: 'accept', content: [{ type: 'text', text: 'shown' }] }
      return next()
    })
    const runtime = fakeRuntime(async ({ tools }) => [await tools.value!({}), await tools.content!({})])
    expect(await rt.execute(outerCall(runtime))).toMatchObject({ value: { result: ['replaced', 2] } })
  })

  it('X3.4: a failed call rejects with a ToolCallError carrying toolName, code and message only', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(
      tool('fails', {
        execute: async (_args: unknown, run: { deferContext(m: string): void }) => {
          run.deferContext('context stays out of the error')
          throw new Error('disk on fire')
        },
      }),
    )
    let caught: unknown
    const runtime = fakeRuntime(async ({ tools }) => {
      caught = await rejectionOf(tools.fails!({}))
      return null
    })
    await rt.execute(outerCall(runtime))
    expect(caught).toBeInstanceOf(ToolCallError)
    const error = caught as ToolCallError
    expect(error.name).toBe('ToolCallError')
    expect({ toolName: error.toolName, code: error.code, message: error.message }).toEqual({
      toolName: 'fails',
      code: 'TOOL_FAILED',
      message: 'disk on fire',
    })
    expect(Object.keys(error).sort()).toEqual(['code', 'name', 'toolName'])
  })

  it('X3.5: a denial is an ordinary rejection the program can catch before carrying on', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('secret'))
    rt.register(tool('open', { execute: async () => 'fine' }))
    rt.guard((exec) => (exec.name === 'secret' ? 'no secrets' : undefined))
    const runtime = fakeRuntime(async ({ tools }) => {
      const codes: JsonValue[] = []
      try {
        await tools.secret!({})
      } catch (error) {
        codes.push((error as ToolCallError).code, (error as ToolCallError).message)
      }
      codes.push(await tools.open!({}))
      return codes
    })
    expect(await rt.execute(outerCall(runtime))).toMatchObject({
      isError: false,
      value: { result: ['DENIED', 'tool "secret" denied by guard: no secrets', 'fine'] },
    })
  })
})

describe('X4 nested dispatch', () => {
  it('X4.1, I1.5: a binding call is a full execute with the sub-call id, outer rootCallId, scope, approver, parent token and run-scoped signal', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const scope = rt.scope()
    scope.register(tool('ask'))
    const execs: Execution[] = []
    rt.onPreExecute(async (exec, next) => {
      execs.push(exec)
      return exec.name === 'ask' ? { kind: 'ask', reason: 'check' } : next()
    })
    const approvals: { callId: string; rootCallId: string }[] = []
    const approver = (req: { callId: string; rootCallId: string }) => {
      approvals.push({ callId: req.callId, rootCallId: req.rootCallId })
      return 'allowed-once' as const
    }
    const outerSignal = live()
    let runSignal: AbortSignal | undefined
    const runtime = fakeRuntime(async ({ tools, signal }) => {
      runSignal = signal
      return tools.ask!({ n: 1 })
    })
    const result = await rt.execute(
      outerCall(runtime, { scope, approver, rootCallId: 'root', signal: outerSignal }),
    )
    expect(result.isError).toBe(false)
    const [outer, inner] = execs
    expect(outer!.name).toBe(RUN_CODE)
    expect(inner).toMatchObject({
      callId: 'outer:code:1',
      rootCallId: 'root',
      name: 'ask',
      arguments: { n: 1 },
    })
    expect(inner!.scope).toBe(scope)
    expect(inner!.parent).toBe(outer!.token)
    expect(inner!.signal).toBe(runSignal)
    expect(inner!.signal).not.toBe(outerSignal)
    expect(approvals).toEqual([{ callId: 'outer:code:1', rootCallId: 'root' }])
  })

  it('X4.2, M3.6: nested calls pass every stage, are never collapsed under code mode and never compute presentationMeta', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const stages: string[] = []
    let metaCalls = 0
    rt.register(
      tool('full', {
        execute: async () => {
          stages.push('body')
          return 1
        },
        output: {
          schema: {},
          render: () => [{ type: 'text', text: 'one' }],
          presentationMeta: () => {
            metaCalls++
            return { shown: true }
          },
        },
        finalizeContent: () => {
          stages.push('finalize')
          return undefined
        },
      }),
    )
    const nested = (exec: Execution) => exec.name === 'full'
    const note = (exec: Execution, stage: string) => {
      if (nested(exec)) stages.push(stage)
    }
    rt.onPreExecute(async (exec, next) => {
      note(exec, 'pre')
      return next()
    })
    rt.guard((exec) => {
      note(exec, 'guard')
      return undefined
    })
    rt.wrapExecute(async (exec, next) => {
      note(exec, 'wrap')
      return next()
    })
    rt.onPostExecute(async (exec, _r, next) => {
      note(exec, 'post')
      return next()
    })
    let nestedResult: unknown
    rt.onResult((exec, result) => {
      if (nested(exec)) {
        stages.push('observe')
        nestedResult = result
      }
    })
    const runtime = fakeRuntime(async ({ tools }) => tools.full!({}))
    expect(await rt.execute(outerCall(runtime))).toMatchObject({ isError: false, value: { result: 1 } })
    expect(stages).toEqual(['pre', 'guard', 'wrap', 'body', 'post', 'finalize', 'observe'])
    expect(metaCalls).toBe(0)
    expect(nestedResult).not.toHaveProperty('meta')
  })

  it('X4.3: nested contexts are re-deferred onto run_code in commit order, even when the program fails', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(
      tool('note', {
        isConcurrencySafe: () => true,
        execute: async (args: { id: string; wait: number }, run: { deferContext(m: string): void }) => {
          for (let i = 0; i < args.wait; i++) await Promise.resolve()
          run.deferContext(`from ${args.id}`)
          return args.id
        },
      }),
    )
    const texts = (contexts: readonly AdditionalContext[] | undefined) =>
      (contexts ?? []).map((c) => [(c.content[0] as { text: string }).text, c.source])
    const ok = await rt.execute(
      outerCall(
        fakeRuntime(async ({ tools }) =>
          Promise.all([tools.note!({ id: 'a', wait: 20 }), tools.note!({ id: 'b', wait: 0 })]),
        ),
      ),
    )
    expect(texts(ok.additionalContexts)).toEqual([
      ['from a', { kind: 'tool', name: 'note', callId: 'outer:code:1' }],
      ['from b', { kind: 'tool', name: 'note', callId: 'outer:code:2' }],
    ])
    const failed = await rt.execute(
      outerCall(
        fakeRuntime(async ({ tools }) => {
          await tools.note!({ id: 'c', wait: 0 })
          throw new Error('later failure')
        }),
      ),
    )
    expect(failed).toMatchObject({ isError: true, error: { info: { code: 'CODE_RUN_FAILED' } } })
    expect(texts(failed.additionalContexts)).toEqual([
      ['from c', { kind: 'tool', name: 'note', callId: 'outer:code:1' }],
    ])
  })

  it('X4.4: the content of a successful nested result with images is deferred with a code-mode source', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const image = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }
    rt.register(
      tool('shot', {
        output: { schema: {}, render: () => [{ type: 'text', text: 'screenshot' }, image] },
        execute: async () => ({ width: 1 }),
      }),
    )
    rt.register(tool('plain'))
    const result = await rt.execute(
      outerCall(
        fakeRuntime(async ({ tools }) => {
          await tools.plain!({})
          return tools.shot!({})
        }),
      ),
    )
    expect(result).toMatchObject({ isError: false, value: { result: { width: 1 } } })
    expect(result.additionalContexts).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'screenshot' }, image],
        source: { kind: 'code-mode', callId: 'outer:code:2' },
      },
    ])
  })

  it('X4.5: a nested concludesTurn concludes run_code only when run_code succeeds; a nested failure never concludes', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(
      tool('finish', {
        execute: async (args: { fail?: boolean }, run: { concludeTurn(): void }) => {
          run.concludeTurn()
          if (args.fail === true) throw new Error('no')
          return 'done'
        },
      }),
    )
    const run = (program: Parameters<typeof fakeRuntime>[0]) => rt.execute(outerCall(fakeRuntime(program)))
    expect(await run(async ({ tools }) => tools.finish!({}))).toMatchObject({
      isError: false,
      concludesTurn: true,
    })
    const plain = await run(() => 1)
    expect(plain).not.toHaveProperty('concludesTurn')
    const failedOuter = await run(async ({ tools }) => {
      await tools.finish!({})
      throw new Error('after')
    })
    expect(failedOuter.isError).toBe(true)
    expect(failedOuter).not.toHaveProperty('concludesTurn')
    const failedInner = await run(async ({ tools }) => {
      await tools.finish!({ fail: true }).catch(() => undefined)
      return 1
    })
    expect(failedInner).toMatchObject({ isError: false })
    expect(failedInner).not.toHaveProperty('concludesTurn')
  })
})

describe('I1.10 and P12.2 in Code Mode', () => {
  it('I1.10: the n-th dispatched binding call is <outer callId>:code:<n>, counting from 1 per run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 12 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        async (n, callId) => {
          const rt = createToolRuntime({ mode: 'code' })
          rt.register(tool('t', { isConcurrencySafe: () => true }))
          const ids: string[] = []
          rt.onResult((exec) => void (exec.parent !== undefined && ids.push(exec.callId)))
          const program = fakeRuntime(async ({ tools }) => {
            await Promise.all(Array.from({ length: n }, () => tools.t!({})))
            return null
          })
          await rt.execute(outerCall(program, { callId }))
          await rt.execute(outerCall(program, { callId }))
          const expected = Array.from({ length: n }, (_, i) => `${callId}:code:${i + 1}`)
          expect(ids).toEqual([...expected, ...expected])
        },
      ),
      { numRuns: 25 },
    )
  })

  it('P12.2: observers run once for every nested call, with exec.parent set, before the binding resolves', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('t'))
    const seen: { callId: string; nested: boolean }[] = []
    rt.onResult((exec) => void seen.push({ callId: exec.callId, nested: exec.parent !== undefined }))
    const order: string[] = []
    const runtime = fakeRuntime(async ({ tools }) => {
      await tools.t!({})
      order.push(`resolved after ${seen.length} observation(s)`)
      await tools.t!({})
      return null
    })
    await rt.execute(outerCall(runtime))
    expect(seen).toEqual([
      { callId: 'outer:code:1', nested: true },
      { callId: 'outer:code:2', nested: true },
      { callId: 'outer', nested: false },
    ])
    expect(order).toEqual(['resolved after 1 observation(s)'])
  })
})
