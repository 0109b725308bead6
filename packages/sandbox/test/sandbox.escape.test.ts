/**
 * The escape suite (X8.5, X8.6): programs that try to reach the host. Every program ends by
 * trying to use what it found (`process.env`, `process.chdir`, a host global), and after each
 * one the host is checked: a canary object, the environment, the working directory, the
 * global object and the intrinsic prototypes must be exactly as before, and everything a
 * binding received must be plain lossless data.
 */
import { type CodeBinding, type CodeRunResult, isLosslessJson, type JsonValue } from '@tooltx/core'
import { quickjsRuntime } from '@tooltx/sandbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const runtime = quickjsRuntime({ computeMs: 2_000, wallMs: 10_000, memoryBytes: 64 * 2 ** 20, poolSize: 1 })
const signal = new AbortController().signal

const canary = { touched: false }
;(globalThis as Record<string, unknown>).__tooltxCanary = canary
const received: JsonValue[] = []
let stash: CodeBinding | undefined

const bindings: Record<string, CodeBinding> = Object.assign(Object.create(null), {
  probe: async (args: JsonValue) => {
    received.push(args)
    return { ok: true }
  },
  fail: async () => {
    const error = Object.assign(new Error('denied'), {
      name: 'ToolCallError',
      toolName: 'fail',
      code: 'DENIED',
    })
    throw error
  },
  hostile: async () => {
    throw new Proxy(
      {},
      {
        get: () => {
          throw new Error('host trap ran')
        },
      },
    )
  },
  handback: async () => {
    stash = bindings.probe
    return { fn: 'not a function' }
  },
})

/** What must never change on the host. */
function hostState() {
  return {
    canary: { ...canary },
    env: JSON.stringify(process.env),
    cwd: process.cwd(),
    globals: Object.getOwnPropertyNames(globalThis).sort().join(','),
    objectProto: Reflect.ownKeys(Object.prototype).map(String).sort().join(','),
    arrayProto: Reflect.ownKeys(Array.prototype).map(String).sort().join(','),
    functionProto: Reflect.ownKeys(Function.prototype).map(String).sort().join(','),
    promiseProto: Reflect.ownKeys(Promise.prototype).map(String).sort().join(','),
  }
}

/** Uses whatever `p` is as if it were the host's `process`: it must throw inside the sandbox. */
const PAYLOAD = `
function use(p) {
  p.env.TOOLTX_PWNED = '1'
  p.chdir('/')
  p.mainModule.require('fs').writeFileSync('/tmp/tooltx-pwned', 'x')
  return 'escaped'
}`

interface Attempt {
  name: string
  program: string
  /** Which outcome kinds count as "failed inside the sandbox"; a value must not be `'escaped'`. */
  allow?: ('value' | 'exception' | 'invalid-output')[]
}

