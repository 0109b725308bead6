/**
 * The budgets a program cannot slip past (X8.12–X8.17): binding data in flight, the program
 * text, memory and stack exhaustion under their own kinds, and every byte that leaves the
 * sandbox counted as output.
 */
import type { CodeBinding, CodeRunResult } from '@tooltx/core'
import { DEFAULT_LIMITS, type QuickJSRuntimeOptions, quickjsRuntime } from '@tooltx/sandbox'
import { transform } from 'sucrase'
import { afterAll, describe, expect, it } from 'vitest'
import { bindings, probeBinding } from './bindings.js'

const never = new AbortController().signal
const opened: { close(): Promise<void> }[] = []
afterAll(() => Promise.all(opened.map((runtime) => runtime.close())))

/** A runtime with `options` (one warm worker) and a `run` for it, closed after the suite. */
function sandbox(options: QuickJSRuntimeOptions) {
  const runtime = quickjsRuntime({ poolSize: 1, ...options })
  opened.push(runtime)
  return (program: string, with_: Record<string, CodeBinding> = bindings({})): Promise<CodeRunResult> =>
    runtime.run({ program, bindings: with_, signal: never })
}

describe('X8.12 binding data in flight', () => {
  const run = sandbox({ maxPendingBytes: 2 ** 20, computeMs: 10_000, wallMs: 20_000 })
  const pendingLimit = {
    kind: 'pending-limit',
    message: 'pending binding data limit exceeded (1048576 bytes of arguments and results in flight)',
  }

  it('X8.12: defaults to 64 MiB; a malformed maxPendingBytes throws INVALID_DEFINITION naming it', () => {
    expect(DEFAULT_LIMITS.maxPendingBytes).toBe(67_108_864)
    expect(quickjsRuntime().limits.maxPendingBytes).toBe(67_108_864)
    for (const bad of [-1, 1.5, '1'])
      expect(() => quickjsRuntime({ maxPendingBytes: bad as never })).toThrow(/"maxPendingBytes"/)
  })

  it('X8.12: arguments queued against a slow tool end the run before the host holds them all', async () => {
    const received: number[] = []
    const slow = bindings({
      upload: (args) => {
        received.push((args as { i: number }).i)
        return new Promise((resolve) => setTimeout(() => resolve(null), 2_000))
      },
    })
    // Each call's arguments are 300,014 bytes of JSON: three fit in 1 MiB, the fourth does not.
    const result = await run(
      `const s = 'x'.repeat(300_000)
       for (let i = 0; i < 60; i++) tools.upload({ s, i }).catch(() => {})
       return 'queued'`,
      slow,
    )
    expect(result).toEqual({ logs: [], error: pendingLimit })
    expect(received).toEqual([0, 1, 2])
  })

  it('X8.12: results the program has not taken in yet count too; received ones stop counting', async () => {
    const big = bindings({ big: async () => 'y'.repeat(400_000) })
    const result = await run(
      `for (let i = 0; i < 10; i++) tools.big({}).catch(() => {})
       const until = Date.now() + 1_000
       while (Date.now() < until) {}
       return 'busy'`,
      big,
    )
    expect(result).toEqual({ logs: [], error: pendingLimit })
    // A call stops counting once the program has its settlement.
    const sequential = await run(
      `let total = 0
       for (let i = 0; i < 10; i++) total += (await tools.big({ i })).length
       return total`,
      big,
    )
    expect(sequential).toEqual({ logs: [], value: 4_000_000 })
  })
})

describe('X8.13 the program text', () => {
  it('X8.13: defaults to 256 KiB; a larger program is an exception naming both sizes, and nothing runs', async () => {
    expect(DEFAULT_LIMITS.maxProgramBytes).toBe(262_144)
    expect(() => quickjsRuntime({ maxProgramBytes: -1 })).toThrow(/"maxProgramBytes"/)
    const probe = probeBinding()
    const run = sandbox({ maxProgramBytes: 1_000 })
    // "é" is two bytes: 17 + 2 * 500 = 1,017 bytes.
    const result = await run(`tools.probe({})//${'é'.repeat(500)}`, probe.bindings)
    expect(result).toEqual({
      logs: [],
      error: {
        kind: 'exception',
        message:
          'program too large: 1017 bytes, over the 1000-byte limit; send a shorter program and pass data through tool calls',
      },
    })
    expect(probe.called()).toBe(false)
    expect(await run(`return 1//${'é'.repeat(490)}`)).toEqual({ logs: [], value: 1 })
  })

  it('X8.13: transpiling happens under the wall clock and off the host thread', {
    retry: 2,
    timeout: 30_000,
  }, async () => {
    let program = ''
    for (let i = 0; program.length < 250_000; i++) program += `const v${i}: number = ${i} + 1\n`
    transform(program, { transforms: ['typescript'] })
    // Measured warm, as the host would run it.
    const started = performance.now()
    transform(program, { transforms: ['typescript'] })
    const transpileMs = performance.now() - started
    const run = sandbox({ wallMs: 30 })
    let last = performance.now()
    let longestGap = 0
    const ticker = setInterval(() => {
      longestGap = Math.max(longestGap, performance.now() - last)
      last = performance.now()
    }, 5)
    try {
      expect(await run(program)).toEqual({
        logs: [],
        error: { kind: 'wall-limit', message: 'wall-clock ceiling reached (30ms)' },
      })
    } finally {
      clearInterval(ticker)
    }
    expect(longestGap).toBeLessThan(Math.max(25, transpileMs / 2))
  })
})

