import {
  type CodeBinding,
  type CodeRunResult,
  isLosslessJson,
  type JsonValue,
  TOOL_ARGS_NOT_LOSSLESS,
  ToolError,
  toolArgsUnreadable,
} from '@tooltx/core'
import { DEFAULT_LIMITS, quickjsRuntime } from '@tooltx/sandbox'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bindings, probeBinding } from './bindings.js'

const runtime = quickjsRuntime({ computeMs: 2_000, wallMs: 10_000, memoryBytes: 32 * 2 ** 20, poolSize: 1 })
const never = new AbortController().signal

const echo = bindings({ echo: async (args) => args })

function run(
  program: string,
  with_: Record<string, CodeBinding> = echo,
  signal = never,
): Promise<CodeRunResult> {
  return runtime.run({ program, bindings: with_, signal })
}

/** Runs `use` on a fresh runtime made with `options` (closed afterwards); `go` runs one program with a live signal. */
async function withRuntime(
  options: Parameters<typeof quickjsRuntime>[0],
  use: (
    go: (program: string, with_?: Record<string, CodeBinding>) => Promise<CodeRunResult>,
  ) => Promise<void>,
): Promise<void> {
  const own = quickjsRuntime(options)
  try {
    await use((program, with_ = echo) => own.run({ program, bindings: with_, signal: never }))
  } finally {
    await own.close()
  }
}

beforeAll(() => runtime.warm())
afterAll(() => runtime.close())

