import { type CodeRuntime, createToolRuntime, type ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { abortedSignal, callTool, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'

const names = (list: { name: string }[]) => list.map((d) => d.name)
const RULE =
  'Only `run_code` is callable directly; call every other tool from inside a `run_code` program through the `tools` object.'

describe('M1 declaring the mode', () => {
  it('M1.1: createToolRuntime({ mode }) sets the default; anything else throws INVALID_DEFINITION', () => {
    expect(names(createToolRuntime().view().list())).toEqual([])
    expect(names(createToolRuntime({ mode: 'code' }).view().list())).toEqual(['run_code'])
    for (const mode of ['Code', 'sdk', 1, null]) {
      expect(() => createToolRuntime({ mode: mode as never })).toThrow(
        expect.objectContaining({ code: 'INVALID_DEFINITION' }),
      )
    }
  })

  it('M1.2: the closest scope with a declared mode decides, else the runtime default', () => {
    const rt = createToolRuntime({ mode: 'native' })
    rt.register(rawTool('t'))
    const a = rt.scope()
    const b = rt.scope({ parent: a })
    const c = rt.scope({ parent: b })
    a.presentAs('code')
    b.presentAs('both')
    expect(
      rt
        .view(c)
        .surface()
        .tools.map((t) => t.name),
    ).toEqual(['run_code', 't'])
    expect(
      rt
        .view(a)
        .surface()
        .tools.map((t) => t.name),
    ).toEqual(['run_code'])
    expect(
      rt
        .view()
        .surface()
        .tools.map((t) => t.name),
    ).toEqual(['t'])
  })

  it('M1.3: a second presentAs conflicts; its disposer restores inheritance', () => {
    const rt = createToolRuntime({ mode: 'both' })
    const s = rt.scope()
    const off = s.presentAs('native')
    try {
      s.presentAs('code')
      expect.unreachable()
    } catch (error) {
      expect((error as ToolError).code).toBe('INVALID_DEFINITION')
      expect((error as ToolError).message).toContain('conflicts with')
    }
    expect(names(rt.view(s).list())).toEqual([])
    off()
    expect(names(rt.view(s).list())).toEqual(['run_code'])
    s.presentAs('code')
  })
})

describe('M2 what each mode offers', () => {
  function setup(mode: 'native' | 'code' | 'both') {
    const rt = createToolRuntime({ mode })
    rt.register(rawTool('zeta'))
    rt.register(rawTool('alpha'))
    rt.register(rawTool('Beta'))
    return rt.view()
  }

  it('M2.1: surface() returns tools sorted by code unit and a string', () => {
    const surface = setup('native').surface()
    expect(surface.tools.map((t) => t.name)).toEqual(['Beta', 'alpha', 'zeta'])
    expect(Object.keys(surface.tools[0]!)).toEqual(['name', 'description', 'parameters'])
    expect(typeof surface.instructions).toBe('string')
  })

  it('M2.2: native mode offers every tool and no instructions', () => {
    const surface = setup('native').surface()
    expect(surface.tools).toHaveLength(3)
    expect(surface.instructions).toBe('')
  })

  it('M2.3: code mode offers only run_code and starts the instructions with the code-only rule', () => {
    const surface = setup('code').surface()
    expect(surface.tools.map((t) => t.name)).toEqual(['run_code'])
    expect(surface.instructions.startsWith(RULE)).toBe(true)
    expect(surface.instructions).toContain('zeta')
  })

  it('M2.4: both mode offers every tool plus run_code and the SDK without the rule', () => {
    const surface = setup('both').surface()
    expect(surface.tools.map((t) => t.name)).toEqual(['Beta', 'alpha', 'run_code', 'zeta'])
    expect(surface.instructions).not.toContain(RULE)
    expect(surface.instructions).toContain('alpha')
  })

  it('M2.5: get, list and schemas ignore the mode for ordinary tools', () => {
    const view = setup('code')
    expect(names(view.list())).toEqual(['zeta', 'alpha', 'Beta', 'run_code'])
    expect(view.get('alpha')?.name).toBe('alpha')
    expect(names(view.schemas())).toEqual(['zeta', 'alpha', 'Beta', 'run_code'])
  })
})

describe('M3 the code-only collapse and classification', () => {
  const COLLAPSED = (name: string) =>
    `unknown tool "${name}": only \`run_code\` is callable directly — call \`${name}\` from inside a \`run_code\` program instead`

  it('M3.1: a model-direct call to a visible tool under code mode is the final-result UNKNOWN_TOOL', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('t'))
    let post = 0
    rt.onPostExecute(async (_e, _r, next) => {
      post++
      return next()
    })
    const result = await callTool(rt, 't')
    expectFailure(result, 'UNKNOWN_TOOL', COLLAPSED('t'))
    expect(post).toBe(0)
  })

  it('M3.2: a collapsed call runs no pre-execute, approver, guard, wrapper, body or post-execute', async () => {
    const ran: string[] = []
    const rt = createToolRuntime({ mode: 'code', approver: () => note(ran, 'approver', 'allowed-once') })
    rt.register(rawTool('t', { execute: async () => note(ran, 'body', 1) }))
    rt.onPreExecute(async () => note(ran, 'pre', { kind: 'ask' }))
    rt.guard(() => note(ran, 'guard', undefined))
    rt.wrapExecute(async (_e, next) => note(ran, 'wrap', next()))
    rt.onPostExecute(async (_e, _r, next) => note(ran, 'post', next()))
    rt.onResult(() => void ran.push('observer'))
    await callTool(rt, 't')
    expect(ran).toEqual(['observer'])
  })

  it('M3.3: the finalizer captured at entry applies to a collapsed call', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('t', { finalizeContent: () => [{ type: 'text', text: 'finalized' }] }))
    const result = await callTool(rt, 't')
    expect(result.content).toEqual([{ type: 'text', text: 'finalized' }])
    expect(result.isError && result.error.info.code).toBe('UNKNOWN_TOOL')
  })

  it('M3.4: a collapsed call with an aborted signal is ABORTED_BEFORE_DISPATCH instead', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('t'))
    const result = await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: abortedSignal() })
    expectFailure(result, 'ABORTED_BEFORE_DISPATCH', 'tool call aborted before dispatch')
  })

  it('M3.5: an invisible name is not collapsed: hooks run and dispatch says unknown tool', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    let pre = 0
    rt.onPreExecute(async (_e, next) => {
      pre++
      return next()
    })
    const result = await callTool(rt, 'ghost')
    expectFailure(result, 'UNKNOWN_TOOL', 'unknown tool "ghost"')
    expect(pre).toBe(1)
  })

  it('M3.6: a call carrying parent is never collapsed', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('t', { execute: async () => 'nested ok' }))
    let nested: unknown
    rt.register(
      rawTool('outer', {
        execute: async (_args: unknown, run: { token: symbol; signal: AbortSignal }) => {
          nested = await rt.execute({
            callId: 'n',
            name: 't',
            arguments: {},
            signal: run.signal,
            parent: run.token,
          })
          return null
        },
      }),
    )
    const scope = rt.scope()
    scope.presentAs('native')
    await rt.execute({ callId: 'c', name: 'outer', arguments: {}, signal: live(), scope })
    expect((nested as { isError: boolean; value: unknown }).isError).toBe(false)
    expect((nested as { value: unknown }).value).toBe('nested ok')
  })

  it('M3.7: parallel only for an exact true from isConcurrencySafe', () => {
    const rt = createToolRuntime()
    const answers: unknown[] = [true, 1, 'yes', Promise.resolve(true), false, undefined]
    answers.forEach((answer, i) => {
      rt.register(rawTool(`t${i}`, { isConcurrencySafe: () => answer }))
    })
    rt.register(
      rawTool('throws', {
        isConcurrencySafe: () => {
          throw new Error('x')
        },
      }),
    )
    rt.register(rawTool('plain'))
    const view = rt.view()
    expect(answers.map((_, i) => view.executionMode({ name: `t${i}`, arguments: {} }))).toEqual([
      'parallel',
      'exclusive',
      'exclusive',
      'exclusive',
      'exclusive',
      'exclusive',
    ])
    expect(view.executionMode({ name: 'throws', arguments: {} })).toBe('exclusive')
    expect(view.executionMode({ name: 'plain', arguments: {} })).toBe('exclusive')
    expect(view.executionMode({ name: 'missing', arguments: {} })).toBe('exclusive')
    const code = createToolRuntime({ mode: 'code' })
    code.register(rawTool('safe', { isConcurrencySafe: () => true }))
    expect(code.view().executionMode({ name: 'safe', arguments: {} })).toBe('exclusive')
    expect(code.view().executionMode({ name: 'safe', arguments: {}, parent: Symbol('p') })).toBe('parallel')
    expect(code.view().executionMode({ name: 'run_code', arguments: {} })).toBe('exclusive')
  })

  it('M3.8: classification sees a frozen snapshot; non-lossless or throwing arguments are exclusive', () => {
    const rt = createToolRuntime()
    const seen: unknown[] = []
    rt.register(rawTool('t', { isConcurrencySafe: (args: unknown) => note(seen, args, true) }))
    const args = { path: '/a' }
    expect(rt.view().executionMode({ name: 't', arguments: args })).toBe('parallel')
    expect(seen[0]).not.toBe(args)
    expect(seen[0]).toEqual(args)
    expect(Object.isFrozen(seen[0])).toBe(true)
    expect(rt.view().executionMode({ name: 't', arguments: { x: undefined } })).toBe('exclusive')
    const hostile = {
      get x() {
        throw new Error('no')
      },
    }
    expect(rt.view().executionMode({ name: 't', arguments: hostile })).toBe('exclusive')
    expect(seen).toHaveLength(1)
  })
})

