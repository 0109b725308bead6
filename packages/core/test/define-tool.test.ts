import {
  type CallView,
  defineTool,
  type RunContext,
  snapshotJson,
  ToolError,
  toModelSchema,
  validateValue,
} from '@tooltx/core'
import { deepFreeze } from '@tooltx/core/internal'
import { describe, expect, it, vi } from 'vitest'
import { thrownToolError } from './thrown.js'

const run = {} as RunContext

/** Arguments as the runtime hands them over: a frozen snapshot. */
function frozenArgs(value: unknown): never {
  const copy = snapshotJson(value, { freeze: true })
  if (!copy.ok) throw new Error(copy.reason)
  return copy.value as never
}

function readFileTool(overrides: Record<string, unknown> = {}) {
  return defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 file.',
    parameters: {
      path: { type: 'string', required: true, description: 'Absolute path' },
      limit: { type: 'integer' },
    },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { text: { type: 'string', required: true }, lines: { type: 'integer', required: true } },
      },
      render: (_args, value) => [{ type: 'text', text: value.text }],
      presentationMeta: (_args, value) => ({ lines: value.lines }),
    },
    isConcurrencySafe: () => true,
    timeoutMs: 10_000,
    execute: async (args) => ({ text: `read ${args.path}`, lines: args.limit ?? 1 }),
    presentCall: (args) => ({ card: 'generic', title: `Read ${args.path}`, kind: 'read' }),
    presentResult: () => ({ card: 'generic', title: 'done' }),
    ...overrides,
  })
}

const definitionError = (fn: () => unknown) => thrownToolError(fn, 'INVALID_DEFINITION')

describe('D1 the four contracts of a definition', () => {
  it('D1.1: a defineTool definition carries the model, execution, output and UI contracts', () => {
    const tool = readFileTool()
    expect(Object.keys(tool).sort()).toEqual(
      [
        'name',
        'description',
        'parameters',
        'output',
        'execute',
        'isConcurrencySafe',
        'timeoutMs',
        'presentCall',
        'presentResult',
      ].sort(),
    )
    expect(Object.keys(tool.output)).toEqual(['schema', 'render', 'presentationMeta'])
    const finalizeContent = () => undefined
    expect(readFileTool({ finalizeContent }).finalizeContent).toBe(finalizeContent)
  })

  it('D1.2: execute resolves to the canonical value, receiving the frozen args and the run context', async () => {
    const body = vi.fn(async (args: { path: string }, ctx: RunContext) => {
      expect(Object.isFrozen(args)).toBe(true)
      expect(ctx).toBe(run)
      return { text: args.path, lines: 1 }
    })
    const tool = readFileTool({ execute: body })
    const args = frozenArgs({ path: '/a' })
    await expect(tool.execute(args, run)).resolves.toEqual({ text: '/a', lines: 1 })
    expect(body).toHaveBeenCalledWith(args, run)
  })

  it('D1.3: render and presentationMeta project the args and the value', () => {
    const tool = readFileTool()
    const args = frozenArgs({ path: '/a' })
    const value = deepFreeze({ text: 'hello', lines: 2 })
    expect(tool.output.render(args, value)).toEqual([{ type: 'text', text: 'hello' }])
    expect(tool.output.presentationMeta?.(args, value)).toEqual({ lines: 2 })
    expect(validateValue(tool.output.schema, value, 'value')).toEqual([])
  })

  it('D1.4: the model-facing schema holds only name, description and parameters, all lossless JSON', () => {
    const tool = readFileTool({ finalizeContent: () => undefined })
    const schema = toModelSchema(tool)
    expect(Object.keys(schema)).toEqual(['name', 'description', 'parameters'])
    expect(snapshotJson(schema).ok).toBe(true)
    expect(JSON.stringify(schema)).not.toContain('10000')
    expect(tool.output.schema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' }, lines: { type: 'integer' } },
      required: ['text', 'lines'],
      additionalProperties: false,
    })
  })
})

