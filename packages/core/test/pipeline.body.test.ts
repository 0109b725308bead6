import {
  createToolRuntime,
  type Execution,
  LOG_LEVELS,
  type LogEntry,
  type RunContext,
  ToolError,
} from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import {
  abortBeforeNext,
  deferred,
  expectFailure,
  live,
  note,
  rawTool,
  runtimeWith,
  typedTool,
} from './pipeline.fixtures.js'

function withBody(execute: (args: unknown, run: RunContext) => unknown, options = {}) {
  const rt = createToolRuntime(options)
  rt.register(rawTool('t', { execute }))
  const run = (signal = live(), extra: object = {}) =>
    rt.execute({ callId: 'c', name: 't', arguments: { a: 1 }, signal, ...extra })
  return { rt, run }
}

describe('P8 body and run context', () => {
  it('P8.1: the body runs only after resolution and an unaborted fused signal; invoked is recorded', async () => {
    const ran: string[] = []
    const { rt, run } = withBody(async () => note(ran, 'body', 1))
    rt.wrapExecute(abortBeforeNext)
    expectFailure(await run(), 'ABORTED_BEFORE_DISPATCH')
    expect(ran).toEqual([])
  })

  it('P8.2: the run context carries identity, the fused signal, attempt and the functions', async () => {
    let seen: RunContext | undefined
    const { run } = withBody(async (_a, r) => {
      seen = r
      return 1
    })
    const signal = live()
    await run(signal, { rootCallId: 'root' })
    expect(Object.keys(seen!)).toEqual([
      'callId',
      'rootCallId',
      'name',
      'arguments',
      'token',
      'signal',
      'attempt',
      'deferContext',
      'concludeTurn',
      'progress',
      'recordEffect',
      'receipts',
    ])
    expect(Object.isFrozen(seen)).toBe(true)
    expect(seen).toMatchObject({
      callId: 'c',
      rootCallId: 'root',
      name: 't',
      arguments: { a: 1 },
      attempt: 1,
    })
    expect(seen!.signal).toBe(signal)
    expect(typeof seen!.token).toBe('symbol')
  })

  it('P8.3: deferContext and concludeTurn work detached', async () => {
    const { run } = withBody(async (_a, r) => {
      const { deferContext, concludeTurn } = r
      deferContext('detached')
      concludeTurn()
      return 1
    })
    const result = await run()
    expect(result.isError === false && result.concludesTurn).toBe(true)
    expect(result.additionalContexts).toHaveLength(1)
  })

  it('P8.4: deferContext accepts a string or { content, source? } and defaults the source', async () => {
    const { run } = withBody(async (_a, r) => {
      r.deferContext('plain')
      const message = { content: [{ type: 'text', text: 'structured' }], source: { kind: 'custom', id: 7 } }
      r.deferContext(message as never)
      message.content[0]!.text = 'mutated later'
      return 1
    })
    const result = await run()
    expect(result.additionalContexts).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'plain' }],
        source: { kind: 'tool', name: 't', callId: 'c' },
      },
      { role: 'user', content: [{ type: 'text', text: 'structured' }], source: { kind: 'custom', id: 7 } },
    ])
  })

  it('P8.5: a message that is not lossless content throws RESULT_NOT_SERIALIZABLE into the body and queues nothing', async () => {
    const codes: string[] = []
    const { run } = withBody(async (_a, r) => {
      for (const bad of [
        { content: [{ type: 'text', text: undefined }] },
        { content: 'x' },
        42,
        { content: [], extra: 1 },
      ]) {
        try {
          r.deferContext(bad as never)
        } catch (error) {
          codes.push((error as ToolError).code)
        }
      }
      return 1
    })
    const result = await run()
    expect(codes).toEqual(Array(4).fill('RESULT_NOT_SERIALIZABLE'))
    expect('additionalContexts' in result).toBe(false)
  })

  it('P8.6: contexts keep call order, survive a body throw and a cancellation, and precede hook contexts', async () => {
    const { rt, run } = withBody(async (_a, r) => {
      r.deferContext('one')
      r.deferContext('two')
      throw new Error('after deferring')
    })
    rt.onPostExecute(async () => ({
      kind: 'accept',
      additionalContexts: [{ role: 'user', content: [{ type: 'text', text: 'hook' }] }],
    }))
    const result = await run()
    expectFailure(result, 'TOOL_FAILED', 'after deferring')
    expect(result.additionalContexts?.map((c) => (c.content[0] as { text: string }).text)).toEqual([
      'one',
      'two',
      'hook',
    ])
    const controller = new AbortController()
    const cancelled = withBody(async (_a, r) => {
      r.deferContext('kept on cancel')
      controller.abort()
      return 1
    })
    const aborted = await cancelled.run(controller.signal)
    expectFailure(aborted, 'ABORTED')
    expect(aborted.additionalContexts).toHaveLength(1)
  })

  it('P8.7: concludeTurn marks only a success', async () => {
    const a = withBody(async (_a, r) => {
      r.concludeTurn()
      return 1
    })
    expect(
      (await a.run()).isError === false && ((await a.run()) as { concludesTurn?: true }).concludesTurn,
    ).toBe(true)
    const b = withBody(async (_a, r) => {
      r.concludeTurn()
      throw new Error('x')
    })
    expect('concludesTurn' in (await b.run())).toBe(false)
  })

  it('P8.8: deferContext or concludeTurn after the attempt settled throw INVARIANT and record nothing', async () => {
    let saved: RunContext | undefined
    const { run } = withBody(async (_a, r) => {
      saved = r
      return 1
    })
    await run()
    for (const late of [() => saved!.deferContext('late'), () => saved!.concludeTurn()]) {
      try {
        late()
        expect.unreachable()
      } catch (error) {
        expect((error as ToolError).code).toBe('INVARIANT')
        expect((error as ToolError).message).toMatch(
          /^invariant violated: .* after the tool call attempt settled$/,
        )
      }
    }
  })

  it('P8.9: a non-ToolError throw is TOOL_FAILED with errorMessage; a ToolError keeps its identity', async () => {
    expectFailure(
      await withBody(async () => {
        throw new Error('disk full')
      }).run(),
      'TOOL_FAILED',
      'disk full',
    )
    expectFailure(
      await withBody(async () => {
        throw 'a string'
      }).run(),
      'TOOL_FAILED',
      'a string',
    )
    expectFailure(
      await withBody(() => {
        throw { message: 'sync object' }
      }).run(),
      'TOOL_FAILED',
      'sync object',
    )
    const result = await withBody(async () => {
      throw new ToolError('NOT_FOUND', 'no such file', { name: 'FsError' })
    }).run()
    expect(result.isError && result.error).toEqual({
      message: 'no such file',
      info: { name: 'FsError', code: 'NOT_FOUND' },
    })
  })

  it('P8.9: a defineTool argument failure is INVALID_ARGS from inside the body', async () => {
    const rt = runtimeWith(typedTool())
    expectFailure(
      await rt.execute({ callId: 'c', name: 'typed', arguments: { path: 3 }, signal: live() }),
      'INVALID_ARGS',
      'invalid arguments: "path" must be a string',
    )
  })

  it('P8.10: a success under an aborted fused signal is ABORTED; a failure the body produced is kept', async () => {
    const c1 = new AbortController()
    const a = withBody(async () => {
      c1.abort()
      return 'done anyway'
    })
    expectFailure(await a.run(c1.signal), 'ABORTED', 'tool call aborted')
    const c2 = new AbortController()
    const b = withBody(async () => {
      c2.abort()
      throw new ToolError('CANCELLED_BY_TOOL', 'stopped cleanly')
    })
    expectFailure(await b.run(c2.signal), 'CANCELLED_BY_TOOL', 'stopped cleanly')
  })

  it('P8.11: progress is snapshotted, delivered synchronously with the execution, contained, and never in results', async () => {
    const updates: [Execution, unknown][] = []
    const errors: unknown[] = []
    const codes: string[] = []
    const { rt, run } = withBody(
      async (_a, r) => {
        const update = { step: 1 }
        r.progress(update)
        update.step = 2
        expect(updates).toHaveLength(1)
        try {
          r.progress({ bad: undefined } as never)
        } catch (error) {
          codes.push((error as ToolError).code)
        }
        return 'ok'
      },
      { reportError: (e: unknown) => errors.push(e) },
    )
    rt.onProgress((exec, update) => void updates.push([exec, update]))
    rt.onProgress(() => {
      throw new Error('listener broke')
    })
    const other = rt.scope()
    rt.onProgress(() => void updates.push([undefined as never, 'scoped elsewhere']), { scope: other })
    const result = await run()
    expect(updates).toHaveLength(1)
    expect(updates[0]![1]).toEqual({ step: 1 })
    expect(Object.isFrozen(updates[0]![1])).toBe(true)
    expect(updates[0]![0].callId).toBe('c')
    expect(codes).toEqual(['RESULT_NOT_SERIALIZABLE'])
    expect(errors).toHaveLength(1)
    expect(JSON.stringify(result)).not.toContain('step')
  })

  it('P8.12: log offers a frozen entry to the covering onLog listeners until one takes it, else reportError', async () => {
    const seen: [string, LogEntry][] = []
    const errors: unknown[] = []
    const codes: string[] = []
    const { rt, run } = withBody(
      async (_a, r) => {
        const data = { file: 'a.txt' }
        r.log('info', data)
        data.file = 'changed'
        r.log('debug', 'nobody takes this')
        for (const bad of [
          () => r.log('verbose' as never, 1),
          () => r.log('error', { x: undefined } as never),
        ]) {
          try {
            bad()
          } catch (error) {
            codes.push((error as ToolError).code)
          }
        }
        expect(Object.hasOwn(r, 'log')).toBe(false)
        return 'ok'
      },
      { reportError: (e: unknown) => errors.push(e) },
    )
    rt.onLog(() => {
      throw new Error('listener broke')
    })
    rt.onLog((exec, entry) => {
      seen.push([exec.callId, entry])
      return entry.level !== 'debug'
    })
    rt.onLog(() => void seen.push(['never', undefined as never]), { scope: rt.scope() })
    const result = await run()
    expect(result.isError).toBe(false)
    expect(seen).toEqual([
      ['c', { level: 'info', data: { file: 'a.txt' } }],
      ['c', { level: 'debug', data: 'nobody takes this' }],
    ])
    expect(Object.isFrozen(seen[0]![1])).toBe(true)
    expect(Object.isFrozen(seen[0]![1].data)).toBe(true)
    expect(codes).toEqual(['INVARIANT', 'RESULT_NOT_SERIALIZABLE'])
    // Each entry met the broken listener; the untaken one went on to reportError.
    expect(errors.filter((e) => e instanceof Error)).toHaveLength(2)
    expect(errors.filter((e) => !(e instanceof Error))).toEqual([
      { callId: 'c', name: 't', level: 'debug', data: 'nobody takes this' },
    ])
    expect(LOG_LEVELS).toEqual([
      'debug',
      'info',
      'notice',
      'warning',
      'error',
      'critical',
      'alert',
      'emergency',
    ])
  })

  it('P8.1: a body pending forever keeps the call pending (never raced)', async () => {
    const gate = deferred<number>()
    const { run } = withBody(() => gate.promise)
    let done = false
    const pending = run().then(() => {
      done = true
    })
    await new Promise((r) => setTimeout(r, 10))
    expect(done).toBe(false)
    gate.resolve(1)
    await pending
    expect(done).toBe(true)
  })
})
