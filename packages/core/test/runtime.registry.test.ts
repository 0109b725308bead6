import { createToolRuntime, type Execution } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { callTool, deferred, expectFailure, live, note, rawTool } from './pipeline.fixtures.js'
import { thrownToolError } from './thrown.js'

const names = (list: readonly { name: string }[]) => list.map((d) => d.name)

const definitionMessage = (fn: () => unknown) => thrownToolError(fn, 'INVALID_DEFINITION').message

describe('R1 layers and scopes', () => {
  it('R1.1: scopes chain to their parent or to the global layer', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('g'))
    const a = rt.scope()
    const b = rt.scope({ parent: a })
    a.register(rawTool('a'))
    b.register(rawTool('b'))
    expect(b.parent).toBe(a)
    expect(a.parent).toBeUndefined()
    expect(names(rt.view(b).list())).toEqual(['g', 'a', 'b'])
    expect(names(rt.view(a).list())).toEqual(['g', 'a'])
  })

  it('R1.2: runtime.register is global, scope.register is local, both return disposers', () => {
    const rt = createToolRuntime()
    const s = rt.scope()
    const offGlobal = rt.register(rawTool('g'))
    const offLocal = s.register(rawTool('l'))
    expect(names(rt.view().list())).toEqual(['g'])
    expect(names(rt.view(s).list())).toEqual(['g', 'l'])
    offGlobal()
    offLocal()
    expect(rt.view(s).list()).toEqual([])
  })

  it('R1.3: a parent that is not a live scope of the same runtime throws INVALID_DEFINITION', () => {
    const rt = createToolRuntime()
    const other = createToolRuntime().scope()
    const dead = rt.scope()
    dead.dispose()
    for (const parent of [other, dead, {}, 'x']) {
      expect(definitionMessage(() => rt.scope({ parent: parent as never }))).toMatch(/parent|disposed/)
    }
  })

  it('R1.4: dispose removes everything registered through the scope, is idempotent and keeps the link', async () => {
    const rt = createToolRuntime({ mode: 'native' })
    rt.register(rawTool('g'))
    rt.register(rawTool('h'))
    const parent = rt.scope()
    const child = rt.scope({ parent })
    parent.register(rawTool('p'))
    parent.restrict({ deny: ['h'] })
    parent.presentAs('both')
    const guarded: string[] = []
    parent.guard((exec) => {
      guarded.push(exec.name)
      return undefined
    })
    const observed: string[] = []
    rt.onResult((exec) => observed.push(exec.name), { scope: parent })
    expect(names(rt.view(child).list())).toEqual(['g', 'p', 'run_code'])
    parent.dispose()
    parent.dispose()
    expect(names(rt.view(child).list())).toEqual(['g', 'h'])
    await rt.execute({ callId: 'c', name: 'g', arguments: {}, signal: live(), scope: child })
    expect(guarded).toEqual([])
    expect(observed).toEqual([])
    expect(definitionMessage(() => parent.register(rawTool('x')))).toMatch(/disposed/)
    expect(definitionMessage(() => parent.restrict({ deny: ['g'] }))).toMatch(/disposed/)
    expect(definitionMessage(() => parent.presentAs('code'))).toMatch(/disposed/)
    expect(definitionMessage(() => parent.guard(() => undefined))).toMatch(/disposed/)
    expect(
      definitionMessage(() => rt.onPreExecute(async () => ({ kind: 'allow' }), { scope: parent })),
    ).toMatch(/disposed/)
  })
})