describe('X8.14 running out of memory', () => {
  const run = sandbox({ memoryBytes: 8 * 2 ** 20, computeMs: 30_000, wallMs: 60_000 })
  const memoryLimit = { kind: 'memory-limit', message: 'memory limit exceeded (8388608 bytes)' }

  const exhausting: Record<string, string> = {
    'a growing Map': 'const m = new Map()\nfor (let i = 0; ; i++) m.set(i, { i })',
    'pending promises': 'const a = []\nfor (;;) a.push(new Promise(() => {}))',
    'Error objects': "const a = []\nfor (;;) a.push(new Error('x'))",
    'a replace-with-callback loop': "let s = 'ab'.repeat(1e4)\nfor (;;) s = s + s.replace(/a/g, () => 'cc')",
    'one allocation larger than the heap': "return 'x'.repeat(2 ** 29).length",
    'a result too large to copy out': "const s = 'x'.repeat(1e6)\nreturn Array(8).fill(s)",
  }
  it(`X8.14: ${Object.keys(exhausting).join(', ')}: each ends as memory-limit`, {
    timeout: 60_000,
  }, async () => {
    for (const [name, program] of Object.entries(exhausting))
      expect(await run(program), name).toEqual({ logs: [], error: memoryLimit })
  })

  it('X8.14: a program throwing a look-alike of the engine error cannot forge memory-limit', async () => {
    const forged = await run("throw new InternalError('out of memory')")
    expect(forged.error?.kind).toBe('exception')
    expect(forged.error?.message).toMatch(/^InternalError: out of memory\n.*program\.ts:1/)
    expect(await run('throw null')).toEqual({
      logs: [],
      error: { kind: 'exception', message: 'Uncaught null' },
    })
    expect(await run('return { get x() { throw null } }')).toEqual({
      logs: [],
      error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' },
    })
    expect(await run('return 2')).toEqual({ logs: [], value: 2 })
  })
})

describe('X8.15 stack overflow', () => {
  const run = sandbox({ computeMs: 10_000 })

  it('X8.15: deep JSON.parse, eval and recursion throw the program its own catchable error', async () => {
    const result = await run(
      `const caught = []
       for (const deep of [() => JSON.parse('['.repeat(1e5)), () => eval('('.repeat(1e5)), function f(): number { return f() + 1 }]) {
         try { deep() } catch (e) { caught.push(String(e)) }
       }
       return caught`,
    )
    expect(result).toEqual({
      logs: [],
      value: ['SyntaxError: stack overflow', 'SyntaxError: stack overflow', 'InternalError: stack overflow'],
    })
  })

  it('X8.15: an uncaught stack overflow is an exception, and the sandbox keeps working', async () => {
    for (const program of ["JSON.parse('['.repeat(1e5))", "eval('('.repeat(1e5))"]) {
      const result = await run(program)
      expect(result.error?.kind).toBe('exception')
      expect(result.error?.message).toMatch(/^SyntaxError: stack overflow/)
    }
    expect(await run('return 3')).toEqual({ logs: [], value: 3 })
  })
})

describe('X8.16 everything that leaves the sandbox counts', () => {
  it('X8.16: an empty log line costs one byte', async () => {
    const run = sandbox({ maxOutputBytes: 1_024 })
    const result = await run('for (let i = 0; i < 100_000; i++) console.log()')
    expect(result.error).toEqual({ kind: 'output-limit', message: 'output limit exceeded (1024 bytes)' })
    expect(result.logs).toEqual(Array(1_024).fill(''))
  })

  it('X8.16: an exception message counts, after the log lines', async () => {
    const run = sandbox({ maxOutputBytes: 2 ** 20 })
    const outputLimit = { kind: 'output-limit', message: 'output limit exceeded (1048576 bytes)' }
    expect(await run("throw new Error('x'.repeat(5e6))")).toEqual({ logs: [], error: outputLimit })
    expect(await run("console.log('z'.repeat(2 ** 20 - 20))\nthrow 'a twenty-byte text'")).toEqual({
      logs: ['z'.repeat(2 ** 20 - 20)],
      error: outputLimit,
    })
    expect(await run("console.log('z'.repeat(2 ** 20 - 20))\nthrow 'tiny'")).toEqual({
      logs: ['z'.repeat(2 ** 20 - 20)],
      error: { kind: 'exception', message: 'Uncaught tiny' },
    })
  })
})

describe('X8.17 the line that overflows', () => {
  const outputLimit = { kind: 'output-limit', message: 'output limit exceeded (20 bytes)' }
  const run = sandbox({ maxOutputBytes: 20 })

  it('X8.17: keeps the longest prefix that fits, marked as cut; nothing when not even the mark fits', async () => {
    expect(await run("console.log('a'.repeat(100))")).toEqual({
      logs: [`${'a'.repeat(11)}…[cut]`],
      error: outputLimit,
    })
    expect(await run("console.log('é'.repeat(100))")).toEqual({ logs: ['ééééé…[cut]'], error: outputLimit })
    expect(await run("console.log('😀'.repeat(10))")).toEqual({ logs: ['😀😀…[cut]'], error: outputLimit })
    expect(await run("console.log('12345')\nconsole.log('b'.repeat(100))")).toEqual({
      logs: ['12345', 'bbbbb…[cut]'],
      error: outputLimit,
    })
    const tiny = sandbox({ maxOutputBytes: 5 })
    expect(await tiny("console.log('a'.repeat(100))")).toEqual({
      logs: [],
      error: { kind: 'output-limit', message: 'output limit exceeded (5 bytes)' },
    })
  })
})
