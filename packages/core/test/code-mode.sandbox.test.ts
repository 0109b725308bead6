/**
 * Code Mode end to end with the real QuickJS sandbox (`@tooltx/sandbox`): programs are
 * TypeScript text, bindings cross the worker boundary, and the agent loop logs dispatches.
 */
import { createAgent, scripted } from '@tooltx/agent'
import { type CodeRuntime, createToolRuntime, TOOL_ARGS_NOT_LOSSLESS, type ToolResult } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import { quickjsRuntime } from '@tooltx/sandbox'
import { memoryStore, openSession } from '@tooltx/session'
import { afterAll, describe, expect, it } from 'vitest'
import { live, tool } from './code-mode.fixtures.js'

const sandbox = quickjsRuntime({ wallMs: 20_000 })
afterAll(() => sandbox.close())

function codeRuntime() {
  const rt = createToolRuntime({ mode: 'code', codeRuntime: sandbox })
  rt.register(
    tool('add', {
      description: 'Adds two numbers.',
      isConcurrencySafe: () => true,
      execute: async (args: { a: number; b: number }) => ({ sum: args.a + args.b }),
    }),
  )
  rt.register(tool('deny_me'))
  rt.guard((exec) => (exec.name === 'deny_me' ? 'not today' : undefined))
  return rt
}

const run = (rt: ReturnType<typeof codeRuntime>, code: string): Promise<ToolResult> =>
  rt.execute({ callId: 'c1', name: RUN_CODE, arguments: { code, description: 'test' }, signal: live() })

describe('Code Mode through the QuickJS sandbox', () => {
  it('X8.1: the sandbox satisfies the code-runtime seam shape', () => {
    const seam: CodeRuntime = sandbox
    expect(seam.language).toBe('typescript')
    expect(typeof seam.isolation).toBe('string')
    expect(typeof seam.run).toBe('function')
  })

  it('X1.4, X3.3, X6.2: a TypeScript program calls tools in parallel and returns a summary', async () => {
    const result = await run(
      codeRuntime(),
      `const sums: number[] = []
       const all = await Promise.all([1, 2, 3].map((n) => tools.add({ a: n, b: 10 })))
       for (const r of all) sums.push(r.sum)
       console.log('added', sums.length)
       return { sums }`,
    )
    expect(result).toMatchObject({
      isError: false,
      value: { logs: ['added 3'], result: { sums: [11, 12, 13] } },
    })
    expect(result.content).toEqual([
      { type: 'text', text: 'added 3\n{\n  "sums": [\n    11,\n    12,\n    13\n  ]\n}' },
    ])
  })

  it('X3.4, X3.5: a denial arrives in the program as a catchable ToolCallError with toolName and code', async () => {
    const result = await run(
      codeRuntime(),
      `try {
         await tools.deny_me({})
         return 'not denied'
       } catch (e) {
         if (!(e instanceof ToolCallError)) return 'wrong class'
         return [e.name, e.toolName, e.code, e.message]
       }`,
    )
    expect(result).toMatchObject({
      isError: false,
      value: { result: ['ToolCallError', 'deny_me', 'DENIED', 'tool "deny_me" denied by guard: not today'] },
    })
  })

  it('X1.7: an uncaught exception is CODE_RUN_FAILED with the captured output', async () => {
    const result = await run(codeRuntime(), `console.log('before'); throw new Error('kaput')`)
    expect(result).toMatchObject({ isError: true, error: { info: { code: 'CODE_RUN_FAILED' } } })
    const message = result.isError ? result.error.message : ''
    // The sandbox's message is the error text with its guest stack; the output follows it.
    expect(message.startsWith('code run failed (exception): Error: kaput')).toBe(true)
    expect(message.endsWith('\nCaptured output:\nbefore')).toBe(true)
  })

  it('X3.2: arguments that are not lossless JSON reject inside the program and dispatch nothing', async () => {
    const rt = codeRuntime()
    const dispatched: string[] = []
    rt.onResult((exec) => void dispatched.push(exec.callId))
    const result = await run(
      rt,
      `const e = await tools.add({ a: undefined, b: () => 1 } as never).catch((e) => e.message)
       const ok = await tools.add({ a: 1, b: 2 })
       return [e, ok.sum]`,
    )
    expect(result).toMatchObject({ value: { result: [TOOL_ARGS_NOT_LOSSLESS, 3] } })
    expect(dispatched).toEqual(['c1:code:1', 'c1'])
  })

  it('X2.3, M2.3: the code-mode surface lists exactly what the program can call', async () => {
    const rt = codeRuntime()
    const { tools, instructions } = rt.view().surface()
    expect(tools.map((t) => t.name)).toEqual([RUN_CODE])
    const result = await run(rt, 'return Object.keys(tools).sort()')
    const names = (result as unknown as { value: { result: string[] } }).value.result
    expect(names).toEqual(['add', 'deny_me'])
    for (const name of names) expect(instructions).toContain(`  ${name}: `)
  })

  it('X5.3: the agent logs tool/code-dispatch-start and tool/code-dispatch with turn and step, outside the messages', async () => {
    const rt = codeRuntime()
    const scope = rt.scope()
    const session = await openSession(memoryStore(), { id: 'code-mode-x5' })
    const code = 'const r = await tools.add({ a: 2, b: 3 }); return r.sum'
    const model = scripted([
      {
        toolCalls: [
          { id: 'call_1', name: RUN_CODE, arguments: JSON.stringify({ code, description: 'add' }) },
        ],
      },
      { text: 'It is 5.' },
    ])
    const agent = createAgent({ runtime: rt, scope, session, model, codeRuntime: sandbox })
    agent.send('What is 2 + 3?')
    await agent.whenIdle()
    const events = session.events()
    const start = events.find((e) => e.type === 'tool/code-dispatch-start')
    const settle = events.find((e) => e.type === 'tool/code-dispatch')
    expect(start?.data).toMatchObject({
      turn: 1,
      step: 1,
      rootCallId: 'call_1',
      parentCallId: 'call_1',
      subCallId: 'call_1:code:1',
      name: 'add',
      arguments: { a: 2, b: 3 },
    })
    expect(settle?.data).toMatchObject({ turn: 1, step: 1, subCallId: 'call_1:code:1', isError: false })
    const types = events.map((e) => e.type)
    expect(types.indexOf('tool/code-dispatch')).toBeLessThan(types.indexOf('tool/result'))
    const toolMessages = session.messages().filter((m) => m.role === 'tool')
    expect(toolMessages).toEqual([
      { role: 'tool', callId: 'call_1', content: [{ type: 'text', text: '5' }], isError: false },
    ])
    expect(JSON.stringify(session.messages())).not.toContain('call_1:code:1')
    await session.close()
  })
})
