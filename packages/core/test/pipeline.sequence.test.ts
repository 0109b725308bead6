import { callSequence, createToolRuntime, type JsonValue } from '@tooltx/core'
import { describe, expect, it, vi } from 'vitest'
import { fakeRuntime, outerCall, tool } from './code-mode.fixtures.js'
import { deferred, expectFailure, gates, live, rawTool } from './pipeline.fixtures.js'

/** Lets pending I/O and promise chains run (a few macrotask turns; digests use Web Crypto). */
const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

const pre = (log: string[]) => log.filter((l) => l.startsWith('pre:') || l.startsWith('ask:'))

/** `job` (made by `make`): concurrency-safe; its body logs `body:<id>`, then answers what `answer(id)` resolves with. */
const gatedJob = (log: string[], answer: (id: string) => Promise<unknown>, make = rawTool) =>
  make('job', {
    isConcurrencySafe: () => true,
    execute: async (args: { id: string }) => {
      log.push(`body:${args.id}`)
      return answer(args.id)
    },
  })

/**
 * A runtime with a concurrency-safe tool `job` whose body waits for the gate named by
 * `args.id`, and a log of every phase: `pre:<id>`, `body:<id>`, `post:<id>`.
 */
function harness() {
  const rt = createToolRuntime()
  const log: string[] = []
  const gate = gates<void>()
  const idOf = (args: unknown) => (args as { id: string }).id
  rt.register(
    gatedJob(log, async (id) => {
      await gate(id).promise
      return id
    }),
  )
  /** A pre-execute handler that logs `pre:<id>` and holds `c1` until the returned deferred settles (a person deciding). */
  const holdC1InPreExecute = () => {
    const person = deferred<void>()
    rt.onPreExecute(async (exec, next) => {
      const id = idOf(exec.arguments)
      log.push(`pre:${id}`)
      if (id === 'c1') await person.promise
      return next()
    })
    return person
  }
  return { rt, log, gate, idOf, holdC1InPreExecute }
}

