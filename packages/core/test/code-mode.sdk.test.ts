import { type AnyToolDefinition, createToolRuntime } from '@tooltx/core'
import { RUN_CODE } from '@tooltx/core/internal'
import fc from 'fast-check'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { tool } from './code-mode.fixtures.js'

const CODE_ONLY_RULE =
  'Only `run_code` is callable directly; call every other tool from inside a `run_code` program through the `tools` object.'

const readFile = tool('read_file', {
  description: 'Read a UTF-8 file.\n  Second line.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'Workspace path' }, limit: { type: 'integer' } },
    required: ['path'],
  },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { text: { type: 'string' }, lines: { type: 'integer' } },
      required: ['text', 'lines'],
    },
    render: () => [],
  },
})

function sdkOf(defs: AnyToolDefinition[], mode: 'code' | 'both' = 'both'): string {
  const rt = createToolRuntime({ mode })
  for (const def of defs) rt.register(def)
  return rt.view().surface().instructions
}

/** The fenced TypeScript block of an SDK text. */
function block(sdk: string): string {
  const match = /```ts\n([\s\S]*?)\n```/.exec(sdk)
  if (match === null) throw new Error('no TypeScript block')
  return match[1]!
}

const TS_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  types: [],
}
const LIBS = new Map<string, ts.SourceFile>()

/** Type-checks `program` against the SDK block; returns the diagnostics' messages. */
function typecheck(sdk: string, program: string): string[] {
  const files = new Map([
    ['sdk.d.ts', block(sdk)],
    ['program.ts', `export {}\nasync function main() {\n${program}\n}\nvoid main`],
  ])
  const host = ts.createCompilerHost(TS_OPTIONS)
  const original = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version) => {
    const text = files.get(name)
    if (text !== undefined) return ts.createSourceFile(name, text, version)
    // The standard library is parsed once for the whole file.
    let lib = LIBS.get(name)
    if (lib === undefined) {
      lib = original(name, version)
      if (lib !== undefined) LIBS.set(name, lib)
    }
    return lib
  }
  const program_ = ts.createProgram([...files.keys()], TS_OPTIONS, host)
  return ts.getPreEmitDiagnostics(program_).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

describe('X2 the SDK', () => {
  it('X2.1: usage text, then one TypeScript block declaring JsonValue, the maps, ToolName, ToolCallError and tools', () => {
    const sdk = sdkOf([readFile])
    const fences = sdk.match(/```/g) ?? []
    expect(fences).toHaveLength(2)
    // Usage text first, then the one TypeScript block.
    expect(sdk.indexOf('```ts')).toBe(sdk.indexOf('```'))
    expect(sdk.slice(0, sdk.indexOf('```ts'))).toMatch(
      /^Write `run_code` programs in TypeScript\. [\s\S]*`console`\.\n\n$/,
    )
    const code = block(sdk)
    expect(code).toContain('type JsonValue =')
    expect(code).toContain(
      'interface ToolArgsMap {\n  /** Read a UTF-8 file. Second line. */\n  read_file: {',
    )
    expect(code).toContain('interface ToolOutputMap {')
    expect(code).toContain('type ToolName = keyof ToolOutputMap')
    expect(code).toMatch(
      /declare class ToolCallError extends Error \{[^}]*readonly toolName: ToolName[^}]*readonly code: string/,
    )
    expect(code).toContain(
      'declare const tools: { readonly [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> }',
    )
    // The declarations are real TypeScript: a program written against them type-checks, a wrong one does not.
    expect(
      typecheck(
        sdk,
        `const r = await tools.read_file({ path: 'a' })
         const n: number = r.lines
         try { await tools.read_file({ path: 'b' }) } catch (e) { if (e instanceof ToolCallError) { const c: string = e.code; const t: ToolName = e.toolName } }`,
      ),
    ).toEqual([])
    expect(typecheck(sdk, `await tools.read_file({ limit: 1 })`)).toEqual([
      expect.stringContaining("Property 'path' is missing in type '{ limit: number; }'"),
    ])
    expect(typecheck(sdk, `await tools.write_file({})`)).toEqual([
      expect.stringMatching(/^Property 'write_file' does not exist on type '\{ readonly read_file: /),
    ])
  })

  it('X2.1: tool names that are not identifiers are quoted and still type-check', () => {
    const sdk = sdkOf([tool('2fa-check'), tool('__proto__')])
    expect(block(sdk)).toContain('"2fa-check": ')
    expect(typecheck(sdk, `await tools['2fa-check']({}); await tools.__proto__({})`)).toEqual([])
  })

  it('X2.2: tools are sorted by name, run_code never appears, identical tool sets render byte-identical text', () => {
    const names = fc.uniqueArray(
      fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/).filter((n) => n !== RUN_CODE),
      {
        minLength: 0,
        maxLength: 8,
      },
    )
    fc.assert(
      fc.property(names, fc.func(fc.integer()), (list, rank) => {
        const shuffled = [...list].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1))
        const first = sdkOf(list.map((n) => tool(n)))
        const second = sdkOf(shuffled.map((n) => tool(n)))
        expect(second).toBe(first)
        expect(block(first)).not.toContain(RUN_CODE)
        const order = [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        const args = block(first).slice(0, block(first).indexOf('interface ToolOutputMap'))
        const positions = order.map((n) => args.indexOf(`/** The ${n} tool. */`))
        expect(positions).toEqual([...positions].sort((a, b) => a - b))
        expect(positions.every((p) => p >= 0)).toBe(true)
      }),
      { numRuns: 40 },
    )
  })

  it('X2.3: the SDK is rendered from the scope view every time surface() is read', () => {
    const rt = createToolRuntime({ mode: 'code' })
    rt.register(tool('global_tool'))
    const scope = rt.scope()
    const view = rt.view(scope)
    expect(view.surface().instructions).toContain('global_tool: ')
    const off = scope.register(tool('own_tool'))
    expect(view.surface().instructions).toContain('own_tool: ')
    const lift = scope.restrict({ deny: ['global_tool'] })
    expect(view.surface().instructions).not.toContain('global_tool')
    lift()
    off()
    expect(view.surface().instructions).not.toContain('own_tool')
    expect(view.surface().instructions).toContain('global_tool: ')
  })
})

describe('M2 instructions in code and both modes', () => {
  it('M2.3: code mode instructions are the code-only rule, a blank line, then the SDK', () => {
    const both = sdkOf([readFile], 'both')
    const code = sdkOf([readFile], 'code')
    expect(code).toBe(`${CODE_ONLY_RULE}\n\n${both}`)
  })

  it('M2.4: both mode instructions are the SDK alone, without the code-only rule', () => {
    const sdk = sdkOf([readFile], 'both')
    expect(sdk).not.toContain(CODE_ONLY_RULE)
    expect(sdk.startsWith('Write `run_code` programs in TypeScript.')).toBe(true)
    expect(block(sdk)).toContain('read_file')
  })
})