const attempts: Attempt[] = [
  {
    name: 'this.constructor.constructor',
    program: `return use(this.constructor.constructor('return process')())`,
  },
  {
    name: 'globalThis.constructor chain',
    program: `return use(globalThis.constructor.constructor('return process')())`,
  },
  {
    name: 'object literal constructor chain',
    program: `return use(({}).constructor.constructor('return process')())`,
  },
  {
    name: 'tools binding constructor (AsyncFunction)',
    program: `return use(await tools.probe.constructor('return process')())`,
  },
  {
    name: 'tools binding Function via prototype',
    program: `return use(Object.getPrototypeOf(tools.probe).constructor.constructor('return process')())`,
  },
  {
    name: 'tools object prototype',
    program: `return use(Object.getPrototypeOf(tools).constructor('return process')())`,
  },
  { name: 'console.log constructor', program: `return use(console.log.constructor('return process')())` },
  {
    name: 'console object constructor',
    program: `return use(console.constructor.constructor('return process')())`,
  },
  {
    name: 'error thrown by a binding: constructor chain',
    program: `try { await tools.fail({}) } catch (e) { return use(e.constructor.constructor('return process')()) }`,
  },
  {
    name: 'error thrown by a binding: __proto__ chain',
    program: `try { await tools.fail({}) } catch (e) { return use(e.__proto__.__proto__.constructor.constructor('return process')()) }`,
  },
  {
    name: 'hostile rejection from a binding',
    program: `try { await tools.hostile({}) } catch (e) { return use(e.constructor.constructor('return process')()) }`,
  },
  {
    name: 'binding promise constructor',
    program: `return use(tools.probe({}).constructor.constructor('return process')())`,
  },
  {
    name: 'Promise.then constructor',
    program: `return use(Promise.resolve().then.constructor('return process')())`,
  },
  {
    name: 'bridge result constructor',
    program: `const r = await tools.probe({}); return use(r.constructor.constructor('return process')())`,
  },
  { name: 'dynamic import', program: `const m = await import('node:child_process'); return use(m)` },
  {
    name: 'dynamic import of a file URL',
    program: `const m = await import('file:///etc/passwd'); return use(m)`,
  },
  { name: 'static import', program: `import cp from 'child_process'\nreturn use(cp)` },
  { name: 'require', program: `return use(require('process'))` },
  { name: 'direct eval', program: `return use(eval('process'))` },
  { name: 'indirect eval', program: `return use((0, eval)('this.process || globalThis.process'))` },
  { name: 'Function returning this', program: `return use(new Function('return this')().process)` },
  {
    name: 'Reflect.construct(Function)',
    program: `return use(Reflect.construct(Function, ['return process'])())`,
  },
  {
    name: 'generator function constructor',
    program: `return use((function* () {}).constructor('return process')().next().value)`,
  },
  {
    name: 'V8 stack-trace API',
    program: `Error.prepareStackTrace = (e, frames) => frames; const frames = new Error().stack; return use(frames[0].getThis().process)`,
  },
  {
    name: 'sloppy-mode caller chain',
    program: `function f() { return f.caller } const c = f(); return use(c && c.constructor('return process')())`,
  },
  {
    name: 'arguments.callee chain',
    program: `return use((function () { return arguments.callee.constructor('return process')() })())`,
  },
  {
    name: 'prototype pollution of what the bridge returns',
    program: `const r = await tools.probe(JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'))
      Object.getPrototypeOf(r).polluted = true
      r.__proto__.hijack = () => 1
      return use(({}).polluted ? process : undefined)`,
  },
  {
    name: 'tampering with JSON and Reflect before a binding call',
    program: `JSON.stringify = () => '{"__proto__":{"polluted":1}}'
      Reflect.ownKeys = () => []
      Object.prototype.toJSON = function () { return { polluted: 1 } }
      await tools.probe({ honest: true })
      return use(process)`,
  },
  {
    name: 'getter handed to a binding',
    program: `let reads = 0
      await tools.probe({ get secret() { reads++; return 'read-in-sandbox' } })
      if (reads !== 1) throw new Error('getter read ' + reads + ' times')
      return use(process)`,
  },
  {
    name: 'throwing getter handed to a binding',
    program: `try { await tools.probe({ get x() { throw new Error('no') } }) } catch (e) { if (!e.message.startsWith('tool arguments must be lossless JSON; call the tool')) throw e }
      return use(process)`,
  },
  {
    name: 'Proxy handed to a binding',
    program: `const target = { a: 1 }
      const proxy = new Proxy(target, { get: (t, k) => (k === 'a' ? 'from-trap' : undefined), ownKeys: () => ['a'], getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }) })
      await tools.probe({ proxy })
      return use(process)`,
  },
  {
    name: 'Proxy whose traps throw handed to a binding',
    program: `const p = new Proxy({}, { ownKeys() { throw new Error('trap') } })
      try { await tools.probe(p) } catch (e) { if (!e.message.startsWith('tool arguments must be lossless JSON; call the tool')) throw e }
      return use(process)`,
  },
  {
    name: 'functions and symbols handed to a binding',
    program: `for (const bad of [{ f: () => process }, { s: Symbol('x') }, { toJSON() { return 'x' } }, [1, , 2]]) {
        try { await tools.probe(bad); throw new Error('dispatched') } catch (e) { if (!e.message.startsWith('tool arguments must be lossless JSON; call the tool')) throw e }
      }
      return use(process)`,
  },
  {
    name: 'cyclic arguments',
    program: `const a = { b: {} }; a.b.a = a
      try { await tools.probe(a) } catch (e) { if (!e.message.startsWith('tool arguments must be lossless JSON; call the tool')) throw e }
      return use(process)`,
  },
  {
    name: 'huge and deep arguments',
    program: `let deep = {}; const root = deep; for (let i = 0; i < 5000; i++) { deep.next = {}; deep = deep.next }
      await tools.probe({ big: 'x'.repeat(1 << 20), root })
      return use(process)`,
  },
  {
    name: 'calling bindings after the run',
    program: `const probe = tools.probe
      Promise.resolve().then(async () => { await null; await null; await probe({ late: true }) })
      globalThis.keep = probe
      return 'returned'`,
    allow: ['value'],
  },
  {
    name: 'calling a binding stashed by a previous run',
    program: `if (typeof keep === 'function') await keep({ late: true }); return use(process)`,
  },
  {
    name: 'a binding handing back a host function',
    program: `const r = await tools.handback({}); return use(typeof r.fn === 'function' ? r.fn.constructor('return process')() : undefined)`,
  },
  {
    name: 'log arguments with hostile toString and getters',
    program: `console.log({ toString() { return process } }, { get x() { throw new Error('g') } }, new Proxy({}, { get() { throw 1 } }))
      return use(process)`,
  },
  {
    name: 'completion value with getters and Proxies',
    program: `return { get v() { globalThis.ran = true; return 1 }, p: new Proxy({}, { ownKeys() { return ['x'] }, getOwnPropertyDescriptor() { return { value: 2, enumerable: true, configurable: true } }, get() { return 2 } }) }`,
    allow: ['value'],
  },
  {
    name: 'thrown object with a getter message',
    program: `throw { get message() { return typeof process } }`,
  },
  {
    name: 'SharedArrayBuffer and Atomics',
    program: `const b = new SharedArrayBuffer(8); Atomics.wait(new Int32Array(b), 0, 0, 10); return use(process)`,
  },
  { name: 'WebAssembly', program: `return use(WebAssembly.Module)` },
  { name: 'deep recursion', program: `const f = (n) => f(n + 1) + 1; f(0); return use(process)` },
]

