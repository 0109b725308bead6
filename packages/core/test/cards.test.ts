import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type AnyToolDefinition,
  type CallView,
  callCard,
  createToolRuntime,
  type DurableResult,
  type JsonValue,
  parseToolArguments,
  type ResultView,
  resultCard,
} from '../src/index.js'
import { isCallView, isResultView } from '../src/tool/cards.js'

/** A raw tool definition with the given presenters (nothing here runs the tool). */
function tool(
  presenters: Partial<Pick<AnyToolDefinition, 'presentCall' | 'presentResult'>> = {},
): AnyToolDefinition {
  return {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object' },
    output: { schema: {}, render: () => [] },
    execute: () => null,
    ...presenters,
  }
}

function isDeepFrozen(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true
  return Object.isFrozen(v) && Object.values(v).every(isDeepFrozen)
}

const durable: DurableResult = {
  content: [{ type: 'text', text: 'line one\nline two' }],
  isError: false,
  meta: { lines: 2 },
}

const callViews: CallView[] = [
  { card: 'generic', title: 'Read /a' },
  {
    card: 'generic',
    title: 'Read /a',
    kind: 'read',
    rawInput: '{"path":"/a"}',
    content: [{ type: 'text', text: 'x' }],
    locations: [{ path: '/a', line: 3 }, { path: '/b' }],
  },
  { card: 'terminal', title: 'npm test' },
  { card: 'terminal', title: 'npm test', description: 'Run the tests', cwd: '/repo' },
  { card: 'diff', title: 'Edit /a', diffs: [{ path: '/a', oldText: null, newText: 'new file' }] },
  { card: 'diff', title: 'Edit /a', diffs: [], locations: [{ path: '/a' }] },
]