describe('X1 the run_code transport entry', () => {
  const fakeRuntime: CodeRuntime = {
    language: 'typescript',
    isolation: 'test',
    run: async () => ({ logs: [] }),
  }

  it('X1.1: run_code appears only in code/both views with required code and description strings', () => {
    expect(createToolRuntime().view().get('run_code')).toBeUndefined()
    for (const mode of ['code', 'both'] as const) {
      const def = createToolRuntime({ mode }).view().get('run_code')!
      expect(def.parameters).toMatchObject({
        type: 'object',
        properties: { code: { type: 'string' }, description: { type: 'string' } },
        required: ['code', 'description'],
      })
    }
  })

  it('X1.2: a blank description fails with INVALID_ARGS', async () => {
    const rt = createToolRuntime({ mode: 'code', codeRuntime: fakeRuntime })
    for (const description of ['', '   \n\t']) {
      const result = await rt.execute({
        callId: 'c',
        name: 'run_code',
        arguments: { code: '1', description },
        signal: live(),
      })
      expectFailure(result, 'INVALID_ARGS', 'invalid arguments: "description" must not be blank')
    }
    const missing = await rt.execute({
      callId: 'c',
      name: 'run_code',
      arguments: { code: '1' },
      signal: live(),
    })
    expectFailure(missing, 'INVALID_ARGS', 'invalid arguments: missing required property "description"')
  })

  it('X1.3: the output schema is the closed { logs: string[], result?: any }', () => {
    const def = createToolRuntime({ mode: 'both' }).view().get('run_code')!
    expect(def.output.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { logs: { type: 'array', items: { type: 'string' } }, result: {} },
      required: ['logs'],
    })
  })

  it('X1.4: render joins logs and the result, or says there was no output', () => {
    const { render } = createToolRuntime({ mode: 'code' }).view().get('run_code')!.output
    const text = (value: unknown) => (render({}, value as never)[0] as { text: string }).text
    expect(text({ logs: ['a', 'b'], result: 'done' })).toBe('a\nb\ndone')
    expect(text({ logs: [], result: { x: [1] } })).toBe('{\n  "x": [\n    1\n  ]\n}')
    expect(text({ logs: ['only'], result: null })).toBe('only\nnull')
    expect(text({ logs: ['just logs'] })).toBe('just logs')
    expect(text({ logs: [] })).toBe('(run_code completed with no output)')
  })

  it('X1.5: the call card is generic/execute with the description and code; no result presenter', () => {
    const def = createToolRuntime({ mode: 'code' }).view().get('run_code')!
    expect(def.presentCall!({ code: 'return 1', description: 'Count files' })).toEqual({
      card: 'generic',
      title: 'Count files',
      kind: 'execute',
      rawInput: 'return 1',
    })
    expect(def.presentCall!('not an object')).toBeUndefined()
    expect('presentResult' in def).toBe(false)
    expect('isConcurrencySafe' in def || 'timeoutMs' in def).toBe(false)
  })

  it('X1.6: without any code runtime run_code fails with CODE_RUN_FAILED', async () => {
    const rt = createToolRuntime({ mode: 'code' })
    const result = await rt.execute({
      callId: 'c',
      name: 'run_code',
      arguments: { code: 'return 1', description: 'one' },
      signal: live(),
    })
    expectFailure(result, 'CODE_RUN_FAILED', 'run_code requires a code runtime, but none is configured')
  })
})