describe('D3 defineTool', () => {
  it('D3.1: parameters compile to an object root and output.schema to a subset schema; DSL errors throw UNSUPPORTED_SCHEMA', () => {
    const tool = readFileTool()
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: { path: { type: 'string', description: 'Absolute path' }, limit: { type: 'integer' } },
      required: ['path'],
    })
    for (const [override, message] of [
      [
        { parameters: { p: { type: 'string', minProperties: 1 } } },
        'parameters.p.minProperties is not supported by the value schema DSL',
      ],
      [
        { output: { schema: { type: 'object', additionalProperties: 'yes' }, render: () => [] } },
        'output.schema.additionalProperties must be explicitly true or false',
      ],
    ] as const) {
      let caught: unknown
      try {
        readFileTool(override as Record<string, unknown>)
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(ToolError)
      expect(caught).toMatchObject({ code: 'UNSUPPORTED_SCHEMA', name: 'SchemaError', message })
    }
  })

  it('D3.2: name, description, timeoutMs and callbacks are checked at definition time', () => {
    expect(definitionError(() => readFileTool({ name: 'bad name' })).message).toBe(
      'defineTool(bad name): tool name "bad name" must match /^[A-Za-z0-9_-]{1,64}$/',
    )
    expect(definitionError(() => readFileTool({ name: 'x'.repeat(65) })).message).toMatch(
      /^defineTool\(x+\): /,
    )
    expect(definitionError(() => readFileTool({ name: 'run_code' })).message).toBe(
      'defineTool(run_code): tool name "run_code" is reserved for the Code Mode transport',
    )
    for (const timeoutMs of [0, -1, Number.POSITIVE_INFINITY, Number.NaN, '10']) {
      expect(definitionError(() => readFileTool({ timeoutMs })).message).toBe(
        'defineTool(read_file): timeoutMs must be a positive finite number',
      )
    }
    expect(definitionError(() => readFileTool({ description: 1 })).message).toBe(
      'defineTool(read_file): description must be a string',
    )
    expect(definitionError(() => readFileTool({ execute: 'no' })).message).toBe(
      'defineTool(read_file): execute must be a function',
    )
    expect(definitionError(() => readFileTool({ presentCall: 1 })).message).toBe(
      'defineTool(read_file): presentCall must be absent or a function',
    )
    expect(
      definitionError(() => readFileTool({ output: { schema: { type: 'json' }, render: 1 } })).message,
    ).toBe('defineTool(read_file): output.render must be a function')
  })

  it('D3.3: execute validates the frozen args first; on a violation the body never runs', async () => {
    const body = vi.fn(async () => ({ text: '', lines: 0 }))
    const tool = readFileTool({ execute: body })
    await expect(tool.execute(frozenArgs({ limit: 1.5 }), run)).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      name: 'ToolArgsError',
      message: 'invalid arguments: missing required property "path"; "limit" must be an integer',
    })
    await expect(tool.execute(frozenArgs('just a string'), run)).rejects.toMatchObject({
      code: 'INVALID_ARGS',
      message: 'invalid arguments: "arguments" must be an object',
    })
    expect(body).not.toHaveBeenCalled()
    await expect(tool.execute(frozenArgs({ path: '/p', extra: true }), run)).resolves.toEqual({
      text: '',
      lines: 0,
    })
    expect(body).toHaveBeenCalledTimes(1)
  })

  it("D3.4: isConcurrencySafe is false for invalid args and the author's answer otherwise", () => {
    const author = vi.fn((args: { path: string }) => args.path.startsWith('/safe'))
    const tool = readFileTool({ isConcurrencySafe: author })
    expect(tool.isConcurrencySafe?.(frozenArgs({ path: 3 }))).toBe(false)
    expect(author).not.toHaveBeenCalled()
    expect(tool.isConcurrencySafe?.(frozenArgs({ path: '/safe/x' }))).toBe(true)
    expect(tool.isConcurrencySafe?.(frozenArgs({ path: '/other' }))).toBe(false)
    const noAnswer = readFileTool({ isConcurrencySafe: undefined })
    expect('isConcurrencySafe' in noAnswer).toBe(false)
  })

  it('D3.5: presentCall and presentResult yield undefined for invalid args', () => {
    const view: CallView = { card: 'generic', title: 'Read /a', kind: 'read' }
    const tool = readFileTool()
    expect(tool.presentCall?.(frozenArgs({ path: '/a' }))).toEqual(view)
    expect(tool.presentCall?.(frozenArgs({}))).toBeUndefined()
    expect(tool.presentCall?.(frozenArgs(null))).toBeUndefined()
    const durable = { content: [], isError: false }
    expect(tool.presentResult?.(frozenArgs({ path: '/a' }), durable)).toEqual({
      card: 'generic',
      title: 'done',
    })
    expect(tool.presentResult?.(frozenArgs({ path: 1 }), durable)).toBeUndefined()
  })

  it('D3.6: the result is a frozen ordinary definition; omitted optional members stay absent', () => {
    const tool = defineTool({
      name: 'noop',
      description: '',
      parameters: {},
      output: { schema: { type: 'null' }, render: () => [] },
      execute: () => null,
    })
    expect(Object.isFrozen(tool)).toBe(true)
    expect(Object.isFrozen(tool.output)).toBe(true)
    expect(Object.isFrozen(tool.parameters)).toBe(true)
    for (const key of ['presentCall', 'presentResult', 'isConcurrencySafe', 'timeoutMs', 'finalizeContent']) {
      expect(key in tool).toBe(false)
    }
    expect('presentationMeta' in tool.output).toBe(false)
    expect(Object.getPrototypeOf(tool)).toBe(Object.prototype)
  })
})
