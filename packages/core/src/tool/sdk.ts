/**
 * The Code Mode SDK (X2): the text a `code`/`both` view puts into its instructions so the
 * model knows what `tools.*` can call, with which arguments, and what each call returns.
 */
import { type AnyToolDefinition, RUN_CODE } from '../contract/definition.js'
import { schemaToTypeScript } from '../schema/typescript.js'

const USAGE = [
  'Write `run_code` programs in TypeScript. A program runs as the body of an async function in an isolated sandbox:',
  "- call a tool with `await tools.<name>(args)`; it resolves with the tool's JSON value (not its rendered text);",
  '- a failed call rejects with a `ToolCallError` whose `toolName`, `code` and `message` say why; catch it to carry on;',
  '- start independent calls together with `Promise.all` so they can run in parallel;',
  '- `console.log` lines are captured, and the value you `return` (any JSON) is the result;',
  '- return only what you need: the logs and the result are all that comes back to you;',
  '- there is no filesystem, network, timer, `process`, `require` or `import`; only `tools` and `console`.',
].join('\n')

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A property key as TypeScript accepts it: bare when it is an identifier, quoted otherwise. */
function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name)
}

/** Indents every line after the first, so a multi-line type sits inside an interface body. */
function nest(type: string): string {
  return type.replace(/\n/g, '\n  ')
}

/** The one-line doc comment of a description: whitespace collapsed, `*\/` defused. */
function docLine(description: string): string {
  const text = description.replace(/\s+/g, ' ').trim().replace(/\*\//g, '*\\/')
  return text === '' ? '' : `  /** ${text} */\n`
}

function byName(a: AnyToolDefinition, b: AnyToolDefinition): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/**
 * Renders the SDK for `definitions` (X2.1): the usage text, then one fenced TypeScript block
 * declaring `JsonValue`, `ToolArgsMap` (doc comment, then argument type per tool),
 * `ToolOutputMap`, `ToolName`, `ToolCallError` and `tools`. Tools are sorted by name (code
 * unit order) and `run_code` is left out (X2.2); the text depends only on the names,
 * descriptions, parameters and output schemas, so identical tool sets render byte-identical
 * text. Total: a schema outside the subset renders as `unknown`.
 */
export function sdkText(definitions: readonly AnyToolDefinition[]): string {
  const tools = definitions.filter((def) => def.name !== RUN_CODE).sort(byName)
  const args = tools.map(
    (def) => `${docLine(def.description)}  ${key(def.name)}: ${nest(schemaToTypeScript(def.parameters))}`,
  )
  const outputs = tools.map((def) => `  ${key(def.name)}: ${nest(schemaToTypeScript(def.output.schema))}`)
  return [
    USAGE,
    '',
    '```ts',
    'type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }',
    '',
    'interface ToolArgsMap {',
    ...args,
    '}',
    '',
    'interface ToolOutputMap {',
    ...outputs,
    '}',
    '',
    'type ToolName = keyof ToolOutputMap',
    '',
    '/** How a failed tool call rejects. */',
    'declare class ToolCallError extends Error {',
    '  readonly toolName: ToolName',
    '  /** The failure code, e.g. "DENIED", "INVALID_ARGS", "TOOL_FAILED". */',
    '  readonly code: string',
    '}',
    '',
    'declare const tools: { readonly [K in ToolName]: (args: ToolArgsMap[K]) => Promise<ToolOutputMap[K]> }',
    '```',
  ].join('\n')
}