describe('X8.1 the seam', () => {
  it('X8.1: a code runtime is { language, isolation, run } and run resolves { value?, logs, error? }', async () => {
    expect(runtime.language).toBe('typescript')
    expect(runtime.isolation).toBe('quickjs-wasm-worker')
    expect(await run('console.log("a")\nreturn 2')).toEqual({ logs: ['a'], value: 2 })
    expect(await run('throw new Error("no")')).toMatchObject({ logs: [], error: { kind: 'exception' } })
    expect(await run('console.log("only logs")')).toEqual({ logs: ['only logs'] })
  })

  it('X8.1: run rejects only for misuse of the seam, with an INVARIANT ToolError', async () => {
    const bad: unknown[] = [
      undefined,
      'return 1',
      { program: 1, bindings: echo, signal: never },
      { program: 'return 1', bindings: null, signal: never },
      { program: 'return 1', bindings: { x: 'not a function' }, signal: never },
      { program: 'return 1', bindings: echo },
    ]
    for (const request of bad) {
      const error = await runtime.run(request as never).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(ToolError)
      expect((error as ToolError).code).toBe('INVARIANT')
    }
  })

  it('X8.1: run after close() rejects; close is idempotent', async () => {
    const closed = quickjsRuntime({ poolSize: 0 })
    await closed.close()
    await closed.close()
    await expect(closed.run({ program: 'return 1', bindings: echo, signal: never })).rejects.toThrow(
      /after close/,
    )
  })

  it('X8.1: close() ends a run that is still going with kind abort', async () => {
    const own = quickjsRuntime({ poolSize: 0 })
    const pending = own.run({
      program: 'await tools.wait({})',
      bindings: bindings({ wait: () => new Promise(() => {}) }),
      signal: never,
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    await own.close()
    expect(await pending).toEqual({
      logs: [],
      error: { kind: 'abort', message: 'the sandbox runtime was closed' },
    })
  })
})

describe('X8.2 / X8.3 error kinds, defaults and messages', () => {
  it('X8.3: defaults are 60000 ms compute, 600000 ms wall, 512 MiB memory, 64 MiB output', () => {
    const defaults = quickjsRuntime()
    expect(defaults.limits).toMatchObject({
      computeMs: 60000,
      wallMs: 600000,
      memoryBytes: 536870912,
      maxOutputBytes: 67108864,
    })
    expect(DEFAULT_LIMITS).toMatchObject(defaults.limits)
  })

  it('X8.3: a malformed option throws INVALID_DEFINITION naming it', () => {
    for (const options of [
      { computeMs: 0 },
      { wallMs: 1.5 },
      { memoryBytes: 10 },
      { maxOutputBytes: -1 },
      { poolSize: 'x' },
    ]) {
      expect(() => quickjsRuntime(options as never)).toThrow(ToolError)
      expect(() => quickjsRuntime(options as never)).toThrow(new RegExp(`"${Object.keys(options)[0]}"`))
    }
    expect(() => quickjsRuntime(null as never)).toThrow(/options must be an object/)
  })

  it('X8.2: each cause has its own kind (exception, invalid-output here; limits, abort in the limits suite)', async () => {
    expect((await run('null.x')).error?.kind).toBe('exception')
    expect((await run('return new Map()')).error?.kind).toBe('invalid-output')
    expect((await run('return 1')).error).toBeUndefined()
  })

  it('X8.3: limit messages name the configured limit under their own kind', async () => {
    const small = {
      computeMs: 100,
      wallMs: 5_000,
      memoryBytes: 16 * 2 ** 20,
      maxOutputBytes: 8,
      poolSize: 0,
    }
    await withRuntime(small, async (go) => {
      expect((await go('for (;;) {}')).error).toEqual({
        kind: 'compute-limit',
        message: 'compute budget exhausted (100ms busy)',
      })
      expect((await go('console.log("123456789")')).error).toEqual({
        kind: 'output-limit',
        message: 'output limit exceeded (8 bytes)',
      })
    })
    // Its own runtime with a roomy compute budget: on a loaded machine filling the array could
    // spend 100 ms of compute before it reaches the memory limit.
    await withRuntime(
      {
        computeMs: 10_000,
        wallMs: 20_000,
        memoryBytes: 16 * 2 ** 20,
        poolSize: 0,
      },
      async (go) => {
        expect((await go('new Array(1e8).fill(0)')).error).toEqual({
          kind: 'memory-limit',
          message: `memory limit exceeded (${16 * 2 ** 20} bytes)`,
        })
      },
    )
    await withRuntime({ wallMs: 150, poolSize: 0 }, async (go) => {
      const never = bindings({ wait: () => new Promise(() => {}) })
      expect((await go('await tools.wait({})', never)).error).toEqual({
        kind: 'wall-limit',
        message: 'wall-clock ceiling reached (150ms)',
      })
    })
  })
})

describe('X8.4 compute counts only program time', () => {
  it('X8.4: waiting on slow bindings does not consume the compute budget; wall time counts it', async () => {
    const slow = bindings({ sleep: () => new Promise((resolve) => setTimeout(() => resolve(null), 250)) })
    await withRuntime({ computeMs: 150, wallMs: 5_000, poolSize: 0 }, async (go) => {
      const waited = await go('for (let i = 0; i < 3; i++) await tools.sleep({})\nreturn "done"', slow)
      expect(waited).toEqual({ logs: [], value: 'done' })
      const busy = await go('await tools.sleep({})\nfor (;;) {}', slow)
      expect(busy.error?.kind).toBe('compute-limit')
    })
    await withRuntime({ computeMs: 5_000, wallMs: 400, poolSize: 0 }, async (go) => {
      const waited = await go('for (let i = 0; i < 3; i++) await tools.sleep({})', slow)
      expect(waited.error?.kind).toBe('wall-limit')
    })
  })
})

describe('X8.5 no ambient authority', () => {
  it('X8.5: process, require, fetch, setTimeout, setInterval and host APIs are undefined', async () => {
    const names = [
      'process',
      'require',
      'fetch',
      'setTimeout',
      'setInterval',
      'Buffer',
      'module',
      'WebAssembly',
      'XMLHttpRequest',
      'Deno',
      'Bun',
      'std',
      'os',
    ]
    const result = await run(`return [${names.map((n) => `typeof ${n}`).join(', ')}]`)
    expect(result.value).toEqual(names.map(() => 'undefined'))
  })

  it('X8.5: import fails as an exception, dynamic or static', async () => {
    for (const program of [
      'const fs = await import("node:fs")\nreturn fs',
      'import fs from "fs"\nreturn fs.readFileSync("/etc/passwd")',
    ]) {
      const result = await run(program)
      expect(result.error?.kind).toBe('exception')
    }
  })
})

describe('X8.6 / X8.7 / X3 only lossless JSON crosses', () => {
  it('X8.6: binding arguments and results are copies in both directions', async () => {
    let received: JsonValue | undefined
    const hostValue = { list: [1, 2], nested: { a: 'b' } }
    const copy = bindings({
      take: async (args) => {
        received = args
        ;(args as { x: number[] }).x.push(99)
        return hostValue
      },
    })
    const result = await run(
      `const mine = { x: [1] }
       const got = await tools.take(mine)
       got.list.push(3)
       return { mine, got }`,
      copy,
    )
    expect(result.value).toEqual({ mine: { x: [1] }, got: { list: [1, 2, 3], nested: { a: 'b' } } })
    expect(hostValue).toEqual({ list: [1, 2], nested: { a: 'b' } })
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype)
  })

  it('X8.6: arbitrary lossless JSON survives the round trip through a binding unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 8 }).filter((v) => isLosslessJson(v)),
        async (values) => {
          const result = await runtime.run({
            // Through JSON.parse: in an object literal a "__proto__" key would set the prototype.
            program: `return await tools.echo(JSON.parse(${JSON.stringify(JSON.stringify({ values }))}))`,
            bindings: echo,
            signal: never,
          })
          expect(result.value).toEqual({ values })
        },
      ),
      { numRuns: 25 },
    )
  })

  it('X3.2: a non-lossless argument rejects only that call, before the binding runs', async () => {
    let calls = 0
    const counted = bindings({ probe: async () => ++calls })
    const attempts = [
      'undefined',
      '10n',
      '() => 1',
      'new Date()',
      'new Map()',
      '[1, , 3]',
      'NaN',
      '-0',
      '(() => { const a = {}; a.self = a; return a })()',
      'Symbol("s")',
      'Object.create({ inherited: 1 })',
    ]
    const result = await run(
      `const out = []
       for (const make of [${attempts.map((a) => `() => (${a})`).join(', ')}]) {
         try { await tools.probe(make()); out.push('dispatched') } catch (e) { out.push(e.message) }
       }
       out.push(await tools.probe({ fine: true }))
       return out`,
      counted,
    )
    expect(result.value).toEqual([...attempts.map(() => TOOL_ARGS_NOT_LOSSLESS), 1])
    expect(calls).toBe(1)
  })

  it("X4.6: an argument whose getter throws rejects that call with the getter's own message, before the binding runs", async () => {
    let calls = 0
    const counted = bindings({ probe: async () => ++calls })
    const result = await run(
      `const out = []
       for (const thrown of [new Error('no access to x'), 'a bare string', { message: 7 }]) {
         try { await tools.probe({ get x() { throw thrown } }); out.push('dispatched') } catch (e) { out.push(e.message) }
       }
       out.push(await tools.probe({ fine: true }))
       return out`,
      counted,
    )
    // The same text as the in-process bindings of @tooltx/core.
    expect(result.value).toEqual([
      toolArgsUnreadable('no access to x'),
      toolArgsUnreadable('a bare string'),
      toolArgsUnreadable('[object Object]'),
      1,
    ])
    expect(calls).toBe(1)
  })

  it('X8.7: a binding resolution that is not lossless JSON rejects the call with its message', async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const odd = bindings({
      nothing: async () => undefined as never,
      fn: async () => (() => 1) as never,
      nan: async () => Number.NaN,
      cycle: async () => cyclic as never,
      date: async () => new Date() as never,
    })
    const result = await run(
      `const out = []
       for (const name of ['nothing', 'fn', 'nan', 'cycle', 'date']) {
         try { await tools[name]({}); out.push('resolved') } catch (e) { out.push(e.message) }
       }
       return out`,
      odd,
    )
    expect(result.value).toEqual(Array(5).fill('binding resolution must be lossless JSON'))
  })

  it('X3.1: tools is a null-prototype object of async functions; __proto__ is an ordinary binding', async () => {
    const named = bindings({ ['__proto__']: async () => 'proto!', other: async () => 'other' })
    expect(Object.keys(named)).toEqual(['__proto__', 'other'])
    const result = await run(
      `return {
         proto: Object.getPrototypeOf(tools) === null,
         keys: Object.keys(tools).sort(),
         kinds: Object.values(tools).map((f) => f.constructor.name),
         viaProto: await tools['__proto__']({}),
         other: await tools.other({}),
       }`,
      named,
    )
    expect(result.error).toBeUndefined()
    expect(result.value).toEqual({
      proto: true,
      keys: ['__proto__', 'other'],
      kinds: ['AsyncFunction', 'AsyncFunction'],
      viaProto: 'proto!',
      other: 'other',
    })
  })

  it('X3.4 / X3.5: a ToolCallError-like rejection surfaces as a ToolCallError the program can catch', async () => {
    const failing = bindings({
      deny: async () => {
        throw Object.assign(new Error('denied by policy'), {
          name: 'ToolCallError',
          toolName: 'deny',
          code: 'DENIED',
          extra: 1,
        })
      },
      plain: async () => {
        throw new RangeError('out of range')
      },
      weird: async () => {
        throw 'a string'
      },
      hostile: async () => {
        throw new Proxy(
          {},
          {
            get: () => {
              throw new Error('trap')
            },
          },
        )
      },
    })
    const result = await run(
      `const out = []
       for (const name of ['deny', 'plain', 'weird', 'hostile']) {
         try { await tools[name]({}) } catch (e) {
           out.push({ name: e.name, message: e.message, toolName: e.toolName ?? null, code: e.code ?? null,
             isError: e instanceof Error, isToolCallError: e instanceof ToolCallError, extra: e.extra ?? null })
         }
       }
       return out`,
      failing,
    )
    // What the program sees of a thrown value that is not a tool call failure.
    const plainError = (name: string, message: string) => ({
      name,
      message,
      toolName: null,
      code: null,
      isError: true,
      isToolCallError: false,
      extra: null,
    })
    expect(result.value).toEqual([
      {
        name: 'ToolCallError',
        message: 'denied by policy',
        toolName: 'deny',
        code: 'DENIED',
        isError: true,
        isToolCallError: true,
        extra: null,
      },
      plainError('RangeError', 'out of range'),
      plainError('Error', 'a string'),
      plainError('Error', '<unprintable thrown value>'),
    ])
  })
})