describe('R2 view resolution', () => {
  it('R2.1: global, then ancestors farthest to nearest, then restrictions, then own tools, then run_code', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('x', { description: 'global' }))
    rt.register(rawTool('y', { description: 'global' }))
    const grand = rt.scope()
    const parent = rt.scope({ parent: grand })
    const s = rt.scope({ parent })
    grand.register(rawTool('x', { description: 'grand' }))
    parent.register(rawTool('x', { description: 'parent' }))
    parent.restrict({ deny: ['y'] })
    s.register(rawTool('y', { description: 'own' }))
    s.presentAs('both')
    const view = rt.view(s)
    expect(view.get('x')?.description).toBe('parent')
    expect(view.get('y')?.description).toBe('own')
    expect(names(view.list())).toEqual(['x', 'y', 'run_code'])
  })

  it('R2.2: an own registration shadows; disposing it shows the shadowed tool again', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t', { description: 'global' }))
    const s = rt.scope()
    const off = s.register(rawTool('t', { description: 'mine' }))
    expect(rt.view(s).get('t')?.description).toBe('mine')
    off()
    expect(rt.view(s).get('t')?.description).toBe('global')
  })

  it('R2.3: first-insertion order; a shadowing entry keeps the position; run_code is last', () => {
    const rt = createToolRuntime({ mode: 'both' })
    rt.register(rawTool('a'))
    rt.register(rawTool('b'))
    rt.register(rawTool('c'))
    const s = rt.scope()
    s.register(rawTool('d'))
    s.register(rawTool('b', { description: 'shadow' }))
    const view = rt.view(s)
    expect(names(view.list())).toEqual(['a', 'b', 'c', 'd', 'run_code'])
    expect(names(view.schemas())).toEqual(['a', 'b', 'c', 'd', 'run_code'])
    expect(view.schemas()[1]!.description).toBe('shadow')
  })

  it('R2.4: runtime.view() is the global view with the default mode', () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(rawTool('g'))
    rt.scope().register(rawTool('local'))
    expect(names(rt.view().list())).toEqual(['g', 'run_code'])
    expect(names(rt.view().surface().tools)).toEqual(['run_code'])
  })

  it('R2.5: run_code is synthesized: never stored, unrestrictable, absent from native views', () => {
    const rt = createToolRuntime({ mode: 'both' })
    rt.register(rawTool('t'))
    const s = rt.scope()
    expect(definitionMessage(() => s.restrict({ deny: ['run_code'] }))).toBe(
      'restrict() cannot name the reserved tool "run_code"',
    )
    expect(rt.view(s).get('run_code')?.name).toBe('run_code')
    const native = rt.scope()
    native.presentAs('native')
    expect(rt.view(native).get('run_code')).toBeUndefined()
    expect(names(rt.view(native).list())).toEqual(['t'])
  })
})

describe('R3 restrictions', () => {
  it('R3.1: allow and deny intersect; the disposer lifts exactly that restriction, idempotently', () => {
    const rt = createToolRuntime()
    for (const n of ['a', 'b', 'c']) rt.register(rawTool(n))
    const s = rt.scope()
    const offAllow = s.restrict({ allow: ['a', 'b'] })
    const offDeny = s.restrict({ deny: ['b'] })
    expect(names(rt.view(s).list())).toEqual(['a'])
    offDeny()
    offDeny()
    expect(names(rt.view(s).list())).toEqual(['a', 'b'])
    offAllow()
    expect(names(rt.view(s).list())).toEqual(['a', 'b', 'c'])
    s.restrict({ allow: ['a', 'b'], deny: ['a'] })
    expect(names(rt.view(s).list())).toEqual(['b'])
  })

  it('R3.2: restrictions flow down to descendants, never up', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    rt.register(rawTool('b'))
    const parent = rt.scope()
    const child = rt.scope({ parent })
    parent.restrict({ deny: ['a'] })
    child.restrict({ deny: ['b'] })
    expect(names(rt.view(parent).list())).toEqual(['b'])
    expect(names(rt.view(child).list())).toEqual([])
  })

  it('R3.3: own registrations survive own and ancestor restrictions', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    const parent = rt.scope()
    const child = rt.scope({ parent })
    parent.restrict({ deny: ['a'] })
    child.restrict({ allow: ['a'] })
    child.register(rawTool('a', { description: 'own' }))
    child.register(rawTool('z'))
    expect(rt.view(child).get('a')?.description).toBe('own')
    expect(names(rt.view(child).list())).toEqual(['a', 'z'])
  })

  it('R3.4: an allow-list excludes later inherited tools; a deny-list admits them', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    const allowing = rt.scope()
    const denying = rt.scope()
    allowing.restrict({ allow: ['a'] })
    denying.restrict({ deny: ['a'] })
    rt.register(rawTool('later'))
    expect(names(rt.view(allowing).list())).toEqual(['a'])
    expect(names(rt.view(denying).list())).toEqual(['later'])
  })

  it('R3.5: restrict({}) throws', () => {
    const rt = createToolRuntime()
    expect(definitionMessage(() => rt.scope().restrict({}))).toBe('restrict() needs an allow or deny list')
  })

  it('R3.6: naming run_code throws', () => {
    const rt = createToolRuntime({ mode: 'code' })
    expect(definitionMessage(() => rt.scope().restrict({ allow: ['run_code'] }))).toBe(
      'restrict() cannot name the reserved tool "run_code"',
    )
  })

  it('R3.7: naming a tool that is not inherited throws with the sorted known names', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('zeta'))
    rt.register(rawTool('alpha'))
    const s = rt.scope()
    s.register(rawTool('own'))
    expect(definitionMessage(() => s.restrict({ deny: ['own', 'nope'] }))).toBe(
      'restrict() names unknown inherited tool(s) "own", "nope"; known inherited tools: alpha, zeta',
    )
    expect(
      definitionMessage(() =>
        createToolRuntime()
          .scope()
          .restrict({ allow: ['x'] }),
      ),
    ).toBe('restrict() names unknown inherited tool(s) "x"; known inherited tools: (none)')
  })

  it('R3.8: the lists are copied at the call', () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    rt.register(rawTool('b'))
    const s = rt.scope()
    const deny = ['a']
    s.restrict({ deny })
    deny.push('b')
    deny[0] = 'b'
    expect(names(rt.view(s).list())).toEqual(['b'])
  })
})

