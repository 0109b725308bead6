import { createToolRuntime } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { rawTool } from './pipeline.fixtures.js'

const names = (list: readonly { name: string }[]) => list.map((d) => d.name)

describe('Q2 the surface is cached per view and invalidated by any registry change', () => {
  it('Q2.1: an unchanged registry hands out the same deep-frozen surface; schemas() stay fresh copies', () => {
    for (const mode of ['native', 'code', 'both'] as const) {
      const rt = createToolRuntime({ mode })
      rt.register(rawTool('b'))
      rt.register(rawTool('a'))
      const view = rt.view(rt.scope())
      const first = view.surface()
      expect(view.surface()).toBe(first)
      expect(Object.isFrozen(first.tools)).toBe(true)
      for (const tool of first.tools) {
        expect(Object.isFrozen(tool)).toBe(true)
        expect(Object.isFrozen(tool.parameters)).toBe(true)
      }
      expect(view.schemas()).not.toBe(view.schemas())
      expect(Object.isFrozen(view.schemas()[0]!.parameters)).toBe(false)
    }
  })

  it('Q2.2: every kind of change, in the scope, an ancestor or the global layer, shows in the next surface()', () => {
    const rt = createToolRuntime({ mode: 'both' })
    const parent = rt.scope()
    const child = rt.scope({ parent })
    const view = rt.view(child)
    const seen: string[][] = []
    const step = () => {
      const surface = view.surface()
      seen.push([...names(surface.tools), surface.instructions.includes('  g:') ? 'sdk:g' : 'sdk:-'])
      return surface
    }
    let last = step()
    const expectChanged = () => {
      const next = step()
      expect(next).not.toBe(last)
      expect(view.surface()).toBe(next)
      last = next
    }
    const offGlobal = rt.register(rawTool('g'))
    expectChanged()
    parent.register(rawTool('p'))
    expectChanged()
    const offRestrict = parent.restrict({ deny: ['g'] })
    expectChanged()
    offRestrict()
    expectChanged()
    const offMode = parent.presentAs('code')
    expectChanged()
    offMode()
    expectChanged()
    offGlobal()
    expectChanged()
    parent.dispose()
    expectChanged()
    expect(seen).toEqual([
      ['run_code', 'sdk:-'],
      ['g', 'run_code', 'sdk:g'],
      ['g', 'p', 'run_code', 'sdk:g'],
      ['p', 'run_code', 'sdk:-'],
      ['g', 'p', 'run_code', 'sdk:g'],
      ['run_code', 'sdk:g'],
      ['g', 'p', 'run_code', 'sdk:g'],
      ['p', 'run_code', 'sdk:-'],
      ['run_code', 'sdk:-'],
    ])
  })
})