describe('X8.8 TypeScript program as an async function body', () => {
  it('X8.8: types are stripped and the returned value is the result', async () => {
    const result = await run(
      `interface Point { x: number; y: number }
       enum Color { Red = 'red' }
       const p: Point = { x: 1, y: 2 } as Point
       const add = <T extends number>(a: T, b: T): number => a + b
       return { sum: add(p.x, p.y), color: Color.Red, awaited: await Promise.resolve(3) }`,
    )
    expect(result).toEqual({ logs: [], value: { sum: 3, color: 'red', awaited: 3 } })
  })

  it('X8.8: a transpile error is an exception and no sandbox starts', async () => {
    const probe = probeBinding()
    const result = await run('console.log("never")\nconst x: = 1', probe.bindings)
    expect(result.logs).toEqual([])
    expect(result.error?.kind).toBe('exception')
    expect(result.error?.message).toMatch(/^TypeScript transpile failed: .*\(2:\d+\)/)
    expect(probe.called()).toBe(false)
  })

  it('X8.8: runtime errors point at the model’s own line', async () => {
    const result = await run('const a = 1\nconst b = 2\nnull.boom()\nreturn a + b')
    expect(result.error?.kind).toBe('exception')
    expect(result.error?.message).toMatch(/^TypeError: .*\n.*program\.ts:3/)
  })

  it('X8.8: a non-lossless completion is invalid-output with the fixed message', async () => {
    for (const program of [
      'return () => 1',
      'return NaN',
      'return [1, undefined]',
      'return new Date()',
      'return 10n',
      'const a = []; a.push(a); return a',
    ]) {
      expect((await run(program)).error).toEqual({
        kind: 'invalid-output',
        message: 'program completion must be lossless JSON',
      })
    }
    expect(await run('return')).toEqual({ logs: [] })
    expect(await run('return null')).toEqual({ logs: [], value: null })
  })
})