describe('R4 one live view', () => {
  it('R4.1: get, list, schemas, surface and dispatch agree', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('a'))
    rt.register(rawTool('b'))
    const s = rt.scope()
    s.restrict({ allow: ['a'] })
    const view = rt.view(s)
    expect(names(view.list())).toEqual(['a'])
    expect(names(view.schemas())).toEqual(['a'])
    expect(names(view.surface().tools)).toEqual(['a'])
    expect(
      (await rt.execute({ callId: 'c', name: 'a', arguments: {}, signal: live(), scope: s })).isError,
    ).toBe(false)
    expectFailure(
      await rt.execute({ callId: 'c', name: 'b', arguments: {}, signal: live(), scope: s }),
      'UNKNOWN_TOOL',
    )
  })

  it('R4.2: a restricted name reads as absent and dispatches as UNKNOWN_TOOL', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('bash'))
    const s = rt.scope()
    s.restrict({ deny: ['bash'] })
    expect(rt.view(s).get('bash')).toBeUndefined()
    expect(rt.view(s).schemas()).toEqual([])
    const result = await rt.execute({ callId: 'c', name: 'bash', arguments: {}, signal: live(), scope: s })
    expectFailure(result, 'UNKNOWN_TOOL', 'unknown tool "bash"')
  })

  it('R4.3: a change made while a call is waiting affects the stages that have not resolved yet', async () => {
    const rt = createToolRuntime()
    const off = rt.register(rawTool('t'))
    const gate = deferred()
    rt.onPreExecute(async () => {
      await gate.promise
      return { kind: 'allow' }
    })
    const pending = callTool(rt, 't')
    off()
    gate.resolve()
    expectFailure(await pending, 'UNKNOWN_TOOL', 'unknown tool "t"')
  })

  it('R4.4: finalizer from entry, body per attempt, output from the body that ran, value replacement re-resolves', async () => {
    const rt = createToolRuntime()
    const offA = rt.register(
      rawTool('t', {
        execute: async () => 'from A',
        output: {
          schema: { type: 'string' },
          render: (_: unknown, v: string) => [{ type: 'text', text: `A:${v}` }],
        },
        finalizeContent: (_: unknown, r: { content: unknown[] }) => [
          ...(r.content as never[]),
          { type: 'text', text: 'finalized by A' },
        ],
      }),
    )
    const swapB = () =>
      rt.register(
        rawTool('t', {
          execute: async () => 'from B',
          output: {
            schema: { type: 'string' },
            render: (_: unknown, v: string) => [{ type: 'text', text: `B:${v}` }],
          },
          finalizeContent: () => [{ type: 'text', text: 'finalized by B' }],
        }),
      )
    // The body of A runs; B replaces A before output is rendered: output still uses A.
    const gate = deferred()
    let offB: (() => void) | undefined
    const offWrap = rt.wrapExecute(async (_exec, next) => {
      const result = await next()
      offWrap()
      offA()
      offB = swapB()
      gate.resolve()
      return result
    })
    const result = await callTool(rt, 't')
    await gate.promise
    expect(result.content).toEqual([
      { type: 'text', text: 'A:from A' },
      { type: 'text', text: 'finalized by A' },
    ])
    // A post-execute value replacement re-resolves to B's renderer; a vanished tool fails.
    const offPost = rt.onPostExecute(async () => ({ kind: 'accept', value: 'replaced' }))
    const replaced = await callTool(rt, 't')
    expect(replaced.content).toEqual([{ type: 'text', text: 'finalized by B' }])
    expect(replaced.isError === false && replaced.value).toBe('replaced')
    offPost()
    rt.onPostExecute(async () => {
      offB!()
      return { kind: 'accept', value: 'again' }
    })
    expectFailure(await callTool(rt, 't'), 'UNKNOWN_TOOL')
  })
})