describe('P1 call sequences', () => {
  it('P1.8: post-execute chains of a sequence run in entry order, not in completion order', async () => {
    const { rt, log, gate, idOf } = harness()
    rt.onPostExecute((exec, _result, next) => {
      log.push(`post:${idOf(exec.arguments)}`)
      return next()
    })
    const sequence = callSequence()
    const calls = ['c1', 'c2', 'c3'].map((id) =>
      rt.execute({ callId: id, name: 'job', arguments: { id }, signal: live(), sequence }),
    )
    await flush()
    // Bodies still run side by side.
    expect(log).toEqual(['body:c1', 'body:c2', 'body:c3'])
    gate('c3').resolve()
    gate('c2').resolve()
    await flush()
    expect(log.slice(3)).toEqual([])
    gate('c1').resolve()
    const results = await Promise.all(calls)
    expect(log.slice(3)).toEqual(['post:c1', 'post:c2', 'post:c3'])
    expect(results.map((r) => (r.isError ? r.error.message : r.value))).toEqual(['c1', 'c2', 'c3'])
  })

  it('P1.8: without a sequence, post-execute chains run in completion order (the sequence is opt-in)', async () => {
    const { rt, log, gate, idOf } = harness()
    rt.onPostExecute((exec, _result, next) => {
      log.push(`post:${idOf(exec.arguments)}`)
      return next()
    })
    const calls = ['c1', 'c2'].map((id) =>
      rt.execute({ callId: id, name: 'job', arguments: { id }, signal: live() }),
    )
    await flush()
    gate('c2').resolve()
    await flush()
    gate('c1').resolve()
    await Promise.all(calls)
    expect(log.slice(2)).toEqual(['post:c2', 'post:c1'])
  })

  it('P1.8: a slow pre-execute on one call delays the next call of its sequence until its decision is over', async () => {
    const { rt, log, gate, holdC1InPreExecute } = harness()
    const person = holdC1InPreExecute()
    const sequence = callSequence()
    const calls = ['c1', 'c2'].map((id) =>
      rt.execute({ callId: id, name: 'job', arguments: { id }, signal: live(), sequence }),
    )
    await flush()
    expect(log).toEqual(['pre:c1'])
    person.resolve()
    await flush()
    // c2 decides once c1's decision is over; c1's body does not hold c2 back.
    expect(log.slice().sort()).toEqual(['body:c1', 'body:c2', 'pre:c1', 'pre:c2'])
    gate('c1').resolve()
    gate('c2').resolve()
    await Promise.all(calls)
  })

  it('P1.8: approvals of a sequence are asked one at a time, in entry order', async () => {
    const { rt, log, gate } = harness()
    rt.onPreExecute(() => ({ kind: 'ask', reason: 'check' }))
    const answers = new Map<string, ReturnType<typeof deferred<'allowed-once'>>>()
    const approver = (request: { callId: string }) => {
      log.push(`ask:${request.callId}`)
      const answer = deferred<'allowed-once'>()
      answers.set(request.callId, answer)
      return answer.promise
    }
    const sequence = callSequence()
    const calls = ['c1', 'c2', 'c3'].map((id) =>
      rt.execute({ callId: id, name: 'job', arguments: { id }, signal: live(), sequence, approver }),
    )
    // Digests use Web Crypto on the thread pool, so wait for the ask instead of counting turns.
    await vi.waitFor(() => expect(log).toEqual(['ask:c1']))
    await flush()
    expect(log).toEqual(['ask:c1'])
    answers.get('c1')!.resolve('allowed-once')
    await vi.waitFor(() => expect(pre(log)).toEqual(['ask:c1', 'ask:c2']))
    await flush()
    expect(pre(log)).toEqual(['ask:c1', 'ask:c2'])
    expect(log).toContain('body:c1')
    answers.get('c2')!.resolve('allowed-once')
    await vi.waitFor(() => expect(pre(log)).toEqual(['ask:c1', 'ask:c2', 'ask:c3']))
    answers.get('c3')!.resolve('allowed-once')
    for (const id of ['c1', 'c2', 'c3']) gate(id).resolve()
    await Promise.all(calls)
    expect(log.filter((l) => l.startsWith('body:'))).toEqual(['body:c1', 'body:c2', 'body:c3'])
  })

  it('P1.9: a call whose caller aborted while it waited for its turn skips its decision with ABORTED_BEFORE_DISPATCH', async () => {
    const { rt, log, gate, holdC1InPreExecute } = harness()
    gate('c1').resolve()
    const person = holdC1InPreExecute()
    const sequence = callSequence()
    const controller = new AbortController()
    const c1 = rt.execute({ callId: 'c1', name: 'job', arguments: { id: 'c1' }, signal: live(), sequence })
    const c2 = rt.execute({
      callId: 'c2',
      name: 'job',
      arguments: { id: 'c2' },
      signal: controller.signal,
      sequence,
    })
    await flush()
    controller.abort()
    person.resolve()
    expectFailure(await c2, 'ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch')
    expect((await c1).isError).toBe(false)
    expect(log).toEqual(['pre:c1', 'body:c1'])
  })

  it('P1.9: a call that fails at entry or throws in a hook still lets the next call of its sequence go', async () => {
    const { rt, log, gate, idOf } = harness()
    rt.onPreExecute((exec, next) => {
      if (idOf(exec.arguments) === 'boom') throw new Error('hook broke')
      return next()
    })
    rt.onPostExecute((exec, _result, next) => {
      log.push(`post:${idOf(exec.arguments)}`)
      return next()
    })
    const sequence = callSequence()
    const bad = rt.execute({ callId: 'b', name: 'job', arguments: { f: () => 1 }, signal: live(), sequence })
    const boom = rt.execute({ callId: 'x', name: 'job', arguments: { id: 'boom' }, signal: live(), sequence })
    const ok = rt.execute({ callId: 'c', name: 'job', arguments: { id: 'c' }, signal: live(), sequence })
    expectFailure(await bad, 'INVALID_ARGS')
    expectFailure(await boom, 'HOOK_FAILED', 'onPreExecute handler failed: hook broke')
    gate('c').resolve()
    expect((await ok).isError).toBe(false)
    expect(log).toEqual(['body:c', 'post:c'])
  })

  it('P1.9: a sequence that is not from callSequence() is a malformed input (INVARIANT)', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('job'))
    await expect(
      rt.execute({ callId: 'c', name: 'job', arguments: {}, signal: live(), sequence: {} as never }),
    ).rejects.toMatchObject({
      code: 'INVARIANT',
      message: 'invariant violated: execute input.sequence must come from callSequence()',
    })
  })

  it('P1.9: Code Mode sub-calls run their pre-execute and post-execute phases in submission order', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const log: string[] = []
    const gate = gates<JsonValue>()
    rt.register(gatedJob(log, (id) => gate(id).promise, tool))
    const person = deferred<void>()
    rt.onPreExecute(async (exec, next) => {
      if (exec.parent === undefined) return next()
      const id = (exec.arguments as { id: string }).id
      log.push(`pre:${id}`)
      if (id === 'a') await person.promise
      return next()
    })
    rt.onPostExecute((exec, _result, next) => {
      if (exec.parent !== undefined) log.push(`post:${(exec.arguments as { id: string }).id}`)
      return next()
    })
    const program = fakeRuntime(async ({ tools }) =>
      Promise.all(['a', 'b', 'c'].map((id) => tools.job!({ id }))),
    )
    const done = rt.execute(outerCall(program))
    await flush()
    expect(log).toEqual(['pre:a'])
    person.resolve()
    await flush()
    expect(pre(log)).toEqual(['pre:a', 'pre:b', 'pre:c'])
    expect(log.slice().sort()).toEqual(['body:a', 'body:b', 'body:c', 'pre:a', 'pre:b', 'pre:c'])
    gate('c').resolve('c')
    gate('b').resolve('b')
    await flush()
    expect(log.slice(6)).toEqual([])
    gate('a').resolve('a')
    const result = await done
    expect(result.isError).toBe(false)
    expect(log.slice(6)).toEqual(['post:a', 'post:b', 'post:c'])
  })
})
