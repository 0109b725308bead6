import { createToolRuntime, ToolError } from '@tooltx/core'
import { describe, expect, it } from 'vitest'
import { rawTool } from './pipeline.fixtures.js'

describe('Y1.9 registry change notification', () => {
  it('Y1.9: every change that can alter a view notifies, once, synchronously', () => {
    const rt = createToolRuntime()
    let n = 0
    rt.onRegistryChange(() => n++)
    const offGlobal = rt.register(rawTool('a'))
    expect(n).toBe(1)
    const scope = rt.scope()
    expect(n).toBe(1) // creating a scope changes no view
    const offOwn = scope.register(rawTool('b'))
    const offRestrict = scope.restrict({ deny: ['a'] })
    const offMode = scope.presentAs('code')
    expect(n).toBe(4)
    offMode()
    offRestrict()
    offOwn()
    expect(n).toBe(7)
    // Idempotent disposers change nothing the second time, so they notify nothing.
    offMode()
    offRestrict()
    offOwn()
    expect(n).toBe(7)
    scope.dispose()
    expect(n).toBe(8)
    offGlobal()
    offGlobal()
    expect(n).toBe(9)
  })

  it('Y1.9: a failed registration notifies nothing; disposers and throwing listeners are contained', () => {
    const reported: unknown[] = []
    const rt = createToolRuntime({ reportError: (e) => reported.push(e) })
    let n = 0
    const listener = () => n++
    const offOne = rt.onRegistryChange(listener)
    rt.onRegistryChange(listener)
    rt.onRegistryChange(() => {
      throw new Error('listener broke')
    })
    rt.register(rawTool('a'))
    expect(() => rt.register(rawTool('a'))).toThrow(ToolError)
    expect(n).toBe(2)
    expect(reported.map((e) => (e as Error).message)).toEqual(['listener broke'])
    offOne()
    offOne()
    rt.register(rawTool('b'))
    expect(n).toBe(3)
    expect(() => rt.onRegistryChange(42 as never)).toThrow('onRegistryChange listener must be a function')
  })
})