describe('R5 hook and guard scoping', () => {
  it('R5.1: every hook kind returns an idempotent disposer and honours { scope }', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const s = rt.scope()
    const child = rt.scope({ parent: s })
    const seen: string[] = []
    const offs = [
      rt.onPreExecute(async (_e, next) => note(seen, 'pre', next()), { scope: s }),
      rt.guard(() => note(seen, 'guard', undefined), { scope: s }),
      rt.wrapExecute(async (_e, next) => note(seen, 'wrap', next()), { scope: s }),
      rt.onPostExecute(async (_e, _r, next) => note(seen, 'post', next()), { scope: s }),
      rt.onResult(() => void seen.push('result'), { scope: s }),
    ]
    await callTool(rt, 't')
    expect(seen).toEqual([])
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope: child })
    expect(seen).toEqual(['pre', 'guard', 'wrap', 'post', 'result'])
    for (const off of offs) {
      off()
      off()
    }
    seen.length = 0
    await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope: child })
    expect(seen).toEqual([])
  })

  it('R5.2: an unscoped call reaches only unscoped handlers; a child-scoped one never sees parent calls', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const parent = rt.scope()
    const child = rt.scope({ parent })
    const seen: string[] = []
    rt.onResult((exec: Execution) => void seen.push(`all:${exec.callId}`))
    rt.onResult((exec: Execution) => void seen.push(`child:${exec.callId}`), { scope: child })
    await rt.execute({ callId: 'none', name: 't', arguments: {}, signal: live() })
    await rt.execute({ callId: 'parent', name: 't', arguments: {}, signal: live(), scope: parent })
    await rt.execute({ callId: 'child', name: 't', arguments: {}, signal: live(), scope: child })
    expect(seen).toEqual(['all:none', 'all:parent', 'all:child', 'child:child'])
  })

  it('R5.3: scope.guard is runtime.guard with { scope }', async () => {
    const rt = createToolRuntime()
    rt.register(rawTool('t'))
    const s = rt.scope()
    s.guard(() => 'scope guard')
    expect((await callTool(rt, 't')).isError).toBe(false)
    expectFailure(
      await rt.execute({ callId: 'c', name: 't', arguments: {}, signal: live(), scope: s }),
      'DENIED',
      'tool "t" denied by guard: scope guard',
    )
  })

  it('R5.4: a hook or guard that is not a function throws INVALID_DEFINITION', () => {
    const rt = createToolRuntime()
    const s = rt.scope()
    const bad = 'nope' as never
    for (const register of [
      () => rt.onPreExecute(bad),
      () => rt.guard(bad),
      () => rt.wrapExecute(bad),
      () => rt.onPostExecute(bad),
      () => rt.onResult(bad),
      () => rt.onProgress(bad),
      () => s.guard(bad),
    ]) {
      expect(definitionMessage(register)).toMatch(/must be a function/)
    }
  })
})