let before: ReturnType<typeof hostState>
beforeAll(async () => {
  await runtime.warm()
  before = hostState()
})
afterAll(async () => {
  await runtime.close()
  delete (globalThis as Record<string, unknown>).__tooltxCanary
})

describe('X8.5 / X8.6 escape suite', () => {
  it('X8.5: the suite holds at least 30 escape programs', () => {
    // The exact suite: every program named once, and the count pinned so a dropped one is noticed.
    expect(new Set(attempts.map((a) => a.name)).size).toBe(attempts.length)
    expect(attempts).toHaveLength(44)
  })

  for (const attempt of attempts) {
    it(`X8.5 / X8.6 escape: ${attempt.name}`, async () => {
      received.length = 0
      const result: CodeRunResult = await runtime.run({
        program: `${PAYLOAD}\n${attempt.program}`,
        bindings,
        signal,
      })
      const allow = attempt.allow ?? ['exception', 'invalid-output']
      const outcome = result.error?.kind ?? 'value'
      expect(allow, JSON.stringify(result)).toContain(outcome)
      expect(result.value).not.toBe('escaped')
      // Give any late work a chance to arrive before the host is inspected.
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(hostState()).toEqual(before)
      expect(canary.touched).toBe(false)
      expect(process.env.TOOLTX_PWNED).toBeUndefined()
      for (const args of received) {
        expect(isLosslessJson(args)).toBe(true)
        expect(Object.getPrototypeOf(args)).toBe(Object.prototype)
        expect(Object.keys(args as object)).not.toContain('late')
      }
      if (stash !== undefined) expect(typeof stash).toBe('function')
    })
  }

  it('X8.6: what bindings received from the getter and Proxy programs is plain data read once', async () => {
    received.length = 0
    await runtime.run({
      program: `await tools.probe({ get secret() { return 'once' } })
        await tools.probe({ proxy: new Proxy({}, { ownKeys: () => ['a'], getOwnPropertyDescriptor: () => ({ value: 0, enumerable: true, configurable: true }), get: () => 'trap' }) })
        await tools.probe(JSON.parse('{"__proto__": {"x": 1}}'))`,
      bindings,
      signal,
    })
    expect(received).toEqual([
      { secret: 'once' },
      { proxy: { a: 'trap' } },
      JSON.parse('{"__proto__": {"x": 1}}'),
    ])
    const third = received[2] as Record<string, unknown>
    expect(Object.getPrototypeOf(third)).toBe(Object.prototype)
    expect(Object.hasOwn(third, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })
})