describe('X8.9 console and output bytes', () => {
  it('X8.9: each console method appends one line; strings as is, other values as JSON, joined by spaces', async () => {
    const result = await run(
      `console.log('plain', 1, { a: [true, null] })
       console.info('info')
       console.warn('warn', 'two')
       console.error(new TypeError('bad'))
       console.debug(undefined, 'x')
       console.log()`,
    )
    expect(result.logs).toEqual([
      'plain 1 {"a":[true,null]}',
      'info',
      'warn two',
      'TypeError: bad',
      'undefined x',
      '',
    ])
  })

  it('X8.9: output bytes are the UTF-8 bytes of the log lines plus the completion JSON', async () => {
    await withRuntime({ maxOutputBytes: 11, poolSize: 0 }, async (go) => {
      // 'éé' is 4 bytes plus 1 for its line, '"abcd"' 6: exactly 11 (X8.16 adds the line's byte).
      expect(await go('console.log("éé")\nreturn "abcd"')).toEqual({ logs: ['éé'], value: 'abcd' })
      expect((await go('console.log("éé")\nreturn "abcde"')).error?.kind).toBe('output-limit')
      expect((await go('console.log("ééééé")\nconsole.log("x")')).error?.kind).toBe('output-limit')
    })
  })

  it('X8.18: log lines and exception messages cross losslessly, lone surrogates included', async () => {
    expect(await run("console.log('a\\ud800b', '\\udc00x')\nconsole.log('😀 é')")).toEqual({
      logs: ['a\ud800b \udc00x', '😀 é'],
    })
    const thrown = await run("throw new Error('x\\ud800y')")
    expect(thrown.error?.kind).toBe('exception')
    expect(thrown.error?.message.split('\n')[0]).toBe('Error: x\ud800y')
  })

  it('X8.9: logs captured before a failure are returned with it', async () => {
    const result = await run('console.log("first")\nconsole.warn("second")\nthrow new Error("late")')
    expect(result.logs).toEqual(['first', 'second'])
    expect(result.error?.message).toMatch(/^Error: late/)
  })
})