const resultViews: ResultView[] = [
  { card: 'generic' },
  { card: 'generic', title: 'Read /a', content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
  { card: 'terminal', title: 't', output: 'ok', exitCode: 0, signal: 'SIGTERM' },
  { card: 'terminal' },
  { card: 'diff', diffs: [{ path: '/a', oldText: 'a', newText: 'b' }] },
  {
    card: 'search',
    shape: 'matches',
    files: [{ path: '/a', matches: [{ line: 1, text: 'TODO' }] }],
    truncated: false,
    total: 1,
  },
  { card: 'search', shape: 'paths', paths: ['/a', '/b'], truncated: true, total: 10 },
  {
    card: 'read',
    path: '/a',
    offset: 0,
    lines: [{ number: 1, text: 'hello' }],
    totalLines: 1,
    lang: 'ts',
    content: [{ type: 'text', text: 'hello' }],
  },
  {
    card: 'web',
    kind: 'search',
    sources: [{ url: 'https://a.example', title: 'A' }],
    answer: 'yes',
    truncated: false,
  },
  { card: 'web', kind: 'fetch', url: 'https://a.example', statusCode: 200, truncated: false },
]

function trapEverything(): object {
  const fail = () => {
    throw new Error('trap')
  }
  return new Proxy(
    {},
    { get: fail, has: fail, ownKeys: fail, getPrototypeOf: fail, getOwnPropertyDescriptor: fail },
  )
}

describe('U1 presentation cards', () => {
  it('U1.1: every call view shape of the SPEC is a known view', () => {
    for (const view of callViews) expect(isCallView(view)).toBe(true)
    for (const kind of ['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'other']) {
      expect(isCallView({ card: 'generic', title: 't', kind })).toBe(true)
    }
  })

  it('U1.1: anything else is not a call view, and the check never throws', () => {
    const cyclic: Record<string, unknown> = { card: 'generic', title: 't' }
    cyclic.self = cyclic
    const rejected: unknown[] = [
      undefined,
      null,
      'generic',
      [],
      {},
      { card: 'generic' },
      { card: 'generic', title: 1 },
      { card: 'generic', title: 't', kind: 'rename' },
      { card: 'generic', title: 't', extra: true },
      { card: 'generic', title: 't', rawInput: undefined },
      { card: 'generic', title: 't', content: [{ text: 'no type' }] },
      {
        card: 'generic',
        title: 't',
        content: [{ type: 'image', mediaType: 'image/png', data: 'not base64!' }],
      },
      { card: 'generic', title: 't', locations: [{ line: 1 }] },
      { card: 'terminal', title: 't', cwd: 5 },
      { card: 'diff', title: 't', diffs: [{ path: '/a', oldText: undefined, newText: '' }] },
      { card: 'diff', title: 't' },
      { card: 'read', path: '/a', offset: 0, lines: [], totalLines: 0 },
      { card: 'generic', title: 't', total: 10n },
      { card: 'generic', title: 't', location: [{ path: '/a', line: Number.NaN }] },
      cyclic,
      trapEverything(),
      { card: 'generic', title: trapEverything() },
    ]
    for (const value of rejected) expect(isCallView(value)).toBe(false)
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true }),
        (v) => typeof isCallView(v) === 'boolean',
      ),
    )
  })

  it('U1.2: every result view shape of the SPEC is a known view', () => {
    for (const view of resultViews) expect(isResultView(view)).toBe(true)
  })

  it('U1.2: anything else is not a result view, and the check never throws', () => {
    const rejected: unknown[] = [
      { card: 'terminal', title: 't', exitCode: '0' },
      { card: 'diff' },
      { card: 'search', shape: 'matches', paths: [], truncated: false, total: 0 },
      { card: 'search', shape: 'paths', paths: [1], truncated: false, total: 1 },
      { card: 'search', shape: 'paths', paths: [], truncated: 'no', total: 1 },
      { card: 'read', path: '/a', offset: 0, lines: [{ number: 1 }], totalLines: 1 },
      { card: 'web', kind: 'fetch', url: 'u', statusCode: 200 },
      { card: 'web', kind: 'crawl', url: 'u', statusCode: 200, truncated: false },
      { card: 'generic', extra: 1 },
      { card: 'generic', content: 'text' },
      { card: 'table', rows: [] },
      trapEverything(),
    ]
    for (const value of rejected) expect(isResultView(value)).toBe(false)
    // A call-only shape is not a result view and the other way round.
    expect(isResultView({ card: 'generic', title: 't', kind: 'read' })).toBe(false)
    expect(isCallView({ card: 'search', shape: 'paths', paths: [], truncated: false, total: 0 })).toBe(false)
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true }),
        (v) => typeof isResultView(v) === 'boolean',
      ),
    )
  })

  it('U1.3: the arguments are parsed as the loop parses them (L4.1)', () => {
    expect(parseToolArguments('')).toEqual({})
    expect(parseToolArguments(' \n\t ')).toEqual({})
    expect(parseToolArguments('{"path":"/a","n":[1,2]}')).toEqual({ path: '/a', n: [1, 2] })
    expect(parseToolArguments('[1]')).toEqual([1])
    expect(parseToolArguments('7')).toBe(7)
    expect(parseToolArguments('null')).toBeNull()
    expect(parseToolArguments('{"path":')).toBe('{"path":')
    expect(parseToolArguments('path=/a')).toBe('path=/a')
    const parsed = parseToolArguments('{"__proto__":{"x":1}}') as Record<string, unknown>
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(parseToolArguments(JSON.stringify(v))).toEqual(JSON.parse(JSON.stringify(v)))
      }),
    )
    fc.assert(fc.property(fc.string(), (raw) => parseToolArguments(raw) !== undefined))
  })

  it('U1.3: presentCall receives the deep-frozen arguments parsed from the raw string', () => {
    const seen: unknown[] = []
    const def = tool({
      presentCall: (args) => {
        seen.push(args)
        return { card: 'generic', title: 'seen' }
      },
    })
    callCard(def, 'read_file', '{"path":"/a","opts":{"lines":[1,2]}}')
    callCard(def, 'read_file', '   ')
    callCard(def, 'read_file', 'not json')
    expect(seen).toEqual([{ path: '/a', opts: { lines: [1, 2] } }, {}, 'not json'])
    for (const args of seen) expect(isDeepFrozen(args)).toBe(true)
    // Each card gets its own parse: a presenter cannot see another call's objects.
    callCard(def, 'read_file', '{"a":1}')
    callCard(def, 'read_file', '{"a":1}')
    expect(seen[3]).not.toBe(seen[4])
  })

  it('U1.4: presentResult receives the frozen arguments and only { content, isError, meta? }', () => {
    const seen: [unknown, unknown][] = []
    const def = tool({
      presentResult: (args, result) => {
        seen.push([args, result])
        return { card: 'generic', title: 'done' }
      },
    })
    const withValue = { ...durable, value: { canonical: true }, additionalContexts: [] } as DurableResult
    expect(resultCard(def, 'read_file', '{"path":"/a"}', withValue)).toEqual({
      card: 'generic',
      title: 'done',
    })
    resultCard(def, 'read_file', '{}', { content: [], isError: true })
    expect(seen[0]).toEqual([{ path: '/a' }, durable])
    expect(seen[1]).toEqual([{}, { content: [], isError: true }])
    expect(Object.keys(seen[1]![1] as object)).toEqual(['content', 'isError'])
    for (const [args, result] of seen) {
      expect(isDeepFrozen(args)).toBe(true)
      expect(isDeepFrozen(result)).toBe(true)
    }
    expect(seen[0]![1]).not.toBe(withValue)
  })

  it('U1.5: without a definition, a presenter or a presented view, the call card is generic with the raw input', () => {
    const fallback = { card: 'generic', title: 'read_file', rawInput: '{"path":"/a"}' }
    expect(callCard(undefined, 'read_file', '{"path":"/a"}')).toEqual(fallback)
    expect(callCard(tool(), 'read_file', '{"path":"/a"}')).toEqual(fallback)
    expect(callCard(tool({ presentCall: () => undefined }), 'read_file', '{"path":"/a"}')).toEqual(fallback)
    expect(callCard(undefined, 'x', '')).toEqual({ card: 'generic', title: 'x', rawInput: '' })
    expect(isDeepFrozen(callCard(undefined, 'x', 'raw'))).toBe(true)
  })

  it('U1.5: a presented call view is returned as a frozen copy', () => {
    for (const view of callViews) {
      const card = callCard(tool({ presentCall: () => view }), 'read_file', '{}')
      expect(card).toEqual(view)
      expect(card).not.toBe(view)
      expect(isDeepFrozen(card)).toBe(true)
    }
  })

  it('U1.6: without a presented result view, the result card keeps the call card title and shows the durable content', () => {
    expect(resultCard(undefined, 'read_file', '{"path":"/a"}', durable)).toEqual({
      card: 'generic',
      title: 'read_file',
      content: durable.content,
    })
    const titled = tool({
      presentCall: (args: { path: string }) => ({ card: 'terminal', title: `Read ${args.path}` }),
    })
    expect(resultCard(titled, 'read_file', '{"path":"/a"}', durable)).toEqual({
      card: 'generic',
      title: 'Read /a',
      content: durable.content,
    })
    const silent = tool({
      presentCall: () => ({ card: 'generic', title: 'Quiet' }),
      presentResult: () => undefined,
    })
    expect(resultCard(silent, 'read_file', '{}', durable)).toEqual({
      card: 'generic',
      title: 'Quiet',
      content: durable.content,
    })
    for (const view of resultViews) {
      const card = resultCard(tool({ presentResult: () => view }), 'read_file', '{}', durable)
      expect(card).toEqual(view)
      expect(isDeepFrozen(card)).toBe(true)
    }
  })

  it('U1.7: presenters that throw or return unknown or lossy views yield the fallbacks; cards never throw', () => {
    const cyclic: Record<string, unknown> = { card: 'generic', title: 'loop' }
    cyclic.self = cyclic
    let reads = 0
    const shifty = {
      card: 'generic',
      get title() {
        reads++
        return reads === 1 ? 'fine' : 5
      },
    }
    const bad: (() => unknown)[] = [
      () => {
        throw new Error('presenter bug')
      },
      () => {
        throw trapEverything()
      },
      () => ({ card: 'chart', title: 'x' }),
      () => ({ card: 'generic', title: 'x', extra: 1 }),
      () => ({ card: 'generic', title: 'x', size: 1n }),
      () => ({ card: 'generic', title: 'x', content: [{ type: 'text' }] }),
      () => cyclic,
      () => trapEverything(),
      () => 'a string',
      () => null,
      () => Promise.resolve({ card: 'generic', title: 'async' }),
    ]
    const callFallback = { card: 'generic', title: 'read_file', rawInput: '{}' }
    const resultFallback = { card: 'generic', title: 'read_file', content: durable.content }
    for (const presenter of bad) {
      const def = tool({ presentCall: presenter as never, presentResult: presenter as never })
      expect(callCard(def, 'read_file', '{}')).toEqual(callFallback)
      expect(resultCard(def, 'read_file', '{}', durable)).toEqual(resultFallback)
    }
    // A view that changes between reads is judged on the one copy taken.
    expect(callCard(tool({ presentCall: () => shifty as never }), 'read_file', '{}')).toEqual({
      card: 'generic',
      title: 'fine',
    })
    // A hostile definition or durable result is contained too.
    const hostileDef = trapEverything() as AnyToolDefinition
    expect(callCard(hostileDef, 'read_file', '{}')).toEqual(callFallback)
    expect(resultCard(hostileDef, 'read_file', '{}', durable)).toEqual(resultFallback)
    const hostileDurable = trapEverything() as DurableResult
    const def = tool({ presentResult: () => ({ card: 'generic' }) })
    expect(resultCard(def, 'read_file', '{}', hostileDurable)).toEqual({
      card: 'generic',
      title: 'read_file',
    })
    const lossyDurable = {
      content: [{ type: 'text', text: 'kept' }],
      isError: 'no',
    } as unknown as DurableResult
    expect(resultCard(def, 'read_file', '{}', lossyDurable)).toEqual({
      card: 'generic',
      title: 'read_file',
      content: [{ type: 'text', text: 'kept' }],
    })
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true }),
        fc.string(),
        (returned, raw) => {
          const anyDef = tool({
            presentCall: () => returned as never,
            presentResult: () => returned as never,
          })
          const card = callCard(anyDef, 'read_file', raw)
          expect(isCallView(card)).toBe(true)
          expect(isResultView(resultCard(anyDef, 'read_file', raw, durable))).toBe(true)
        },
      ),
    )
  })

  it('U1.8: cards built again from the replayed durable data equal the live cards', () => {
    const def = tool({
      presentCall: (args: { path?: unknown }) => ({
        card: 'generic',
        title: `Read ${String(args.path)}`,
        kind: 'read',
      }),
      presentResult: (args: { path?: unknown }, result) =>
        result.isError
          ? undefined
          : {
              card: 'read',
              path: String(args.path),
              offset: 0,
              lines: result.content.flatMap((block, i) =>
                block.type === 'text' ? [{ number: i + 1, text: String(block.text) }] : [],
              ),
              totalLines: typeof result.meta === 'number' ? result.meta : 0,
            },
    })
    const content = fc.array(
      fc.oneof(
        fc.record({ type: fc.constant('text'), text: fc.string() }),
        // -0 is not lossless JSON; a JSON round trip gives fast-check's values the wire's form.
        fc.record({
          type: fc.constant('note'),
          body: fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v))),
        }),
      ),
      { maxLength: 4 },
    )
    fc.assert(
      fc.property(
        fc.jsonValue(),
        content,
        fc.boolean(),
        fc.option(fc.nat(), { nil: undefined }),
        (args, blocks, isError, meta) => {
          const raw = JSON.stringify(args)
          const live: DurableResult =
            meta === undefined
              ? { content: blocks as never, isError }
              : { content: blocks as never, isError, meta }
          // What a replay reads back from the log: the same data after a JSON round trip.
          const replayed = JSON.parse(JSON.stringify(live)) as DurableResult
          expect(callCard(def, 'read_file', raw)).toEqual(callCard(def, 'read_file', raw))
          expect(resultCard(def, 'read_file', raw, replayed)).toEqual(resultCard(def, 'read_file', raw, live))
        },
      ),
    )
  })

  it('U1.8: a view with a JsonValue meta is derived only from stored data', () => {
    const meta: JsonValue = { lines: 3, lang: 'ts' }
    const def = tool({
      presentResult: (_args, result) => ({ card: 'generic', title: JSON.stringify(result.meta) }),
    })
    const card = resultCard(def, 'read_file', '{}', { content: [], isError: false, meta })
    expect(card).toEqual({ card: 'generic', title: '{"lines":3,"lang":"ts"}' })
  })

  it('U1.9: a UI looks the presenter up through runtime.view(scope).get(name), so the card matches the definition that ran', () => {
    const runtime = createToolRuntime()
    const named = (title: string): AnyToolDefinition => ({
      ...tool({ presentCall: () => ({ card: 'generic', title }) }),
      name: 'lookup',
    })
    runtime.register(named('global lookup'))
    const scope = runtime.scope()
    const view = runtime.view(scope)
    expect(callCard(view.get('lookup'), 'lookup', '{}')).toEqual({ card: 'generic', title: 'global lookup' })
    // The scope shadows the global definition: the same live view now yields the scope's card.
    const off = scope.register(named('scoped lookup'))
    expect(callCard(view.get('lookup'), 'lookup', '{}')).toEqual({ card: 'generic', title: 'scoped lookup' })
    expect(callCard(runtime.view().get('lookup'), 'lookup', '{}')).toEqual({
      card: 'generic',
      title: 'global lookup',
    })
    off()
    expect(callCard(view.get('lookup'), 'lookup', '{}')).toEqual({ card: 'generic', title: 'global lookup' })
    // A name the view cannot see gets the generic card.
    expect(callCard(view.get('missing'), 'missing', '{"a":1}')).toEqual({
      card: 'generic',
      title: 'missing',
      rawInput: '{"a":1}',
    })
  })
})