describe('X8.10 a fresh sandbox per run', () => {
  it('X8.10: globals, prototype changes and pending work never leak into the next run', async () => {
    const first = await run(
      `globalThis.leak = 'secret'
       Object.prototype.polluted = true
       Array.prototype.map = () => 'hijacked'
       JSON.parse = () => 'hijacked'
       return 1`,
    )
    expect(first.value).toBe(1)
    const second = await run(
      `return [typeof leak, ({}).polluted ?? null, [1].map((x) => x + 1), JSON.parse('2'), typeof tools.echo]`,
    )
    expect(second.value).toEqual(['undefined', null, [2], 2, 'function'])
  })
})

describe('X8.11 abort', () => {
  it('X8.11: a signal aborted before run starts nothing', async () => {
    const probe = probeBinding()
    const controller = new AbortController()
    controller.abort()
    const result = await run('await tools.probe({})', probe.bindings, controller.signal)
    expect(result).toEqual({ logs: [], error: { kind: 'abort', message: 'run aborted before it started' } })
    expect(probe.called()).toBe(false)
  })

  it('X8.11: an abort while the program waits on a binding ends the run with kind abort and its logs', async () => {
    const controller = new AbortController()
    const wait = bindings({
      wait: () => {
        setTimeout(() => controller.abort(), 10)
        return new Promise(() => {})
      },
    })
    const result = await run('console.log("before")\nawait tools.wait({})', wait, controller.signal)
    expect(result).toEqual({ logs: ['before'], error: { kind: 'abort', message: 'run aborted' } })
    // The next run on the same runtime is unaffected.
    expect((await run('return 5')).value).toBe(5)
  })
  it('X8.19: the abort message carries the signal reason, before and during the run', async () => {
    const controller = new AbortController()
    const wait = bindings({
      wait: () => {
        setTimeout(() => controller.abort(new Error('user pressed stop')), 10)
        return new Promise(() => {})
      },
    })
    expect(await run('await tools.wait({})', wait, controller.signal)).toEqual({
      logs: [],
      error: { kind: 'abort', message: 'run aborted: user pressed stop' },
    })
    const before = new AbortController()
    before.abort('not needed any more')
    expect(await run('return 1', echo, before.signal)).toEqual({
      logs: [],
      error: { kind: 'abort', message: 'run aborted before it started: not needed any more' },
    })
  })
})
